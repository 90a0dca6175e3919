import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

/// The migration engine on real encrypted SQLCipher 4 files.
@Suite("Migrator", .ownThreads)
struct MigratorTests {
    let m = TestMigrations.self
    static let passphrase = "migrate'me"

    /// A database file with `list` applied (as a new database, so without confirmation).
    func database(_ tmp: TempFolder, applied list: [Migration], name: String = "x_chat.db") throws -> String {
        let path = tmp.file(name)
        let db = try newMigrationDatabase(path)
        let outcome = Migrator(migrations: list).migrate(db: db, confirmation: .error)
        try #require(outcome.result == .ok, "\(outcome)")
        return path
    }

    func reopen(_ path: String) throws -> DatabaseConnection {
        let db = try open(path, Self.passphrase)
        try db.applyChatCoreConnectionSettings()
        return db
    }

    @Test func brandNewDatabaseIsMigratedUpWithoutAskingAndWithoutBackup() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        let db = try newMigrationDatabase(path)
        var asked = false
        let outcome = Migrator(migrations: m.all).migrate(db: db, confirmation: .console { _ in asked = true; return false })
        #expect(outcome.result == .ok)
        #expect(!asked, "a new database needs no confirmation")
        #expect(outcome.applied == ["m1", "m2", "m3"])
        #expect(outcome.newDatabase && outcome.tableUpgraded)
        #expect(outcome.backupPath == nil)
        #expect(!FileManager.default.fileExists(atPath: path + MigrationBackupPolicy.suffix))
        #expect(try tableNames(db) == ["a", "b"])
        #expect(try columnNames(db, "a") == ["x", "z"])
        #expect(try db.rows("SELECT name, down FROM migrations ORDER BY name")
                == [[.text("m1"), .null], [.text("m2"), .text("DROP TABLE b;")], [.text("m3"), .text("ALTER TABLE a DROP COLUMN z;")]])
        #expect(try columnNames(db, "migrations") == ["name", "ts", "down"])
        #expect(try DatabaseFileKind.classify(path: path) == .encryptedOrNotDatabase(looksRandom: true))
    }

    @Test func errorConfirmationRefusesUpsOnAnExistingDatabaseAndChangesNothing() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let before = try fileBytes(path)
        let outcome = Migrator(migrations: m.all).migrate(db: try reopen(path), confirmation: .error)
        #expect(outcome.result == .errorMigration(dbFile: path, migrationError: .upgrade(upMigrations: [
            UpMigration(upName: "m2", withDown: true), UpMigration(upName: "m3", withDown: true)])))
        #expect(outcome.applied.isEmpty)
        #expect(try fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + MigrationBackupPolicy.suffix))
    }

    @Test func yesUpAppliesPendingUpsAfterABackupEqualToTheOldDatabase() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let before = try fileBytes(path)
        let outcome = Migrator(migrations: m.all).migrate(db: try reopen(path), confirmation: .yesUp)
        #expect(outcome.result == .ok)
        #expect(outcome.applied == ["m2", "m3"])
        #expect(!outcome.newDatabase)
        let backup = path + MigrationBackupPolicy.suffix
        #expect(outcome.backupPath == backup)
        #expect(try fileBytes(backup) == before, "the backup is the database as it was before the change")
        #expect(try fileBytes(path) != before)
        let st = try #require(POSIXFile.linkStatus(backup))
        #expect(st.st_mode & 0o777 == 0o600)
        // The backup opens with the same passphrase and holds the old schema.
        let old = try open(backup, Self.passphrase, mode: .readOnly)
        #expect(try recordedNames(old) == ["m1"])
        #expect(try recordedNames(try reopen(path)) == ["m1", "m2", "m3"])
    }

    @Test func backupGoesWhereTheCallerSays() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let before = try fileBytes(path)
        let target = tmp.file("elsewhere/copy.db")
        try FileManager.default.createDirectory(atPath: tmp.file("elsewhere"), withIntermediateDirectories: true)
        let outcome = Migrator(migrations: m.all).migrate(db: try reopen(path), confirmation: .yesUp, backup: .at(target))
        #expect(outcome.result == .ok)
        #expect(outcome.backupPath == target)
        #expect(try fileBytes(target) == before)
        #expect(!FileManager.default.fileExists(atPath: path + ".bak"), "<db>.bak belongs to the passphrase change")
    }

    @Test func aBackupThatCannotBeWrittenStopsBeforeAnyChange() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let before = try fileBytes(path)
        let outcome = Migrator(migrations: m.all).migrate(db: try reopen(path), confirmation: .yesUp, backup: .at(tmp.file("no/such/folder/b.db")))
        guard case .errorSQL(path, let sentence) = outcome.result else {
            Issue.record("expected errorSQL, as the core reports a failed backup copy; got \(outcome.result)")
            return
        }
        #expect(sentence.hasPrefix("no migration was run, because the backup copy to '\(tmp.file("no/such/folder/b.db"))' failed: "))
        #expect(outcome.applied.isEmpty)
        #expect(try fileBytes(path) == before)
    }

    @Test func backupOfAWALDatabaseHoldsTheUncheckpointedRows() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        // A writer that stays open keeps its changes in the WAL, not yet in the main file.
        let writer = try reopen(path)
        _ = try writer.rows("PRAGMA journal_mode = WAL")
        try writer.execute("PRAGMA wal_autocheckpoint = 0; INSERT INTO a (x) VALUES (1), (2), (3);")
        #expect((POSIXFile.linkStatus(path + "-wal")?.st_size ?? 0) > 0)
        let outcome = Migrator(migrations: m.all).migrate(file: path, passphrase: secret(Self.passphrase), confirmation: .yesUp)
        #expect(outcome.result == .ok, "\(outcome)")
        let backup = try #require(outcome.backupPath)
        let copy = try open(backup, Self.passphrase, mode: .readOnly)
        #expect(try copy.scalarInt("SELECT count(*) FROM a") == 3)
        #expect(try recordedNames(copy) == ["m1"])
    }

    @Test func upRunsVacuumAfterwards() throws {
        let tmp = try TempFolder()
        let path = tmp.file("v.db")
        let db = try open(path, Self.passphrase, mode: .readWriteCreate)
        #expect(Migrator(migrations: [m.m1]).migrate(db: db, confirmation: .error).result == .ok)
        // No auto_vacuum here (the migration made the file FULL), so that freed pages stay on the freelist until a VACUUM.
        try db.execute("PRAGMA auto_vacuum = NONE; VACUUM;")
        try db.execute("CREATE TABLE junk (b BLOB); INSERT INTO junk SELECT zeroblob(4000) FROM (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 200) SELECT i FROM n); DROP TABLE junk;")
        #expect(try db.scalarInt("PRAGMA freelist_count") ?? 0 > 100)
        let outcome = Migrator(migrations: [m.m1, m.m2]).migrate(db: db, confirmation: .yesUp)
        #expect(outcome.result == .ok)
        #expect(try db.scalarInt("PRAGMA freelist_count") == 0, "VACUUM after the ups empties the freelist")
    }

    @Test func yesUpDownRevertsExtraMigrationsLastFirst() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: m.all)
        let before = try fileBytes(path)
        let db = try reopen(path)
        let outcome = Migrator(migrations: [m.m1]).migrate(db: db, confirmation: .yesUpDown)
        #expect(outcome.result == .ok)
        #expect(outcome.reverted == ["m3", "m2"])
        #expect(try recordedNames(db) == ["m1"])
        #expect(try tableNames(db) == ["a"])
        #expect(try columnNames(db, "a") == ["x"])
        #expect(try fileBytes(try #require(outcome.backupPath)) == before)
    }

    @Test func yesUpAndErrorRefuseANeededDown() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: m.all)
        let before = try fileBytes(path)
        for confirmation in [MigrationConfirmation.yesUp, .error] {
            let outcome = Migrator(migrations: [m.m1]).migrate(db: try reopen(path), confirmation: confirmation)
            #expect(outcome.result == .errorMigration(dbFile: path, migrationError: .downgrade(downMigrations: ["m2", "m3"])))
            #expect(outcome.reverted.isEmpty)
        }
        #expect(try fileBytes(path) == before)
    }

    @Test func consoleAsksWithTheWorkAndHonoursTheAnswer() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        var seen: [MigrationError] = []
        let no = Migrator(migrations: m.all).migrate(db: try reopen(path), confirmation: .console { seen.append($0); return false })
        let upgrade = MigrationError.upgrade(upMigrations: [UpMigration(upName: "m2", withDown: true), UpMigration(upName: "m3", withDown: true)])
        #expect(no.result == .errorMigration(dbFile: path, migrationError: upgrade))
        #expect(seen == [upgrade])
        let yes = Migrator(migrations: m.all).migrate(db: try reopen(path), confirmation: .console { _ in true })
        #expect(yes.result == .ok && yes.applied == ["m2", "m3"])
        let down = Migrator(migrations: [m.m1]).migrate(db: try reopen(path), confirmation: .console { seen.append($0); return true })
        #expect(down.result == .ok && down.reverted == ["m3", "m2"])
        #expect(seen.last == .downgrade(downMigrations: ["m2", "m3"]))
    }

    @Test func extraMigrationsWithoutDownSQLAreNoDownEvenWithYesUpDown() throws {
        let tmp = try TempFolder()
        let noDown = Migration(name: "m2", up: "CREATE TABLE b (y INTEGER);")
        let path = try database(tmp, applied: [m.m1, noDown, m.m3])
        let before = try fileBytes(path)
        let outcome = Migrator(migrations: [m.m1]).migrate(db: try reopen(path), confirmation: .yesUpDown)
        #expect(outcome.result == .errorMigration(dbFile: path, migrationError: .migrationError(mtrError: .noDown(dbMigrations: ["m2"]))))
        #expect(try fileBytes(path) == before)
    }

    @Test func differentNamesAreAnErrorWhateverTheConfirmation() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1, m.m2])
        let other = [m.m1, Migration(name: "m2_other", up: "SELECT 1;")]
        let outcome = Migrator(migrations: other).migrate(db: try reopen(path), confirmation: .yesUpDown)
        #expect(outcome.result == .errorMigration(dbFile: path, migrationError: .migrationError(
            mtrError: .different(appMigration: "m2_other", dbMigration: "m2"))))
    }

    @Test func failingSQLIsRolledBackEarlierMigrationsStayAndTheDatabaseOpens() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        let bad = Migration(name: "m3_bad", up: "CREATE TABLE c (q INTEGER); INSERT INTO no_such_table VALUES (1);")
        let m4 = Migration(name: "m4", up: "CREATE TABLE d (q INTEGER);")
        let outcome = Migrator(migrations: [m.m1, m.m2, bad, m4]).migrate(db: try newMigrationDatabase(path), confirmation: .error)
        guard case .errorSQL(let dbFile, let message) = outcome.result else {
            Issue.record("expected errorSQL, got \(outcome.result)")
            return
        }
        #expect(dbFile == path)
        #expect(message.contains("m3_bad") && message.contains("no such table: no_such_table"), "\(message)")
        #expect(outcome.applied == ["m1", "m2"])
        let db = try reopen(path)
        #expect(db.keyIsCorrect())
        #expect(try db.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try recordedNames(db) == ["m1", "m2"])
        #expect(try tableNames(db) == ["a", "b"], "table c of the failed migration was rolled back")
        // A fixed list continues from where it stopped.
        let fixed = Migration(name: "m3_bad", up: "CREATE TABLE c (q INTEGER);")
        let again = Migrator(migrations: [m.m1, m.m2, fixed, m4]).migrate(db: db, confirmation: .yesUp)
        #expect(again.result == .ok && again.applied == ["m3_bad", "m4"])
    }

    @Test func failingDownSQLIsRolledBackAndReported() throws {
        let tmp = try TempFolder()
        let brokenDown = Migration(name: "m2", up: "CREATE TABLE b (y INTEGER);", down: "DROP TABLE b; DROP TABLE no_such_table;")
        let path = try database(tmp, applied: [m.m1, brokenDown, m.m3])
        let db = try reopen(path)
        let outcome = Migrator(migrations: [m.m1]).migrate(db: db, confirmation: .yesUpDown)
        guard case .errorSQL(_, let message) = outcome.result else {
            Issue.record("expected errorSQL, got \(outcome.result)")
            return
        }
        #expect(message.contains("down migration m2"))
        #expect(outcome.reverted == ["m3"])
        #expect(try recordedNames(db) == ["m1", "m2"])
        #expect(try tableNames(db) == ["a", "b"])
    }

    @Test func anOldMigrationsTableWithoutDownGetsTheColumn() throws {
        let tmp = try TempFolder()
        let path = tmp.file("old.db")
        let db = try newMigrationDatabase(path)
        // The table as apps made it before down migrations existed.
        try db.execute("""
            CREATE TABLE migrations (name TEXT NOT NULL, ts TEXT NOT NULL, PRIMARY KEY (name));
            CREATE TABLE a (x INTEGER);
            INSERT INTO migrations (name, ts) VALUES ('m1', '2022-01-01 00:00:00');
            """)
        let status = try Migrator(migrations: [m.m1]).status(db)
        #expect(status.migrationsTable == .withoutDownColumn)
        #expect(status.migrations == [MigrationStatus.Entry(name: "m1", state: .applied, appliedAt: "2022-01-01 00:00:00", canGoDown: false)])

        let outcome = Migrator(migrations: [m.m1]).migrate(db: db, confirmation: .error)
        #expect(outcome.result == .ok && outcome.tableUpgraded && outcome.backupPath != nil)
        #expect(try columnNames(db, "migrations") == ["name", "ts", "down"])
        #expect(try db.rows("SELECT name, ts, down FROM migrations") == [[.text("m1"), .text("2022-01-01 00:00:00"), .null]])
        let up = Migrator(migrations: [m.m1, m.m2]).migrate(db: db, confirmation: .yesUp)
        #expect(up.result == .ok && !up.tableUpgraded)
        #expect(try db.scalarText("SELECT down FROM migrations WHERE name = 'm2'") == "DROP TABLE b;")
    }

    @Test func statusListsAppliedPendingAndDatabaseOnlyWithCanGoDown() throws {
        let tmp = try TempFolder()
        let extra = Migration(name: "m9_extra", up: "SELECT 1;")
        let path = try database(tmp, applied: [m.m1, m.m2, extra])
        let db = try open(path, Self.passphrase, mode: .immutable)
        let app = [m.m1, m.m2, m.m3]
        let status = try Migrator(migrations: app).status(db)
        #expect(status.migrations.map(\.name) == ["m1", "m2", "m3", "m9_extra"])
        #expect(status.migrations.map(\.state) == [.applied, .applied, .pending, .dbOnly])
        #expect(status.migrations.map(\.canGoDown) == [false, true, true, false])
        #expect(status.migrations[2].appliedAt == nil && status.migrations[3].appliedAt != nil)
        #expect(status.plan == .error(.different(appMigration: "m3", dbMigration: "m9_extra")))
        #expect(!status.newDatabase && !status.needsConfirmation)

        let pending = try Migrator(migrations: app + [Migration(name: "m9_extra", up: "SELECT 1;"), Migration(name: "z", up: "")]).status(db)
        #expect(pending.plan == .error(.different(appMigration: "m3", dbMigration: "m9_extra")))
        let up = try Migrator(migrations: [m.m1, m.m2, extra, Migration(name: "z", up: "")]).status(db)
        #expect(up.plan == .up([Migration(name: "z", up: "")]) && up.needsConfirmation)
    }

    @Test func statusOfAFileChangesNoByte() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let before = try fileBytes(path)
        let mtime = modificationTime(path)
        let (status, cipher) = try Migrator(migrations: m.all).status(file: path, passphrase: secret(Self.passphrase))
        #expect(cipher == .sqlcipher4)
        #expect(status.plan == .up([m.m2, m.m3]))
        #expect(try fileBytes(path) == before)
        #expect(modificationTime(path) == mtime)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal") && !FileManager.default.fileExists(atPath: path + "-shm"))
    }

    @Test func fileLevelMigrateReportsWhatCannotBeOpenedAsNotADatabase() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let wrong = Migrator(migrations: m.all).migrate(file: path, passphrase: secret("nope"), confirmation: .yesUp)
        #expect(wrong.result == .errorNotADatabase(dbFile: path))
        #expect(wrong.detail?.contains("passphrase is wrong") == true)
        let text = try tmp.write("notes.db", Array(String(repeating: "plain text, not a database\n", count: 200).utf8))
        #expect(Migrator(migrations: m.all).migrate(file: text, passphrase: secret("x"), confirmation: .yesUp).result
                == .errorNotADatabase(dbFile: text))
        let missing = Migrator(migrations: m.all).migrate(file: tmp.file("gone.db"), passphrase: secret("x"), confirmation: .yesUp)
        #expect(missing.result == .errorNotADatabase(dbFile: tmp.file("gone.db")))
        #expect(missing.detail?.contains("no file") == true)
        #expect(!FileManager.default.fileExists(atPath: tmp.file("gone.db")), "a missing database is not created")
    }

    @Test func confirmationNamesAreParsedAndBadOnesAreInvalidConfirmation() throws {
        let tmp = try TempFolder()
        let path = try database(tmp, applied: [m.m1])
        let migrator = Migrator(migrations: m.all)
        #expect(migrator.migrate(file: path, passphrase: secret(Self.passphrase), confirmationName: "yes").result == .invalidConfirmation)
        #expect(migrator.migrate(file: path, passphrase: secret(Self.passphrase), confirmationName: "console").result == .invalidConfirmation)
        #expect(migrator.migrate(file: path, passphrase: secret(Self.passphrase), confirmationName: "error").result
                == .errorMigration(dbFile: path, migrationError: .upgrade(upMigrations: [UpMigration(upName: "m2", withDown: true), UpMigration(upName: "m3", withDown: true)])))
        #expect(migrator.migrate(file: path, passphrase: secret(Self.passphrase), confirmationName: "yesUp").result == .ok)
    }
}

