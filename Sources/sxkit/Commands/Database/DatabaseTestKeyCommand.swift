import ArgumentParser
import SXCore
import SXTerminal
import SXDatabase

/// `sxkit db test-key`: does the passphrase open both databases?
struct DatabaseTestKeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "test-key",
        abstract: "Test a passphrase on the chat and agent databases without changing anything.",
        discussion: """
        For each database says: key correct, wrong passphrase, not a database, not encrypted, or missing. \
        Exit status 0 only when the passphrase opens every database.
        """
    )

    @OptionGroup var selection: DatabaseSelectionOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let set = try selection.resolveNoticingLeftovers()
        let secret = try passphrase.resolve()
        let results = set.targets.map { KeyTester.test($0, passphrase: secret) }
        if options.json {
            try JSONDocument.print(["databases": results])
        } else {
            // --quiet: only the databases the passphrase does not open, on stderr.
            let width = results.map { $0.database.label.count }.max() ?? 0
            for r in results where !options.quiet || r.outcome != .correct {
                let label = r.database.label.padding(toLength: width, withPad: " ", startingAt: 0)
                // The message names the file itself when it is about the passphrase.
                let subject = r.message.contains("'\(r.database.path)'") ? "" : "\(r.database.path): "
                (options.quiet ? ConsoleOutput.standardError : ConsoleOutput.standardOutput)
                    .writeLine("\(label)  \(Self.word(r.outcome))  \(subject)\(PassphraseText.withHints(r.message))")
            }
        }
        if results.contains(where: { $0.outcome != .correct }) { throw CommandFailure(status: .failed) }
    }

    static func word(_ outcome: KeyTestOutcome) -> String {
        switch outcome {
        case .correct: "OK              "
        case .wrongPassphrase: "WRONG PASSPHRASE"
        case .notADatabase: "NOT A DATABASE  "
        case .notEncrypted: "NOT ENCRYPTED   "
        case .missing: "MISSING         "
        }
    }
}
