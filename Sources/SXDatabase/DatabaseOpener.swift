import CSQLCipher
import SXCore

/// How a database file is encrypted, as found by opening it.
public enum CipherFormat: String, Sendable, Codable {
    /// Plain SQLite: opens without a key.
    case plaintext
    /// SQLCipher 4 defaults (FORMATS §3).
    case sqlcipher4
    /// SQLCipher 3 settings: opens only with `PRAGMA cipher_compatibility = 3`.
    case sqlcipher3
}

/// Opens a database with a passphrase the way FORMATS §3 says, and finds out which cipher settings
/// it uses: an empty passphrase means plaintext; otherwise SQLCipher 4 is tried first, then
/// SQLCipher 3 compatibility.
public enum DatabaseOpener {
    /// Opens `path`, applies `passphrase` and checks it. Throws the `DatabaseError` of the SQLCipher 4
    /// attempt when no setting reads the file (its `fileKind` tells a wrong key from a non-database).
    /// `configure` runs on each attempt after the key and before the first read (locking mode, busy
    /// timeout: settings that must precede any access to the file).
    public static func open(_ path: String, passphrase: SecretBytes, mode: DatabaseConnection.Mode,
                            configure: (DatabaseConnection) throws -> Void = { _ in }) throws -> (DatabaseConnection, CipherFormat) {
        try quietCipherLog()
        let firstError: DatabaseError
        do {
            let first = try DatabaseConnection(path: path, mode: mode)
            try first.applyKey(passphrase)
            try configure(first)
            try first.verifyKey()
            return (first, passphrase.isEmpty ? .plaintext : .sqlcipher4)
        } catch let error as DatabaseError where error.isNotADatabase && !passphrase.isEmpty
            && error.fileKind == .encryptedOrNotDatabase(looksRandom: true) {
            // The first connection is gone by now, so an exclusive lock it took cannot block the second.
            firstError = error
        }
        let second = try DatabaseConnection(path: path, mode: mode)
        try second.applyKey(passphrase)
        try second.setCompatibility(3)
        try configure(second)
        guard second.keyIsCorrect() else { throw firstError }
        return (second, .sqlcipher3)
    }

    /// SQLCipher logs every failed HMAC check to stderr; a wrong passphrase is an expected outcome
    /// that sxkit reports itself, so its log is turned off (process-wide). In 4.6.1 the level alone does
    /// not stop the CORE messages; the source filter does.
    static func quietCipherLog() throws {
        _ = silenced
    }

    private static let silenced: Bool = {
        var db: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nil) == SQLITE_OK else {
            sqlite3_close(db)
            return false
        }
        defer { sqlite3_close(db) }
        return sqlite3_exec(db, "PRAGMA cipher_log_level = NONE; PRAGMA cipher_log_source = NONE;", nil, nil, nil) == SQLITE_OK
    }()
}

extension DatabaseConnection {
    /// The connection settings the chat core uses (FORMATS §3). `auto_vacuum` only takes effect on a
    /// database that has no tables yet, so it is set for new files; existing files keep theirs.
    public func applyChatCoreSettings(newDatabase: Bool) throws {
        try execute("PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;")
        if newDatabase { try execute("PRAGMA auto_vacuum = FULL;") }
    }
}
