import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// `sxkit db migrate` and `sxkit db status` end to end, through the built binary, cross-checked
/// with the Debian `sqlcipher` shell.
@Suite(.ownThreads) struct DatabaseMigrateCommandTests {
    static let passphrase = "cli mig'rate"
    let env = ["SXKIT_PASSPHRASE": Self.passphrase]

    /// An empty file: a brand-new database, encrypted by the first write.
    func emptyDatabase(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
    }

    /// A migrations folder: name → (up, down?).
    func folder(_ tmp: TempFolder, _ name: String, _ migrations: [(String, String, String?)]) throws -> String {
        for (migration, up, down) in migrations {
            try tmp.write("\(name)/\(migration).up.sql", Array(up.utf8))
            if let down { try tmp.write("\(name)/\(migration).down.sql", Array(down.utf8)) }
        }
        return tmp.file(name)
    }

    func shell(_ path: String, _ sql: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sqlcipher")
        p.arguments = [path]
        let input = Pipe(), output = Pipe()
        p.standardInput = input
        p.standardOutput = output
        p.standardError = FileHandle.nullDevice
        try p.run()
        input.fileHandleForWriting.write(Data("PRAGMA key = '\(Self.passphrase.replacingOccurrences(of: "'", with: "''"))';\n\(sql)\n".utf8))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    /// The `--json` document as an array of objects.
    func entries(_ result: CLIResult) throws -> [[String: Any]] {
        let document = try #require(JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        return try #require(document["databases"] as? [[String: Any]])
    }

    /// A JSON value as compact text with sorted keys, for exact comparisons.
    func compact(_ value: Any?) throws -> String {
        let value = try #require(value)
        return String(decoding: try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    @Test func aBrandNewDataDirectoryIsNotGivenAFakedSchema() throws {
        let tmp = try TempFolder()
        let dir = tmp.file("data")
        try emptyDatabase(dir + "/simplex_v1_chat.db")
        try emptyDatabase(dir + "/simplex_v1_agent.db")
        let first = try CLI.run(["db", "migrate", "--data-dir", dir], environment: env)
        #expect(first.status == 1, "\(first.stderr)")
        #expect(first.stdout == """
            chat database   refused: nothing was run: sxkit knows these 152 migrations by name only and has no SQL to apply them: 20220101_initial … 20260516_supporter_badges; give their SQL as NAME.up.sql files with --migrations DIR, or let SimpleX Chat apply them
            agent database  refused: nothing was run: sxkit knows these 44 migrations by name only and has no SQL to apply them: 20220101_initial … m20260410_receive_attempts; give their SQL as NAME.up.sql files with --migrations DIR, or let SimpleX Chat apply them

            """)
        #expect(try FileManager.default.attributesOfItem(atPath: dir + "/simplex_v1_chat.db")[.size] as? Int == 0, "the empty file stays empty")
        let json = try entries(try CLI.run(["db", "migrate", "--data-dir", dir, "--json"], environment: env))
        #expect(json.count == 2)
        #expect(try compact(json[1]["migrationResult"]) == #"{"dbFile":"\#(dir)/simplex_v1_agent.db","migrationSQLError":"nothing was run: sxkit knows these 44 migrations by name only and has no SQL to apply them: 20220101_initial … m20260410_receive_attempts","type":"errorSQL"}"#)
        #expect((json[0]["withoutSQL"] as? [String])?.count == 152)
        #expect(try compact(json[0]["database"]) == #"{"path":"\#(dir)/simplex_v1_chat.db","role":"chat"}"#)
        let status = try CLI.run(["db", "status", "--data-dir", dir], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("  recorded          nothing: the database has no migrations table\n"), "\(status.stdout)")
        #expect(status.stdout.contains("  pending           152: 20220101_initial … 20260516_supporter_badges (sxkit has no SQL for them)\n"))
    }

    @Test func pendingUpsNeedConfirmationThenApplyWithABackup() throws {
        let tmp = try TempFolder()
        let db = tmp.file("one.db")
        try emptyDatabase(db)
        let v1 = try folder(tmp, "v1", [("m1", "CREATE TABLE a (x);", nil)])
        let v2 = try folder(tmp, "v2", [("m1", "CREATE TABLE a (x);", nil), ("m2", "CREATE TABLE b (y);", "DROP TABLE b;")])
        #expect(try CLI.run(["db", "migrate", "--db", db, "--migrations", v1], environment: env).status == 0)
        let hash = try sha256(db)

        // No terminal, so the default confirmation is `error`: refused, and reported as such.
        let refused = try CLI.run(["db", "migrate", "--db", db, "--migrations", v2, "--json"], environment: env)
        #expect(refused.status == 1)
        #expect(try compact(try entries(refused)[0]["migrationResult"])
                == #"{"dbFile":"\#(db)","migrationError":{"type":"upgrade","upMigrations":[{"upName":"m2","withDown":true}]},"type":"errorMigration"}"#)
        #expect(try sha256(db) == hash)
        let text = try CLI.run(["db", "migrate", "--db", db, "--migrations", v2], environment: env)
        #expect(text.status == 1)
        #expect(text.stdout == "one.db  refused: 1 up migration pending (m2); run with --confirm yesUp to apply\n")

        let applied = try CLI.run(["db", "migrate", "--db", db, "--migrations", v2, "--confirm", "yesUp"], environment: env)
        #expect(applied.status == 0, "\(applied.stderr)")
        #expect(applied.stdout == "one.db  applied 1 up migration: m2; backup: \(db).migration-backup\n")
        #expect(try sha256(db + ".migration-backup") == hash, "the backup is the database as it was")

        // Going back to v1 needs yesUpDown; yesUp refuses and says which flag would allow it.
        let noDown = try CLI.run(["db", "migrate", "--db", db, "--migrations", v1, "--confirm", "yesUp"], environment: env)
        #expect(noDown.status == 1)
        #expect(noDown.stdout.contains("refused: the database has 1 migration the list does not know (m2); run with --confirm yesUpDown to revert"))
        let custom = tmp.file("saved.db")
        let down = try CLI.run(["db", "migrate", "--db", db, "--migrations", v1, "--confirm", "yesUpDown", "--backup-path", custom, "--json"], environment: env)
        #expect(down.status == 0, "\(down.stderr)")
        let entry = try entries(down)[0]
        #expect(entry["reverted"] as? [String] == ["m2"])
        #expect(entry["backup"] as? String == custom)
        #expect(FileManager.default.fileExists(atPath: custom))
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlcipher") {
            #expect(try shell(db, "SELECT group_concat(name) FROM migrations; SELECT count(*) FROM sqlite_master WHERE name = 'b';").contains("m1\n0\n"))
        }
    }

    @Test func aDatabaseOnlyMigrationWithoutDownIsNoDownAndADifferentListIsDifferent() throws {
        let tmp = try TempFolder()
        let db = tmp.file("one.db")
        try emptyDatabase(db)
        let made = try folder(tmp, "made", [("m1", "CREATE TABLE a (x);", nil), ("m2", "CREATE TABLE b (y);", nil)])
        let older = try folder(tmp, "older", [("m1", "CREATE TABLE a (x);", nil)])
        let other = try folder(tmp, "other", [("m1", "CREATE TABLE a (x);", nil), ("x2", "SELECT 1;", nil)])
        #expect(try CLI.run(["db", "migrate", "--db", db, "--migrations", made], environment: env).status == 0)
        let hash = try sha256(db)

        let noDown = try CLI.run(["db", "migrate", "--db", db, "--migrations", older, "--confirm", "yesUpDown", "--json"], environment: env)
        #expect(noDown.status == 1)
        #expect(try compact(try entries(noDown)[0]["migrationResult"])
                == #"{"dbFile":"\#(db)","migrationError":{"mtrError":{"dbMigrations":["m2"],"type":"noDown"},"type":"migrationError"},"type":"errorMigration"}"#)
        let noDownText = try CLI.run(["db", "migrate", "--db", db, "--migrations", older, "--confirm", "yesUpDown"], environment: env)
        #expect(noDownText.stdout.contains("cannot migrate: the database has migrations the list does not know, and m2 has no down SQL"))

        let different = try CLI.run(["db", "migrate", "--db", db, "--migrations", other, "--confirm", "yesUpDown", "--json"], environment: env)
        #expect(different.status == 1)
        #expect(try compact(try entries(different)[0]["migrationResult"])
                == #"{"dbFile":"\#(db)","migrationError":{"mtrError":{"appMigration":"x2","dbMigration":"m2","type":"different"},"type":"migrationError"},"type":"errorMigration"}"#)
        #expect(try sha256(db) == hash)

        // Status shows the database-only migration and that it cannot go down, and changes nothing.
        let status = try CLI.run(["db", "status", "--db", db, "--migrations", older, "--verbose"], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        let rows = status.stdout.split(separator: "\n").map(String.init)
        #expect(rows.first == "one.db  \(db)  (SQLCipher 4)")
        #expect(rows.contains { $0.hasPrefix("  applied   m1  ") && $0.hasSuffix("  no down") }, "\(status.stdout)")
        #expect(rows.contains { $0.hasPrefix("  db-only   m2  ") && $0.hasSuffix("  no down") }, "\(status.stdout)")
        #expect(rows.contains("  list              the 1 migrations of \(older)"), "\(status.stdout)")
        #expect(rows.contains("  newer than sxkit  yes, 1: m2"))
        #expect(rows.contains("  migrate would     nothing: the database has migrations the list does not know, and m2 has no down SQL; use the app version (or --migrations folder) that made it"))

        let json = try CLI.run(["db", "status", "--db", db, "--migrations", other, "--json"], environment: env)
        #expect(json.status == 0)
        let entry = try entries(json)[0]
        let report = try #require(entry["migrationStatus"] as? [String: Any])
        #expect(try compact(report["plan"]) == #"{"mtrError":{"appMigration":"x2","dbMigration":"m2","type":"different"},"type":"error"}"#)
        let migrations = try #require(report["migrations"] as? [[String: Any]])
        #expect(migrations.map { "\($0["name"]!)=\($0["status"]!)/\($0["canGoDown"]!)" } == ["m1=applied/0", "m2=dbOnly/0", "x2=pending/0"])
        #expect(entry["cipher"] as? String == "sqlcipher4")
        #expect(try sha256(db) == hash, "status changes no byte")
        #expect(!FileManager.default.fileExists(atPath: db + "-wal") && !FileManager.default.fileExists(atPath: db + "-shm"))
    }

    @Test func wrongPassphraseIsErrorNotADatabaseAndExitsOne() throws {
        let tmp = try TempFolder()
        let sample = try SampleCopies.create(at: tmp.file("data"), options: .init(photos: 0, documents: 1, passphrase: SecretBytes(Array(Self.passphrase.utf8)), chatItems: 10))
        let db = tmp.file("x_agent.db")
        try FileManager.default.copyItem(atPath: sample.directory.agentDatabase, toPath: db)
        #expect(try CLI.run(["db", "migrate", "--db", db], environment: env).stdout == "agent database  nothing to do\n")
        let wrong = ["SXKIT_PASSPHRASE": "not it"]
        let migrate = try CLI.run(["db", "migrate", "--db", db, "--json"], environment: wrong)
        #expect(migrate.status == 1)
        #expect(try compact(try entries(migrate)[0]["migrationResult"]) == #"{"dbFile":"\#(db)","type":"errorNotADatabase"}"#)
        let text = try CLI.run(["db", "migrate", "--db", db], environment: wrong)
        #expect(text.stdout.hasPrefix("agent database  cannot open: the passphrase is wrong: it does not open '\(db)'"), "\(text.stdout)")
        let status = try CLI.run(["db", "status", "--db", db], environment: wrong)
        #expect(status.status == 1)
        #expect(status.stdout.contains("cannot read: the passphrase is wrong: it does not open '\(db)'"), "\(status.stdout)")
    }

    @Test func usageErrorsExitTwo() throws {
        let tmp = try TempFolder()
        let db = tmp.file("plain-name.db")
        try emptyDatabase(db)
        let noRole = try CLI.run(["db", "migrate", "--db", db], environment: env)
        #expect(noRole.status == 2)
        #expect(noRole.stderr.contains("give --role chat|agent"))
        #expect(try CLI.run(["db", "status", "--role", "chat"], environment: env).status == 2)
        #expect(try CLI.run(["db", "migrate", "--db", db, "--role", "chat", "--confirm", "console"], environment: env).status == 2)
        let badFolder = try CLI.run(["db", "migrate", "--db", db, "--migrations", tmp.file("nope")], environment: env)
        // A folder that is not there is found on disk, like a missing --manifest: not done (1).
        #expect(badFolder.status == 1)
        #expect(badFolder.stderr.contains("does not exist"))
        // The --role choice works once given: the chat list, which sxkit knows by name only.
        let chat = try CLI.run(["db", "migrate", "--db", db, "--role", "chat"], environment: env)
        #expect(chat.status == 1)
        #expect(chat.stdout.hasPrefix("chat database  refused: nothing was run: sxkit knows these 152 migrations by name only"), "\(chat.stdout)")
    }
}
