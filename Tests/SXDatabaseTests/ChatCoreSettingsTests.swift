import CSQLCipher
import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

/// The connection settings of simplexmq's `connectDB` (Agent/Store/SQLite.hs:114-121): what they set,
/// that they leave the rollback journal alone, and that a wrong key still reads as a wrong key.
@Suite("ChatCoreSettings", .ownThreads)
struct ChatCoreSettingsTests {
    @Test func aNewDatabaseGetsTheCoresSettingsAndARollbackJournal() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        let db = try open(path, "core's key", mode: .readWriteCreate)
        try db.applyChatCoreSettings()
        try db.execute("CREATE TABLE t(x INTEGER) STRICT; INSERT INTO t VALUES (1);")
        #expect(try db.scalarInt("PRAGMA busy_timeout") == 100)
        #expect(try db.scalarInt("PRAGMA foreign_keys") == 1)
        #expect(try db.scalarInt("PRAGMA secure_delete") == 1)
        #expect(try db.scalarInt("PRAGMA auto_vacuum") == 1, "FULL")
        #expect(try db.scalarText("PRAGMA journal_mode") == "delete")
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        let reread = try open(path, "core's key", mode: .readOnly)
        #expect(try reread.scalarInt("PRAGMA auto_vacuum") == 1, "auto_vacuum is stored in the file")
    }

    @Test func theSettingsWriteSoAReadOnlyConnectionCannotApplyThem() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        let db = try open(path, "k", mode: .readWriteCreate)
        try db.applyChatCoreSettings()
        try db.execute("CREATE TABLE t(x INTEGER);")
        let before = try fileBytes(path)
        let readOnly = try open(path, "k", mode: .readOnly)
        let error = try #require(throws: DatabaseError.self) { try readOnly.applyChatCoreSettings() }
        #expect(error.code & 0xFF == SQLITE_READONLY)
        #expect(try fileBytes(path) == before)
    }

    @Test func theOpenerAppliesThemAfterTheKeyAndStillNamesAWrongKey() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        try makeDatabase(path, passphrase: "right")
        let (db, cipher) = try DatabaseOpener.open(path, passphrase: secret("right"), mode: .readWrite, coreSettings: true)
        #expect(cipher == .sqlcipher4)
        #expect(try db.scalarInt("PRAGMA foreign_keys") == 1)
        #expect(try db.scalarInt("PRAGMA secure_delete") == 1)
        let error = try #require(throws: DatabaseError.self) {
            try DatabaseOpener.open(path, passphrase: secret("wrong"), mode: .readWrite, coreSettings: true)
        }
        #expect(error.isNotADatabase)
        #expect(error.description.contains("passphrase is wrong"))
    }
}

/// Where the core's `auto_vacuum = FULL` lands in sxkit's writers: before the first write, not at open.
@Suite("ChatCoreAutoVacuum", .ownThreads)
struct ChatCoreAutoVacuumTests {
    @Test func aRefusedMigrationLeavesTheFileAsItWasAndAnAppliedOneMakesItFull() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        do {
            // A file made without the core's settings: auto_vacuum NONE.
            let db = try open(path, "k", mode: .readWriteCreate)
            #expect(Migrator(migrations: [TestMigrations.m1]).migrate(db: db, confirmation: .error).result == .ok)
        }
        let plain = try open(path, "k", mode: .readWrite)
        try plain.execute("PRAGMA auto_vacuum = NONE; VACUUM;")
        #expect(try plain.scalarInt("PRAGMA auto_vacuum") == 0)
        let before = try fileBytes(path)
        let refused = Migrator(migrations: TestMigrations.all).migrate(file: path, passphrase: secret("k"), confirmation: .error)
        #expect(refused.result == .errorMigration(dbFile: path, migrationError: .upgrade(upMigrations: [
            UpMigration(upName: "m2", withDown: true), UpMigration(upName: "m3", withDown: true)])))
        #expect(try fileBytes(path) == before, "opening with the core's settings and refusing writes nothing")
        let applied = Migrator(migrations: TestMigrations.all).migrate(file: path, passphrase: secret("k"), confirmation: .yesUp, backup: .none)
        #expect(applied.result == .ok, "\(applied)")
        #expect(try open(path, "k", mode: .readOnly).scalarInt("PRAGMA auto_vacuum") == 1, "the VACUUM after the ups made it FULL")
    }
}
