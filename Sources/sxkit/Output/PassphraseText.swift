import SXCore

/// The command line's sentences about passphrases: how to give one, and the hints added to the
/// libraries' one wording for a wrong passphrase and for a database that has none.
enum PassphraseText {
    /// The ways to give a passphrase of `role`, as a list for a sentence.
    static func ways(_ role: PassphraseRole) -> String {
        let prefix = role == .current ? "" : "new-"
        return "--\(prefix)passphrase-file FILE, --\(prefix)passphrase-command COMMAND, "
            + "\(role.environmentVariable), \(role.environmentFileVariable), or the prompt on the terminal"
    }

    /// The answer to `--passphrase SECRET` and the like; the secret is not repeated.
    static func notOnCommandLine(_ role: PassphraseRole) -> String {
        "sxkit: a \(role == .current ? "passphrase" : "new passphrase") is never taken on the command line "
            + "(every user of this machine can read it there), and what followed it is not shown here. "
            + "Give it with \(ways(role)). See 'sxkit help'."
    }

    /// No source gave a passphrase.
    static func needed(_ role: PassphraseRole) -> String {
        "a \(role == .current ? "passphrase" : "new passphrase") is needed and none was given: use \(ways(role))"
            + (role == .current ? ", or --no-passphrase if the databases are not encrypted" : "")
    }

    /// `text` with the command line's hint after the libraries' wording for a wrong passphrase or a
    /// plaintext database, wherever it appears (an error, a per-database line, a finding).
    static func withHints(_ text: String) -> String {
        hint(for: text).map { text + "; " + $0 } ?? text
    }

    /// The hint `withHints` adds to `text`, if any (`--json`'s `remedy`).
    static func hint(for text: String) -> String? {
        if text.contains(PassphraseWording.notEncryptedMarker), !text.contains("--no-passphrase") {
            return "use --no-passphrase"
        }
        if text.contains(PassphraseWording.wrongMarker), !text.contains("--passphrase-") {
            return "give the right one with \(ways(.current))"
        }
        return nil
    }
}
