import CSQLCipher
import SXCore

/// The SQLCipher library actually loaded into this process, and the guard that refuses to touch a
/// database with anything but SQLCipher 4 (an older library would silently use other KDF settings
/// and a plain SQLite would ignore the key entirely).
public enum SQLCipherRuntime {
    /// The SQLite version the library reports ("3.46.1").
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }

    /// `PRAGMA cipher_version` ("4.6.1 community"), or nil when the library is not SQLCipher.
    public static let cipherVersion: String? = {
        var db: OpaquePointer?
        guard sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, nil) == SQLITE_OK else {
            sqlite3_close(db)
            return nil
        }
        defer { sqlite3_close(db) }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(db, "PRAGMA cipher_version", -1, &statement, nil) == SQLITE_OK else { return nil }
        defer { sqlite3_finalize(statement) }
        guard sqlite3_step(statement) == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }()

    /// Throws unless the loaded library is SQLCipher 4.x. Every database entry point calls this.
    public static func requireSQLCipher4() throws {
        guard let version = cipherVersion else { throw SQLCipherVersionError(found: nil) }
        guard version.hasPrefix("4.") else { throw SQLCipherVersionError(found: version) }
    }
}

public struct SQLCipherVersionError: SXError {
    public let found: String?
    public var description: String {
        let what = found.map { "SQLCipher \($0)" } ?? "a SQLite library without SQLCipher (PRAGMA cipher_version is empty)"
        return "sxkit needs SQLCipher 4.x but loaded \(what); install libsqlcipher 4 (scripts/bootstrap takes it from bookworm-backports) and rebuild"
    }
}
