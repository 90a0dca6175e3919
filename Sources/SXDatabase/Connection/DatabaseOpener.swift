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
    /// `coreSettings` applies the core's connection settings right after the key, as the core's own
    /// open does (`applyChatCoreConnectionSettings`; a caller that writes runs `applyChatCoreAutoVacuum`
    /// before its first write). `configure` runs on each
    /// attempt after those and before sxkit's key check (locking mode, busy timeout: settings that
    /// must precede any other access to the file).
    public static func open(_ path: String, passphrase: SecretBytes, mode: DatabaseConnection.Mode, coreSettings: Bool = false,
                            configure: (DatabaseConnection) throws -> Void = { _ in }) throws -> (DatabaseConnection, CipherFormat) {
        try quietCipherLog()
        let firstError: DatabaseError
        do {
            let first = try DatabaseConnection(path: path, mode: mode)
            try first.applyKey(passphrase)
            if coreSettings { try first.applyChatCoreConnectionSettings() }
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
        if coreSettings { try second.applyChatCoreConnectionSettings() }
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
    /// The statements the SimpleX core runs on every connection right after `PRAGMA key`, in its
    /// order (simplexmq `src/Simplex/Messaging/Agent/Store/SQLite.hs:114-121`, `connectDB`, @92598c2).
    /// It sets no `journal_mode` (nor any other pragma), so real profiles keep SQLite's rollback
    /// journal. The first three only configure the connection; the last is split off below.
    public static let chatCoreConnectionSettingsSQL = "PRAGMA busy_timeout = 100; PRAGMA foreign_keys = ON; PRAGMA secure_delete = ON;"
    /// The core's last setting. It shapes a new file's first table and is kept for an older file's
    /// next VACUUM, but on a file that already is FULL it rewrites page 1 (the incremental-vacuum
    /// field) in a write transaction: it fails on a read-only connection and changes the file on a
    /// writable one.
    public static let chatCoreAutoVacuumSQL = "PRAGMA auto_vacuum = FULL;"

    /// All of the core's settings, in its order: for a connection that creates or rewrites a file.
    public func applyChatCoreSettings() throws {
        try execute(Self.chatCoreConnectionSettingsSQL + " " + Self.chatCoreAutoVacuumSQL)
    }

    /// The core's settings that change nothing on disk (busy timeout, foreign keys, secure delete).
    public func applyChatCoreConnectionSettings() throws {
        try execute(Self.chatCoreConnectionSettingsSQL)
    }

    /// The core's `auto_vacuum = FULL`, for a connection that opened with the connection settings
    /// only: run it right before the first write, so that work refused or found unnecessary leaves
    /// the file as it was.
    public func applyChatCoreAutoVacuum() throws {
        try execute(Self.chatCoreAutoVacuumSQL)
    }
}
