import SXCore

/// What `db inspect` found for one database. Every field that needs the passphrase is nil when the
/// database could not be opened. Field names are the `--json` document's.
public struct DatabaseInspection: Sendable, Codable, Equatable {
    public var database: DatabaseTarget
    /// Bytes of the database file; nil when it is missing.
    public var size: Int64?
    public var classification: DatabaseClassification
    public var wal: WALSummary?
    public var shm: CompanionFile?
    /// A rollback journal left by a crash (SQLite would roll it back on the next write).
    public var journal: CompanionFile?
    /// Present when the passphrase (or its absence) opened the database.
    public var details: DatabaseDetails?
    /// Only for the chat database.
    public var chat: ChatSummary?
    /// Only with `--deep`.
    public var integrity: IntegrityReport?
    /// Plain-words observations, most important first.
    public var findings: [String]

    /// Sizes are `bytes` in sxkit's JSON vocabulary.
    enum CodingKeys: String, CodingKey {
        case database, classification, wal, shm, journal, details, chat, integrity, findings
        case size = "bytes"
    }
}

/// What kind of file a database is (`db inspect`'s classification).
public enum DatabaseClassification: String, Sendable, Codable {
    case missing
    case empty
    case plaintextSQLite
    case sqlcipher4
    case sqlcipher3
    /// Looks encrypted; no passphrase was available to try.
    case encryptedUnknownPassphrase
    /// Looks encrypted; the passphrase opened it with neither SQLCipher 4 nor 3 settings.
    case encryptedWrongPassphrase
    case notADatabase

    public var phrase: String {
        switch self {
        case .missing: "missing"
        case .empty: "empty file (0 bytes)"
        case .plaintextSQLite: "plaintext SQLite (not encrypted)"
        case .sqlcipher4: "SQLCipher 4"
        case .sqlcipher3: "SQLCipher 3 (opened with cipher_compatibility = 3)"
        case .encryptedUnknownPassphrase: "encrypted (no passphrase given)"
        case .encryptedWrongPassphrase: "encrypted with another passphrase (wrong passphrase)"
        case .notADatabase: "not a database"
        }
    }
}

public struct CompanionFile: Sendable, Codable, Equatable {
    public var path: String
    public var size: Int64

    enum CodingKeys: String, CodingKey {
        case path
        case size = "bytes"
    }
}

public struct DatabaseDetails: Sendable, Codable, Equatable {
    public var pageSize: Int
    public var pageCount: Int
    public var freelistPages: Int
    public var textEncoding: String
    public var userVersion: Int
    public var journalMode: String
    public var autoVacuum: String
    /// Nil for a plaintext database.
    public var cipher: CipherSettings?
    public var tables: [TableRows]
    public var indexCount: Int
    public var migrations: MigrationsSummary?
}

public struct CipherSettings: Sendable, Codable, Equatable {
    public var format: CipherFormat
    public var cipherPageSize: Int?
    public var kdfIterations: Int?
    public var kdfAlgorithm: String?
    public var hmacAlgorithm: String?
    public var useHMAC: Bool?
    public var plaintextHeaderSize: Int?
}

public struct TableRows: Sendable, Codable, Equatable {
    public var name: String
    /// Nil when the table could not be counted (a damaged page); `error` says why.
    public var rows: Int?
    public var error: String?
}

public struct MigrationsSummary: Sendable, Codable, Equatable {
    public var count: Int
    public var first: String?
    public var last: String?
    public var lastTimestamp: String?
}

/// Counts from the chat database and the check of its `files` rows against the files folder.
public struct ChatSummary: Sendable, Codable, Equatable {
    public var users: Int?
    public var contacts: Int?
    public var groups: Int?
    public var chatItems: Int?
    public var files: Int?
    public var filesCheck: FilesCheck?
}

public struct FilesCheck: Sendable, Codable, Equatable {
    public var filesFolder: String
    public var folderExists: Bool
    /// `files` rows whose `file_path` names a file that is there.
    public var referencedPresent: Int
    /// `files` rows whose `file_path` names a file that is not there.
    public var referencedMissing: Int
    /// Rows with a key and nonce (the file on disk is a CryptoFile).
    public var encrypted: Int
    /// Rows with a path but no key (the file on disk is plaintext).
    public var plaintext: Int
    /// Rows whose `file_path` is absolute or climbs out with `..`: never followed.
    public var unsafePaths: Int
    /// Files in the folder that no row references (orphans), and their bytes.
    public var unreferenced: Int
    public var unreferencedBytes: Int64
    /// A few examples of each problem, for the report.
    public var missingExamples: [String]
    public var unreferencedExamples: [String]
    public var unsafePathExamples: [String]
}

public struct IntegrityReport: Sendable, Codable, Equatable {
    /// `PRAGMA integrity_check` rows ("ok" alone when sound).
    public var integrityCheck: [String]
    /// `PRAGMA cipher_integrity_check` rows (empty when every page's HMAC verifies); nil for plaintext.
    public var cipherIntegrityCheck: [String]?
    public var ok: Bool
}
