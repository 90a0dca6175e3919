import Foundation
import SXCore
import SXTransfer

/// The one place an error that stopped a command becomes what the user reads: one sentence saying
/// what happened and what to do, never a Swift debug dump. Domain errors say what is in the way;
/// the flags to get past it are named here.
enum ErrorSentence {
    static func text(for error: any Error) -> String {
        switch error {
        case let error as PassphraseError where error.neededRole != nil:
            return PassphraseText.needed(error.neededRole!)
        case let error as ExistingOutputError:
            if error.isFolder { return error.description }
            return "\(error.what); pass --force to replace \(error.paths.count > 1 ? "them" : "it"), or choose another output. Nothing was written"
        case TransferError.destinationExists(let path):
            return "'\(path)' already exists; pass --force to replace it, or choose another output with -o. Nothing was written"
        case let error as any SXError:
            // The libraries' one wording for a wrong passphrase gets how to give the right one.
            return PassphraseText.withHints(ErrorText.sentence(error))
        case let error as DecodingError:
            return "a JSON file is not what was expected: \(ErrorCause.describe(error))"
        default:
            return fallback(error)
        }
    }

    /// What to do about `error`, in the CLI's words, when there is one thing to say (`--json`'s
    /// `remedy`; the text mode has it inside the sentence).
    static func remedy(for error: any Error) -> String? {
        guard let error = error as? any SXError else { return nil }
        return error.remedy.map(ErrorText.words) ?? PassphraseText.hint(for: error.description)
    }

    static func exitStatus(for error: any Error) -> ExitStatus {
        (error as? any SXError)?.exitStatus ?? .failed
    }

    /// Anything not mapped at its source: the errno's text and the path when the error has them.
    static func fallback(_ error: any Error) -> String {
        let cause = ErrorCause.text(of: error)
        if let path = ErrorCause.path(of: error) { return "cannot use '\(path)': \(cause)" }
        return "the command failed: \(cause)"
    }
}