/// Migrations known by name only (SimpleX's own, whose SQL sxkit does not carry) are recognised but
/// never applied: the up is refused before anything changes.
@Suite("Migrator without SQL", .ownThreads)
struct MigratorWithoutSQLTests {
    let m = TestMigrations.self

    @Test func aPendingMigrationKnownByNameOnlyIsRefusedBeforeAnyChange() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_chat.db")
        do {
            let db = try newMigrationDatabase(path)
            #expect(Migrator(migrations: [m.m1]).migrate(db: db, confirmation: .error).result == .ok)
        }
        let before = try fileBytes(path)
        let list = [m.m1, m.m2, Migration(name: "m3", knownOnly: true), Migration(name: "m4", knownOnly: false)]

        // Not confirmed: the core's own answer comes first, with the list's withDown facts.
        let unconfirmed = Migrator(migrations: list).migrate(file: path, passphrase: secret("migrate'me"), confirmation: .error)
        #expect(unconfirmed.result == .errorMigration(dbFile: path, migrationError: .upgrade(upMigrations: [
            UpMigration(upName: "m2", withDown: true), UpMigration(upName: "m3", withDown: true), UpMigration(upName: "m4", withDown: false)])))

        // Confirmed: m2 has SQL, m3 and m4 do not, so not even m2 runs.
        let refused = Migrator(migrations: list).migrate(file: path, passphrase: secret("migrate'me"), confirmation: .yesUp)
        #expect(refused.result == .errorSQL(dbFile: path, migrationSQLError:
            "nothing was run: sxkit knows these 2 migrations by name only and has no SQL to apply them: m3, m4"))
        #expect(refused.withoutSQL == ["m3", "m4"])
        #expect(refused.applied.isEmpty && refused.backupPath == nil)
        #expect(try fileBytes(path) == before)
        #expect(!FileManager.default.fileExists(atPath: path + MigrationBackupPolicy.suffix))
    }

    @Test func aNewDatabaseIsNotGivenAFakedSchema() throws {
        let tmp = try TempFolder()
        let path = tmp.file("x_agent.db")
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let outcome = Migrator(migrations: SimpleXMigrations.agent).migrate(file: path, passphrase: secret("k"), confirmation: .error)
        guard case .errorSQL(path, let sentence) = outcome.result else {
            Issue.record("expected errorSQL, got \(outcome.result)")
            return
        }
        #expect(sentence == "nothing was run: sxkit knows these 44 migrations by name only and has no SQL to apply them: 20220101_initial … m20260410_receive_attempts")
        #expect(outcome.withoutSQL == SimpleXMigrations.agent.map(\.name))
        #expect(try fileBytes(path).isEmpty, "the empty file stays empty")
    }
}

