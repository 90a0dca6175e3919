import Foundation
import SXDatabase
import SXTestSupport
import Testing

@Suite("MigrationFolder", .ownThreads)
struct MigrationFolderTests {
    func write(_ tmp: TempFolder, _ files: [String: String]) throws {
        for (name, text) in files { try tmp.write(name, Array(text.utf8)) }
    }

    @Test func loadsUpsWithOptionalDownsOrderedByNameAndIgnoresOtherFiles() throws {
        let tmp = try TempFolder()
        try write(tmp, [
            "m/20240102_b.up.sql": "CREATE TABLE b (x);",
            "m/20240102_b.down.sql": "DROP TABLE b;",
            "m/20240101_a.up.sql": "CREATE TABLE a (x);",
            "m/README.md": "notes",
            "m/.hidden.sql": "ignored",
            "m/sub/20230101_z.up.sql": "ignored too",
        ])
        let list = try MigrationFolder.load(tmp.file("m"))
        #expect(list == [Migration(name: "20240101_a", up: "CREATE TABLE a (x);"),
                         Migration(name: "20240102_b", up: "CREATE TABLE b (x);", down: "DROP TABLE b;")])
    }

    @Test func orderIsByteOrder() throws {
        let tmp = try TempFolder()
        try write(tmp, ["m/B.up.sql": "", "m/a.up.sql": "", "m/_c.up.sql": ""])
        #expect(try MigrationFolder.load(tmp.file("m")).map(\.name) == ["B", "_c", "a"])
    }

    @Test func namesAreBytesNotUnicodeEquivalents() throws {
        // Found by fuzzing: "café" precomposed and with a combining accent are two files; one was dropped.
        let tmp = try TempFolder()
        // Not a dictionary literal: Swift would take the two names for one key.
        for (name, text) in [("m/caf\u{E9}.up.sql", "SELECT 1;"), ("m/cafe\u{301}.up.sql", "SELECT 2;"), ("m/cafe\u{301}.down.sql", "SELECT 3;")] {
            try tmp.write(name, Array(text.utf8))
        }
        #expect(try MigrationFolder.load(tmp.file("m")) == [Migration(name: "cafe\u{301}", up: "SELECT 2;", down: "SELECT 3;"),
                                                          Migration(name: "caf\u{E9}", up: "SELECT 1;")])
        // A name whose first byte is "." is hidden, even when a combining mark makes ".\u{301}" one Character.
        let hidden = try TempFolder()
        try write(hidden, ["m/a.up.sql": "", "m/.\u{301}b.up.sql": ""])
        #expect(try MigrationFolder.load(hidden.file("m")).map(\.name) == ["a"])
    }

    @Test func aDownWithoutItsUpIsAnError() throws {
        let tmp = try TempFolder()
        try write(tmp, ["m/a.up.sql": "", "m/b.down.sql": "DROP TABLE b;"])
        let error = try #require(throws: MigrationFolderError.self) { try MigrationFolder.load(tmp.file("m")) }
        #expect(error == .downWithoutUp(folder: tmp.file("m"), names: ["b"]))
        #expect(error.description.contains("b.down.sql has no matching NAME.up.sql"))
    }

    @Test func anSQLFileThatIsNeitherUpNorDownIsAnError() throws {
        let tmp = try TempFolder()
        try write(tmp, ["m/a.up.sql": "", "m/b.sql": "", "m/.up.sql": ""])
        let error = try #require(throws: MigrationFolderError.self) { try MigrationFolder.load(tmp.file("m")) }
        #expect(error == .unrecognisedFiles(folder: tmp.file("m"), files: ["b.sql"]))
    }

    @Test func emptyMissingAndNonFolderPathsAreErrors() throws {
        let tmp = try TempFolder()
        try write(tmp, ["empty/README": "no migrations here", "file.txt": "x"])
        #expect(throws: MigrationFolderError.noMigrations(folder: tmp.file("empty"))) { try MigrationFolder.load(tmp.file("empty")) }
        #expect(throws: MigrationFolderError.notAFolder(folder: tmp.file("gone"), reason: "it does not exist")) {
            try MigrationFolder.load(tmp.file("gone"))
        }
        #expect(throws: MigrationFolderError.notAFolder(folder: tmp.file("file.txt"), reason: "it is a file")) {
            try MigrationFolder.load(tmp.file("file.txt"))
        }
    }

    @Test func aFileThatIsNotUTF8TextIsAnError() throws {
        let tmp = try TempFolder()
        try tmp.write("m/a.up.sql", [0xFF, 0xFE, 0x00, 0x41])
        let error = try #require(throws: MigrationFolderError.self) { try MigrationFolder.load(tmp.file("m")) }
        #expect(error == .unreadable(path: tmp.file("m/a.up.sql"), reason: "it is not UTF-8 text"))
    }

    @Test func perRoleFoldersFallBackToNothingForAMissingRole() throws {
        let tmp = try TempFolder()
        try write(tmp, ["m/chat/a.up.sql": "SELECT 1;"])
        let lists = try MigrationFolder.loadPerRole(tmp.file("m"))
        #expect(lists[.chat] == [Migration(name: "a", up: "SELECT 1;")])
        #expect(lists[.agent] == nil)

        try write(tmp, ["flat/a.up.sql": ""])
        #expect(throws: MigrationFolderError.filesBesideRoleFolders(folder: tmp.file("flat"))) { try MigrationFolder.loadPerRole(tmp.file("flat")) }
        try write(tmp, ["none/other/a.up.sql": ""])
        #expect(throws: MigrationFolderError.noRoleFolders(folder: tmp.file("none"))) { try MigrationFolder.loadPerRole(tmp.file("none")) }
    }
}
