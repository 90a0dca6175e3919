import Foundation
import CSQLCipher
import SXCore

/// One open SQLCipher database. Use it from one thread at a time (it is deliberately not Sendable);
/// the handle is closed with `sqlite3_close_v2` when the connection goes away.
public final class DatabaseConnection {
    /// How the file is opened.
    public enum Mode: Sendable {
        /// Read-only; the file must exist. SQLite may still create -wal/-shm files beside it.
        case readOnly
        /// Read-only through the URI `file:…?immutable=1`: no locking, no -wal/-shm, no change on disk.
        /// Only for files nothing else is writing.
        case immutable
        /// Read and write; the file must exist.
        case readWrite
        /// Read and write, creating the file if it is missing.
        case readWriteCreate
    }

    public let path: String
    public let mode: Mode
    let handle: OpaquePointer

    /// Opens `path`. Refuses to run on anything but SQLCipher 4 (`SQLCipherRuntime.requireSQLCipher4`).
    /// No key is applied yet: call `applyKey` before touching the data.
    public init(path: String, mode: Mode) throws {
        try SQLCipherRuntime.requireSQLCipher4()
        self.path = path
        self.mode = mode
        let flags: Int32
        let name: String
        switch mode {
        case .readOnly:
            flags = SQLITE_OPEN_READONLY
            name = path
        case .immutable:
            flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_URI
            name = "file:" + Self.uriPath(path) + "?mode=ro&immutable=1"
        case .readWrite:
            flags = SQLITE_OPEN_READWRITE
            name = path
        case .readWriteCreate:
            flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
            name = path
        }
        var db: OpaquePointer?
        let rc = FileNameBytes.withPath(name) { sqlite3_open_v2($0, &db, flags, nil) }
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(rc))
            let extended = db.map { sqlite3_extended_errcode($0) } ?? rc
            sqlite3_close_v2(db)
            throw DatabaseError(operation: "open", code: rc, extendedCode: extended, message: message, path: path)
        }
        sqlite3_extended_result_codes(db, 1)
        handle = db
        // A read never puts a profile's plaintext on disk: SQLCipher does not encrypt the temp files
        // of sorts and temporary indexes (a sort the `sqlcipher` shell spilled left /var/tmp/etilqs_*
        // files in clear), so read connections keep them in memory. sxkit's reads sort ids and keys
        // at most (a chat's order comes off the apps' indexes), so this stays small.
        if mode == .readOnly || mode == .immutable { sqlite3_exec(db, "PRAGMA temp_store = MEMORY", nil, nil, nil) }
    }

    deinit {
        sqlite3_close_v2(handle)
    }

    /// Percent-encodes the characters that would otherwise end or alter the path part of a SQLite URI.
    static func uriPath(_ path: String) -> String {
        var out = ""
        for byte in FileNameBytes.bytes(path) {
            switch byte {
            case UInt8(ascii: "%"), UInt8(ascii: "?"), UInt8(ascii: "#"), 0..<0x21, 0x7F...:
                out += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            default:
                out.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return out
    }

    // MARK: Key

    /// Applies the passphrase as `PRAGMA key = '<passphrase>'` with every `'` doubled (FORMATS §3).
    /// An empty passphrase means "not encrypted": no key pragma is run at all. The statement text is
    /// built in a private buffer that is wiped before this returns. Does not check the key: see
    /// `keyIsCorrect()`.
    public func applyKey(_ passphrase: SecretBytes) throws {
        guard !passphrase.isEmpty else { return }
        try executeQuoting(passphrase, between: "PRAGMA key = '", and: "';",
                           operation: "apply the key to", redacted: "PRAGMA key = '…'")
    }

    /// Runs `before` + `secret` (every `'` doubled) + `after` as one statement. The text is built in a
    /// private buffer that is wiped before this returns, so the secret never lands in a Swift String;
    /// errors carry `redacted` instead of the SQL.
    func executeQuoting(_ secret: SecretBytes, between before: String, and after: String,
                        operation: String, redacted: String) throws {
        // The text around the secret may hold a path: its bytes go in as the file system knows them.
        let prefix = FileNameBytes.bytes(before)
        let suffix = FileNameBytes.bytes(after)
        let quote = UInt8(ascii: "'")
        let (quotes, hasNUL) = secret.withUnsafeBytes { bytes in
            (bytes.reduce(0) { $0 + ($1 == quote ? 1 : 0) }, bytes.contains(0))
        }
        guard !hasNUL else {
            throw DatabaseError(operation: operation, code: SQLITE_MISUSE,
                                message: "the passphrase contains a NUL byte, which SQL text cannot carry",
                                sql: redacted, path: path)
        }
        let length = prefix.count + secret.count + quotes + suffix.count + 1
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: length, alignment: 1)
        defer {
            Wipe.bytes(buffer)
            buffer.deallocate()
        }
        var i = 0
        func put(_ b: UInt8) {
            buffer[i] = b
            i += 1
        }
        prefix.forEach(put)
        secret.withUnsafeBytes { bytes in
            for b in bytes {
                put(b)
                if b == quote { put(quote) }
            }
        }
        suffix.forEach(put)
        put(0)
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, buffer.baseAddress!.assumingMemoryBound(to: CChar.self), nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            throw error(operation, rc, sql: redacted, execMessage: &errorMessage)
        }
    }

    /// `PRAGMA cipher_compatibility = <version>`: 3 opens databases made by SQLCipher 3 (FORMATS §3).
    /// Call it right after `applyKey` and before reading anything.
    public func setCompatibility(_ version: Int) throws {
        guard (1...4).contains(version) else {
            throw DatabaseError(operation: "set the cipher compatibility of", code: SQLITE_MISUSE,
                                message: "SQLCipher compatibility must be 1 to 4, not \(version)", path: path)
        }
        try execute("PRAGMA cipher_compatibility = \(version)")
    }

    /// Whether the key (or its absence) reads this database: `SELECT count(*) FROM sqlite_master` succeeds.
    public func keyIsCorrect() -> Bool {
        (try? verifyKey()) != nil
    }

    /// Like `keyIsCorrect()`, but throws the error that says why (SQLITE_NOTADB for a wrong key,
    /// with the on-disk kind of file in the error).
    public func verifyKey() throws {
        _ = try scalarInt("SELECT count(*) FROM sqlite_master")
    }

    // MARK: Statements

    /// Runs one or more statements that return no rows worth reading.
    public func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if rc != SQLITE_OK {
            throw error("run", rc, sql: sql, execMessage: &errorMessage)
        }
    }

    /// Compiles one statement.
    public func prepare(_ sql: String) throws -> Statement {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            if rc == SQLITE_OK {
                throw DatabaseError(operation: "prepare", code: SQLITE_MISUSE, message: "the text holds no SQL statement",
                                    sql: sql, path: path)
            }
            throw error("prepare", rc, sql: sql)
        }
        return Statement(connection: self, handle: statement, sql: sql)
    }

    /// The first column of the first row as an integer; nil when there is no row or it is NULL.
    public func scalarInt(_ sql: String) throws -> Int64? {
        let statement = try prepare(sql)
        guard try statement.step(), !statement.isNull(0) else { return nil }
        return statement.int64(0)
    }

    /// The first column of the first row as text; nil when there is no row or it is NULL.
    public func scalarText(_ sql: String) throws -> String? {
        let statement = try prepare(sql)
        guard try statement.step() else { return nil }
        return statement.text(0)
    }

    /// Every row of a query, each as its column values.
    public func rows(_ sql: String) throws -> [[ColumnValue]] {
        let statement = try prepare(sql)
        var result: [[ColumnValue]] = []
        while try statement.step() {
            result.append((0..<statement.columnCount).map { statement.value($0) })
        }
        return result
    }

    /// How long a statement waits on a locked database before failing with SQLITE_BUSY.
    public func busyTimeout(ms: Int) throws {
        let rc = sqlite3_busy_timeout(handle, Int32(clamping: ms))
        if rc != SQLITE_OK { throw error("set the busy timeout of", rc) }
    }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// The rowid of the last successful INSERT.
    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    // MARK: Errors

    /// The error for result code `rc` from the call just made on this connection.
    func error(_ operation: String, _ rc: Int32, sql: String? = nil,
               execMessage: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil) -> DatabaseError {
        var message = String(cString: sqlite3_errmsg(handle))
        if let execMessage, let text = execMessage.pointee {
            message = String(cString: text)
            sqlite3_free(text)
            execMessage.pointee = nil
        }
        let extended = sqlite3_extended_errcode(handle)
        let primary = rc & 0xFF
        // An I/O failure says only "disk I/O error" (and `sqlcipher_export` passes it on as SQLITE_ERROR):
        // the errno behind it tells a full disk or a file-size limit (EFBIG) from a failing one.
        let systemErrno = sqlite3_system_errno(handle)
        if systemErrno != 0, primary == SQLITE_IOERR || primary == SQLITE_FULL || message.contains("disk I/O error") || message.contains("disk is full") {
            message += ": " + String(cString: strerror(systemErrno))
        }
        let fileKind = primary == SQLITE_NOTADB ? try? DatabaseFileKind.classify(path: path) : nil
        return DatabaseError(operation: operation, code: rc, extendedCode: extended & 0xFF == primary ? extended : rc,
                             message: message, sql: sql, path: path, fileKind: fileKind)
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
