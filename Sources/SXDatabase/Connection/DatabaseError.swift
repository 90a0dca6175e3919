import CSQLCipher
import Foundation
import SXCore

/// A failed SQLite/SQLCipher call, carrying everything needed to act on it: the result code (and
/// extended code), SQLite's own message, the SQL when there was any, and the database path.
///
/// SQL that would reveal a secret (the key pragma) is never stored: callers pass a redacted text.
public struct DatabaseError: SXError, Equatable {
    /// What was being done, as a verb phrase that reads before the SQL ("prepare", "run", "bind
    /// parameter 2 of") or, without SQL, before the path ("open", "apply the key to").
    public let operation: String
    /// The primary result code (`SQLITE_NOTADB`, …).
    public let code: Int32
    /// The extended result code (`SQLITE_IOERR_READ`, …); equals `code` when SQLite has none.
    public let extendedCode: Int32
    /// `sqlite3_errmsg` (or the message `sqlite3_exec` returned).
    public let message: String
    /// The statement involved, if any.
    public let sql: String?
    /// The database file.
    public let path: String
    /// For SQLITE_NOTADB: what the file looks like on disk, to tell a wrong key from a non-database.
    public let fileKind: DatabaseFileKind?

    public init(
        operation: String, code: Int32, extendedCode: Int32? = nil, message: String, sql: String? = nil,
        path: String, fileKind: DatabaseFileKind? = nil
    ) {
        self.operation = operation
        self.code = code & 0xFF
        self.extendedCode = extendedCode ?? code
        self.message = message
        self.sql = sql
        self.path = path
        self.fileKind = fileKind
    }

    /// SQLITE_NOTADB: a wrong key, a missing key, or a file that is not a database at all.
    public var isNotADatabase: Bool { code == SQLITE_NOTADB }
    /// Another connection holds a lock this one needed (after the busy timeout).
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// The symbolic name of the result code ("SQLITE_BUSY"), with the extended code when it adds anything.
    public var codeName: String {
        let name = Self.name(of: code)
        return extendedCode != code ? "\(name), extended code \(extendedCode)" : name
    }

    /// The disk is full, a quota is reached or the file-size limit was hit.
    public var isNoSpace: Bool {
        code == SQLITE_FULL || [ENOSPC, EDQUOT, EFBIG].contains { message.hasSuffix(": " + String(cString: strerror($0))) }
    }

    public var description: String {
        if isNotADatabase { return notADatabaseDescription }
        let subject = sql.map { "`\(Self.shortened($0))` in '\(path)'" } ?? "'\(path)'"
        let remedy = isNoSpace ? " — free some space (or raise the file-size limit) and run the command again" : ""
        return "cannot \(operation) \(subject): \(message) (\(codeName))\(remedy)"
    }

    private var notADatabaseDescription: String {
        let lead = "cannot read '\(path)'"
        switch fileKind {
        case .plaintextSQLite?:
            return PassphraseWording.notEncrypted(path) + " (SQLITE_NOTADB)"
        case .encryptedOrNotDatabase(looksRandom: true)?:
            return PassphraseWording.wrong(path) + " (SQLITE_NOTADB)"
        case .encryptedOrNotDatabase(looksRandom: false)?:
            return "\(lead): the file is not a database (it is neither SQLite nor SQLCipher-encrypted) (SQLITE_NOTADB)"
        case .notADatabase(let reason)?:
            return "\(lead): the file is not a database: \(reason) (SQLITE_NOTADB)"
        case .empty?, .missing?, nil:
            return "\(lead): the passphrase is wrong or the file is not a database (SQLITE_NOTADB)"
        }
    }

    static func shortened(_ sql: String, limit: Int = 200) -> String {
        let oneLine = sql.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters() }.joined(separator: " ")
        return oneLine.count > limit ? String(oneLine.prefix(limit)) + "…" : oneLine
    }

    /// Symbolic names of the primary result codes.
    public static func name(of code: Int32) -> String {
        switch code & 0xFF {
        case SQLITE_OK: "SQLITE_OK"
        case SQLITE_ERROR: "SQLITE_ERROR"
        case SQLITE_INTERNAL: "SQLITE_INTERNAL"
        case SQLITE_PERM: "SQLITE_PERM"
        case SQLITE_ABORT: "SQLITE_ABORT"
        case SQLITE_BUSY: "SQLITE_BUSY"
        case SQLITE_LOCKED: "SQLITE_LOCKED"
        case SQLITE_NOMEM: "SQLITE_NOMEM"
        case SQLITE_READONLY: "SQLITE_READONLY"
        case SQLITE_INTERRUPT: "SQLITE_INTERRUPT"
        case SQLITE_IOERR: "SQLITE_IOERR"
        case SQLITE_CORRUPT: "SQLITE_CORRUPT"
        case SQLITE_NOTFOUND: "SQLITE_NOTFOUND"
        case SQLITE_FULL: "SQLITE_FULL"
        case SQLITE_CANTOPEN: "SQLITE_CANTOPEN"
        case SQLITE_PROTOCOL: "SQLITE_PROTOCOL"
        case SQLITE_EMPTY: "SQLITE_EMPTY"
        case SQLITE_SCHEMA: "SQLITE_SCHEMA"
        case SQLITE_TOOBIG: "SQLITE_TOOBIG"
        case SQLITE_CONSTRAINT: "SQLITE_CONSTRAINT"
        case SQLITE_MISMATCH: "SQLITE_MISMATCH"
        case SQLITE_MISUSE: "SQLITE_MISUSE"
        case SQLITE_NOLFS: "SQLITE_NOLFS"
        case SQLITE_AUTH: "SQLITE_AUTH"
        case SQLITE_FORMAT: "SQLITE_FORMAT"
        case SQLITE_RANGE: "SQLITE_RANGE"
        case SQLITE_NOTADB: "SQLITE_NOTADB"
        case SQLITE_NOTICE: "SQLITE_NOTICE"
        case SQLITE_WARNING: "SQLITE_WARNING"
        case SQLITE_ROW: "SQLITE_ROW"
        case SQLITE_DONE: "SQLITE_DONE"
        default: "SQLite result code \(code)"
        }
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> Substring {
        var s = self
        while let first = s.first, first.isWhitespace { s.removeFirst() }
        while let last = s.last, last.isWhitespace { s.removeLast() }
        return s
    }
}
