import Foundation
import SXCore
import SXDatabase

/// Small migration lists for engine tests: m1 (no down), m2 and m3 with down SQL.
enum TestMigrations {
    static let m1 = Migration(name: "m1", up: "CREATE TABLE a (x INTEGER);")
    static let m2 = Migration(name: "m2", up: "CREATE TABLE b (y INTEGER);", down: "DROP TABLE b;")
    static let m3 = Migration(name: "m3", up: "ALTER TABLE a ADD COLUMN z TEXT;", down: "ALTER TABLE a DROP COLUMN z;")
    static let all = [m1, m2, m3]
}

/// A new encrypted SQLCipher 4 database file opened for writing, as the chat core would open it.
func newMigrationDatabase(_ path: String, passphrase: String = "migrate'me") throws -> DatabaseConnection {
    let db = try open(path, passphrase, mode: .readWriteCreate)
    try db.applyChatCoreSettings()
    return db
}

/// The names in the migrations table, in name order.
func recordedNames(_ db: DatabaseConnection) throws -> [String] {
    try db.rows("SELECT name FROM migrations ORDER BY name").map { row in
        if case .text(let name) = row[0] { return name }
        return "?"
    }
}

/// Names of the tables in the schema (the migrations table excluded).
func tableNames(_ db: DatabaseConnection) throws -> [String] {
    try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' AND name <> 'migrations' ORDER BY name").map { row in
        if case .text(let name) = row[0] { return name }
        return "?"
    }
}

/// Column names of `table`.
func columnNames(_ db: DatabaseConnection, _ table: String) throws -> [String] {
    try db.rows("SELECT name FROM pragma_table_info('\(table)')").map { row in
        if case .text(let name) = row[0] { return name }
        return "?"
    }
}

/// JSON with sorted keys and no whitespace, for exact comparisons.
func compactJSON<T: Encodable>(_ value: T) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return String(decoding: try encoder.encode(value), as: UTF8.self)
}

func fileBytes(_ path: String) throws -> [UInt8] {
    [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
}
