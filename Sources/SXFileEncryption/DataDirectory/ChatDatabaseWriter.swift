import SXCore
import SXCrypto
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// The chat database opened read-write with the app's settings and held exclusively for the whole
/// run: the app cannot open it meanwhile, and a second sxkit run is refused rather than interleaved.
final class ChatDatabaseWriter {
    let path: String
    let connection: DatabaseConnection
    private var autoVacuumApplied = false

    /// How long to wait for a lock someone else holds before calling the database in use.
    static let busyTimeoutMilliseconds = 300

    init(path: String, passphrase: SecretBytes) throws {
        self.path = path
        guard POSIXFile.linkStatus(path) != nil else { throw FileSystemError("open", path: path, code: ENOENT) }
        // Asked before SQLite opens the file: closing a probe descriptor later would drop our own locks.
        if LockProbe.isInUse(path) { throw ChatFilesError.databaseInUse(path: path) }
        do {
            let (db, _) = try DatabaseOpener.open(path, passphrase: passphrase, mode: .readWrite, coreSettings: true) { db in
                try db.busyTimeout(ms: Self.busyTimeoutMilliseconds)
                // Every lock taken is kept until the connection closes (a WAL index moves to heap memory).
                try db.execute("PRAGMA locking_mode = EXCLUSIVE")
            }
            try db.execute("BEGIN EXCLUSIVE; COMMIT;")
            connection = db
        } catch let error as DatabaseError where error.isBusy {
            throw ChatFilesError.databaseInUse(path: path)
        }
    }

    /// One change to a row's key columns.
    struct KeyChange {
        var fileId: Int64
        /// The key and nonce to record; nil to clear them.
        var args: CryptoFileArgs?
        /// Change the row only when it holds this key now (nil: only when it holds no key).
        var expected: CryptoFileArgs?
    }

    /// Applies every change in one transaction; rows that do not hold the expected key are left alone.
    func apply(_ changes: [KeyChange]) throws {
        guard !changes.isEmpty else { return }
        do {
            if !autoVacuumApplied {
                // The core's last open setting writes page 1, so it waits for the first real change.
                try connection.applyChatCoreAutoVacuum()
                autoVacuumApplied = true
            }
            try connection.execute("BEGIN IMMEDIATE")
            do {
                // ?1 row, ?2 ?3 the new key and nonce, ?4 ?5 the expected ones.
                let setWhereNone = try connection.prepare(
                    "UPDATE files SET file_crypto_key = ?2, file_crypto_nonce = ?3 WHERE file_id = ?1 AND file_crypto_key IS NULL")
                let replace = try connection.prepare(
                    "UPDATE files SET file_crypto_key = ?2, file_crypto_nonce = ?3 WHERE file_id = ?1 AND file_crypto_key = ?4 AND file_crypto_nonce = ?5")
                let clear = try connection.prepare(
                    "UPDATE files SET file_crypto_key = NULL, file_crypto_nonce = NULL WHERE file_id = ?1 AND file_crypto_key = ?4 AND file_crypto_nonce = ?5")
                for change in changes {
                    let statement: SXDatabase.Statement
                    switch (change.args, change.expected) {
                    case (.some, nil): statement = setWhereNone
                    case (.some, .some): statement = replace
                    case (nil, .some): statement = clear
                    case (nil, nil): continue
                    }
                    try statement.bind(change.fileId, at: 1)
                    if let args = change.args {
                        var key = args.key.copyBytes()
                        defer { Wipe.array(&key) }
                        try statement.bind(key, at: 2)
                        try statement.bind(args.nonce, at: 3)
                    }
                    if let expected = change.expected {
                        var key = expected.key.copyBytes()
                        defer { Wipe.array(&key) }
                        try statement.bind(key, at: 4)
                        try statement.bind(expected.nonce, at: 5)
                    }
                    _ = try statement.step()
                    try statement.reset()
                }
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        } catch let error as DatabaseError {
            throw ChatFilesError.databaseWriteFailed(path: path, cause: error.description)
        }
    }
}