/// The names sxkit carries: SimpleX's lists, in the core's order.
@Suite("SimpleXMigrations", .ownThreads)
struct SimpleXMigrationsTests {
    @Test func theChatListIsTheStableBuildsHundredAndFiftyTwo() {
        let chat = SimpleXMigrations.chat
        #expect(chat.count == 152)
        #expect(chat.first?.name == "20220101_initial" && chat.last?.name == "20260516_supporter_badges")
        #expect(MigrationName.strictlyIncreasing(chat.map(\.name)))
        // simplex-chat Migrations.hs: entries up to 20230303_group_link_role have no down query, every later one has.
        let firstWithDown = chat.firstIndex(where: \.hasDown)
        #expect(firstWithDown == 52 && chat[52].name == "20230317_hidden_profiles")
        #expect(chat[52...].allSatisfy { $0.hasDown })
        #expect(chat.allSatisfy { $0.up == nil && $0.down == nil })
    }

    @Test func theAgentListIsSimplexmqsFortyFour() {
        let agent = SimpleXMigrations.agent
        #expect(agent.count == 44)
        #expect(agent.prefix(5).map(\.name) == ["20220101_initial", "20220301_snd_queue_keys", "20220322_notifications", "20220607_v2", "m20220625_v2_ntf_mode"])
        #expect(agent.last?.name == "m20260410_receive_attempts")
        #expect(MigrationName.strictlyIncreasing(agent.map(\.name)))
        #expect(agent.firstIndex(where: \.hasDown) == 13 && agent[13].name == "m20230223_files")
        #expect(agent[13...].allSatisfy { $0.hasDown })
    }
}

