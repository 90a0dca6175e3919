/// The one wording of every library for a passphrase that does not open a database, and for a
/// plaintext database that was given a passphrase. The command line finds these by their markers
/// and adds how to give another passphrase, or `--no-passphrase`.
public enum PassphraseWording {
    /// In every sentence about a wrong passphrase.
    public static let wrongMarker = "the passphrase is wrong"
    /// In every sentence about a database that needs no passphrase.
    public static let notEncryptedMarker = "is not encrypted (plaintext SQLite)"

    /// The passphrase does not open `path`, with SQLCipher 4's settings nor SQLCipher 3's.
    public static func wrong(_ path: String) -> String {
        "\(wrongMarker): it does not open '\(path)' (tried SQLCipher 4 and SQLCipher 3 settings)"
    }

    /// `path` is plaintext SQLite, yet a passphrase was given.
    public static func notEncrypted(_ path: String) -> String {
        "'\(path)' \(notEncryptedMarker), so it opens only with no passphrase"
    }
}
