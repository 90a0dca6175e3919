import Foundation
import SXCore

/// One row of the chat DB's `files` table, with the columns sxkit uses (FORMATS §2).
public struct ChatFileRecord: Sendable, Equatable {
    public var fileId: Int64
    public var fileName: String?
    /// As stored: relative to the files folder, but a hostile or damaged DB may hold anything.
    public var storedPath: String?
    public var fileSize: Int64?
    /// 32 raw bytes when the file on disk is a CryptoFile.
    public var cryptoKey: [UInt8]?
    /// 24 raw bytes when the file on disk is a CryptoFile.
    public var cryptoNonce: [UInt8]?

    public init(fileId: Int64, fileName: String?, storedPath: String?, fileSize: Int64?, cryptoKey: [UInt8]?, cryptoNonce: [UInt8]?) {
        self.fileId = fileId
        self.fileName = fileName
        self.storedPath = storedPath
        self.fileSize = fileSize
        self.cryptoKey = cryptoKey
        self.cryptoNonce = cryptoNonce
    }

    /// A row with a key and a nonce means the file on disk is a CryptoFile with those arguments.
    public var isEncrypted: Bool { cryptoKey != nil && cryptoNonce != nil }

    /// The path relative to the files folder, normalised; nil when the row has no path, or when the
    /// stored path is absolute or climbs out with `..` (such a path is never followed).
    public var relativePath: String? { storedPath.flatMap(ChatFilesTable.safeRelativePath) }

    /// True when the row names a path that would leave the files folder.
    public var hasUnsafePath: Bool {
        guard let stored = storedPath, !stored.isEmpty else { return false }
        return ChatFilesTable.safeRelativePath(stored) == nil
    }
}

/// Reads the chat DB's `files` table row by row (never the whole table into memory). Older schemas
/// without the crypto columns read as plaintext rows.
public enum ChatFilesTable {
    /// Calls `body` for each row, in `file_id` order.
    public static func forEach(in db: DatabaseConnection, _ body: (ChatFileRecord) throws -> Void) throws {
        let statement = try db.prepare(try selectSQL(db) + " ORDER BY file_id")
        while try statement.step() { try body(record(statement)) }
    }

    /// At most `limit` rows with `file_id` above `fileId`, in `file_id` order: one page of a walk
    /// over the table that holds no statement open between pages (the caller writes in between).
    public static func page(in db: DatabaseConnection, after fileId: Int64, limit: Int) throws -> [ChatFileRecord] {
        let statement = try db.prepare(try selectSQL(db) + " WHERE file_id > ?1 ORDER BY file_id LIMIT ?2")
        try statement.bind(fileId, at: 1)
        try statement.bind(limit, at: 2)
        var rows: [ChatFileRecord] = []
        while try statement.step() { rows.append(record(statement)) }
        return rows
    }

    /// The rows whose `file_path` is exactly one of `paths`, in `file_id` order.
    public static func rows(in db: DatabaseConnection, withPaths paths: [String]) throws -> [ChatFileRecord] {
        guard !paths.isEmpty else { return [] }
        let marks = (1...paths.count).map { "?\($0)" }.joined(separator: ",")
        let statement = try db.prepare(try selectSQL(db) + " WHERE file_path IN (\(marks)) ORDER BY file_id")
        for (i, path) in paths.enumerated() { try statement.bind(path, at: Int32(i + 1)) }
        var rows: [ChatFileRecord] = []
        while try statement.step() { rows.append(record(statement)) }
        return rows
    }

    /// Calls `body` with each `file_path` as stored (nil and empty included), row by row.
    public static func forEachStoredPath(in db: DatabaseConnection, _ body: (String?) throws -> Void) throws {
        let statement = try db.prepare("SELECT file_path FROM files")
        while try statement.step() { try body(statement.text(0)) }
    }

    /// Every `file_path` that more than one row holds, exactly as stored.
    public static func sharedStoredPaths(in db: DatabaseConnection) throws -> [String] {
        try db.rows("SELECT file_path FROM files WHERE file_path IS NOT NULL GROUP BY file_path HAVING count(*) > 1")
            .compactMap { $0.first?.textValue }
    }

    /// Rows with a path and with (`encrypted`) or without a key, and their `file_size` sum: the
    /// expected work, for progress (files missing from the folder are counted too).
    public static func pendingTotals(in db: DatabaseConnection, encrypted: Bool) throws -> (rows: Int, bytes: Int64) {
        let columns = Set(try db.rows("PRAGMA table_info(files)").compactMap { $0.count > 1 ? $0[1].textValue : nil })
        let hasCrypto = columns.contains("file_crypto_key") && columns.contains("file_crypto_nonce")
        let keyTest = hasCrypto ? (encrypted ? "file_crypto_key IS NOT NULL" : "file_crypto_key IS NULL") : (encrypted ? "0" : "1")
        let statement = try db.prepare("SELECT count(*), total(coalesce(file_size, 0)) FROM files WHERE file_path IS NOT NULL AND file_path != '' AND \(keyTest)")
        guard try statement.step() else { return (0, 0) }
        return (Int(statement.int64(0)), Int64(statement.double(1)))
    }

    private static func selectSQL(_ db: DatabaseConnection) throws -> String {
        let columns = Set(try db.rows("PRAGMA table_info(files)").compactMap { $0.count > 1 ? $0[1].textValue : nil })
        let hasCrypto = columns.contains("file_crypto_key") && columns.contains("file_crypto_nonce")
        return "SELECT file_id, file_name, file_path, file_size, "
            + (hasCrypto ? "file_crypto_key, file_crypto_nonce" : "NULL, NULL")
            + " FROM files"
    }

    private static func record(_ statement: Statement) -> ChatFileRecord {
        ChatFileRecord(
            fileId: statement.int64(0),
            fileName: statement.text(1),
            storedPath: statement.text(2),
            fileSize: statement.isNull(3) ? nil : statement.int64(3),
            cryptoKey: statement.isNull(4) ? nil : statement.blob(4),
            cryptoNonce: statement.isNull(5) ? nil : statement.blob(5))
    }

    /// The normalised relative path, or nil when it is empty, absolute or leaves the folder.
    public static func safeRelativePath(_ path: String) -> String? {
        // Byte checks: Foundation's `contains` goes through CFString and cost 13 % of `storage`.
        if path.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == 0 }) || path.hasPrefix("/") { return nil }
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { return nil }
            parts.append(part)
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }
}