/// `migrations.ts` as the core writes it (sqlcipher-simple's UTCTime text).
@Suite("Migration timestamps", .ownThreads)
struct MigrationTimestampTests {
    @Test func theFractionLosesItsTrailingZerosAndVanishesWhenZero() {
        #expect(MigrationsTable.timestamp(unixSeconds: 1_784_542_272, microseconds: 345_678) == "2026-07-20 10:11:12.345678")
        #expect(MigrationsTable.timestamp(unixSeconds: 1_784_542_272, microseconds: 120_000) == "2026-07-20 10:11:12.12")
        #expect(MigrationsTable.timestamp(unixSeconds: 1_784_542_272, microseconds: 5) == "2026-07-20 10:11:12.000005")
        #expect(MigrationsTable.timestamp(unixSeconds: 1_784_542_272, microseconds: 0) == "2026-07-20 10:11:12")
    }

    @Test func anAppliedMigrationIsRecordedThatWay() throws {
        let tmp = try TempFolder()
        let db = try newMigrationDatabase(tmp.file("x_chat.db"))
        #expect(Migrator(migrations: TestMigrations.all).migrate(db: db, confirmation: .error).result == .ok)
        let stamps = try MigrationsTable.read(db).rows.map(\.ts)
        #expect(stamps.count == 3)
        #expect(stamps.allSatisfy { $0.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{0,5}[1-9])?/) != nil }, "\(stamps)")
    }
}
