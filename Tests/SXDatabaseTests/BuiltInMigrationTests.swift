import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

/// The built-in chat and agent lists on an encrypted SQLCipher 4 database: every up applies from
/// scratch, every down SQL runs, and going up again restores the same schema.
@Suite("BuiltInMigrations")
struct BuiltInMigrationTests {
    static let passphrase = "built-in"

    /// Tables with their columns, and indexes with their tables: what a schema comparison needs,
    /// without the formatting of the stored CREATE text (ALTER TABLE rewrites it).
    func schema(_ db: DatabaseConnection) throws -> [String] {
        var out: [String] = []
        for row in try db.rows("SELECT type, name, tbl_name FROM sqlite_master WHERE name NOT LIKE 'sqlite_%' ORDER BY name") {
            guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let table) = row[2] else { continue }
            if type == "table" {
                out.append("table \(name)(\(try columnNames(db, name).joined(separator: ",")))")
            } else {
                out.append("\(type) \(name) on \(table)")
            }
        }
        return out
    }

    @Test(arguments: DatabaseRole.allCases)
    func upFromScratchDownAsFarAsPossibleAndUpAgain(_ role: DatabaseRole) throws {
        let tmp = try TempFolder()
        let path = tmp.file("simplex_v1_\(role.rawValue).db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let list = role.builtInMigrations
        let migrator = Migrator(role: role)

        let up = migrator.migrate(file: path, passphrase: secret(Self.passphrase), confirmation: .error)
        #expect(up.result == .ok, "\(up)")
        #expect(up.applied == list.map(\.name))
        #expect(try DatabaseFileKind.classify(path: path) == .encryptedOrNotDatabase(looksRandom: true))
        let full = try schema(try open(path, Self.passphrase, mode: .readOnly))
        #expect(full.contains { $0.hasPrefix("table migrations(name,ts,down)") })

        // Down to the last migration that has no down SQL: every down the list defines runs.
        let firstWithDown = try #require(list.firstIndex { $0.down != nil })
        #expect(list[firstWithDown...].allSatisfy { $0.down != nil }, "only a suffix of the list can be reverted")
        let down = Migrator(migrations: Array(list[..<firstWithDown])).migrate(file: path, passphrase: secret(Self.passphrase), confirmation: .yesUpDown)
        #expect(down.result == .ok, "\(down)")
        #expect(down.reverted == list[firstWithDown...].reversed().map(\.name))
        let reduced = try open(path, Self.passphrase, mode: .readOnly)
        #expect(try recordedNames(reduced) == list[..<firstWithDown].map(\.name))
        #expect(try reduced.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try reduced.rows("PRAGMA foreign_key_check").isEmpty)

        // Below that, the list cannot go: the migrations without down SQL are named.
        let below = Migrator(migrations: [list[0]]).migrate(file: path, passphrase: secret(Self.passphrase), confirmation: .yesUpDown)
        #expect(below.result == .errorMigration(dbFile: path, migrationError: .migrationError(
            mtrError: .noDown(dbMigrations: list[1..<firstWithDown].map(\.name)))))

        let again = migrator.migrate(file: path, passphrase: secret(Self.passphrase), confirmation: .yesUp)
        #expect(again.result == .ok, "\(again)")
        #expect(again.applied == list[firstWithDown...].map(\.name))
        #expect(try schema(try open(path, Self.passphrase, mode: .readOnly)) == full)
    }

    @Test(arguments: DatabaseRole.allCases)
    func theSQLCipherShellReadsTheMigratedDatabase(_ role: DatabaseRole) throws {
        try #require(sqlcipherShellInstalled, "needs /usr/bin/sqlcipher")
        let tmp = try TempFolder()
        let path = tmp.file("simplex_v1_\(role.rawValue).db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        #expect(Migrator(role: role).migrate(file: path, passphrase: secret(Self.passphrase), confirmation: .error).result == .ok)
        let shell = try sqlcipherShell(path, "PRAGMA key = '\(Self.passphrase)';\nSELECT count(*), count(down) FROM migrations;\n")
        let list = role.builtInMigrations
        #expect(shell.output.contains("\(list.count)|\(list.filter { $0.down != nil }.count)"), "\(shell)")
    }
}
