import Foundation
import SXCore
import SXDatabase
import SXSample
import SXTestSupport
import Testing

/// `db inspect`, `db status` and `db migrate` on a data directory built from the real schemas with
/// SimpleX's real migration rows (the sample): the real state is reported (never "different"), a
/// database newer than sxkit goes down with the down SQL it stored, a row without one is noDown, and
/// an older one goes up only with the SQL given in a --migrations folder.
@Suite(.ownThreads) struct RealProfileMigrationTests {
    static let passphrase = "correct horse battery staple"
    let env = ["SXKIT_PASSPHRASE": Self.passphrase]

    struct Profile {
        let temp: TempFolder
        let sample: SampleDataDirectory
        var root: String { sample.directory.root }
        var chat: String { sample.directory.chatDatabase }
        var agent: String { sample.directory.agentDatabase }

        init() throws {
            temp = try TempFolder()
            sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 1, documents: 1, chatItems: 30))
        }

        /// Changes the chat database as a SimpleX Chat of another version would (core settings on).
        func changeChat(_ sql: String) throws {
            let (db, _) = try DatabaseOpener.open(chat, passphrase: SecretBytes(Array(passphrase.utf8)), mode: .readWrite, coreSettings: true)
            try db.execute("BEGIN; \(sql); COMMIT;")
        }

        func chatValue(_ sql: String) throws -> ColumnValue? {
            let (db, _) = try DatabaseOpener.open(chat, passphrase: SecretBytes(Array(passphrase.utf8)), mode: .readOnly)
            return try db.rows(sql).first?.first
        }
    }

    /// Labelled status lines of one database ("newer than sxkit" → "no").
    func statusLines(_ stdout: String, database: Int) -> [String: String] {
        let blocks = stdout.split(separator: "\n").map(String.init).split { !$0.hasPrefix("  ") }
        var lines: [String: String] = [:]
        for line in blocks[database] where line.count > 20 {
            lines[String(line.dropFirst(2).prefix(17)).trimmingCharacters(in: .whitespaces)] = String(line.dropFirst(20))
        }
        return lines
    }

    func json(_ result: CLIResult) throws -> [[String: Any]] {
        let document = try #require(JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        return try #require(document["databases"] as? [[String: Any]])
    }

    func compact(_ value: Any?) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: try #require(value), options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
    }

    @Test func inspectStatusAndMigrateReportTheRealStateAndChangeNothing() throws {
        let p = try Profile()
        let hashes = [try sha256(p.chat), try sha256(p.agent)]
        let inspect = try CLI.run(["db", "inspect", "--data-dir", p.root], environment: env)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        #expect(inspect.stdout.contains("migrations      152: 20220101_initial … 20260516_supporter_badges (last applied 2026-06-01 10:41:07.185425)"), "\(inspect.stdout)")
        #expect(inspect.stdout.contains("migrations      44: 20220101_initial … m20260410_receive_attempts"))
        #expect(inspect.stdout.contains("journal mode    delete, auto_vacuum full"))

        let status = try CLI.run(["db", "status", "--data-dir", p.root], environment: env)
        #expect(status.status == 0, "\(status.stderr)")
        let chat = statusLines(status.stdout, database: 0)
        #expect(chat["list"] == "SimpleX's 152 chat migrations (simplex-chat 6.5)")
        #expect(chat["recorded"] == "152: 20220101_initial … 20260516_supporter_badges")
        #expect(chat["known"] == "152 of the list's 152")
        #expect(chat["newest"] == "20260516_supporter_badges, applied 2026-06-01 10:41:07.185425")
        #expect(chat["newer than sxkit"] == "no")
        #expect(chat["can go down"] == "100: 20230317_hidden_profiles … 20260516_supporter_badges; 52 cannot (no down SQL stored)")
        #expect(chat["pending"] == "none")
        #expect(chat["migrate would"] == "nothing to do")
        let agent = statusLines(status.stdout, database: 1)
        #expect(agent["list"] == "SimpleX's 44 agent migrations (simplexmq 6.5)")
        #expect(agent["can go down"] == "31: m20230223_files … m20260410_receive_attempts; 13 cannot (no down SQL stored)")
        #expect(!status.stdout.contains("different"))

        let document = try json(try CLI.run(["db", "status", "--data-dir", p.root, "--json"], environment: env))
        let summary = try #require((document[0]["migrationStatus"] as? [String: Any])?["summary"] as? [String: Any])
        #expect(summary["known"] as? Int == 152 && summary["recorded"] as? Int == 152)
        #expect((summary["canGoDown"] as? [String])?.count == 100)
        #expect(summary["newerThanList"] as? [String] == [])

        let migrate = try CLI.run(["db", "migrate", "--data-dir", p.root, "--json"], environment: env)
        #expect(migrate.status == 0, "\(migrate.stderr)")
        #expect(try json(migrate).map { try compact($0["migrationResult"]) } == [#"{"type":"ok"}"#, #"{"type":"ok"}"#])
        #expect([try sha256(p.chat), try sha256(p.agent)] == hashes, "nothing to do writes nothing")
        #expect(!FileManager.default.fileExists(atPath: p.chat + "-journal") && !FileManager.default.fileExists(atPath: p.chat + "-wal"))
    }

    @Test func aDatabaseNewerThanSxkitGoesDownWithTheDownSQLItStored() throws {
        let p = try Profile()
        // What a newer SimpleX Chat leaves: two more migrations (columns it added), each row with its down SQL.
        try p.changeChat("""
            ALTER TABLE users ADD COLUMN client_service INTEGER NOT NULL DEFAULT 0;
            INSERT INTO migrations (name, down, ts) VALUES ('20260530_client_services', 'ALTER TABLE users DROP COLUMN client_service;', '2026-07-01 09:00:00.5');
            ALTER TABLE group_members ADD COLUMN removed_at TEXT;
            INSERT INTO migrations (name, down, ts) VALUES ('20260531_member_removed_at', 'ALTER TABLE group_members DROP COLUMN removed_at;', '2026-07-01 09:00:00.6')
            """)
        let hash = try sha256(p.chat)
        let status = try CLI.run(["db", "status", "--data-dir", p.root], environment: env)
        let chat = statusLines(status.stdout, database: 0)
        #expect(chat["newer than sxkit"] == "yes, 2: 20260530_client_services, 20260531_member_removed_at", "\(status.stdout)")
        #expect(chat["newest"] == "20260531_member_removed_at, applied 2026-07-01 09:00:00.6")
        #expect(chat["known"] == "152 of the list's 152")
        #expect(chat["migrate would"] == "revert 2 migrations, last first: 20260530_client_services, 20260531_member_removed_at (needs --confirm yesUpDown)")

        let refused = try CLI.run(["db", "migrate", "--data-dir", p.root, "--json"], environment: env)
        #expect(refused.status == 1)
        #expect(try compact(try json(refused)[0]["migrationResult"]) == #"{"dbFile":"\#(p.chat)","migrationError":{"downMigrations":["20260530_client_services","20260531_member_removed_at"],"type":"downgrade"},"type":"errorMigration"}"#)
        #expect(try sha256(p.chat) == hash)

        let down = try CLI.run(["db", "migrate", "--data-dir", p.root, "--confirm", "yesUpDown", "--json"], environment: env)
        #expect(down.status == 0, "\(down.stderr)")
        let entry = try json(down)[0]
        #expect(entry["reverted"] as? [String] == ["20260531_member_removed_at", "20260530_client_services"], "newest first")
        #expect(try sha256(try #require(entry["backup"] as? String)) == hash, "the backup is the database as it was")
        #expect(try p.chatValue("SELECT count(*) FROM pragma_table_info('users') WHERE name = 'client_service'") == .integer(0))
        #expect(try p.chatValue("SELECT count(*) FROM pragma_table_info('group_members') WHERE name = 'removed_at'") == .integer(0))
        #expect(try p.chatValue("SELECT max(name) FROM migrations") == .text("20260516_supporter_badges"))
        #expect(try p.chatValue("PRAGMA foreign_key_check") == nil)
        let after = statusLines(try CLI.run(["db", "status", "--data-dir", p.root], environment: env).stdout, database: 0)
        #expect(after["migrate would"] == "nothing to do")
    }

    @Test func aNewerRowWithoutDownSQLIsNoDownAndNothingChanges() throws {
        let p = try Profile()
        try p.changeChat("""
            INSERT INTO migrations (name, down, ts) VALUES ('20260529_delivery_job_senders', 'SELECT 1;', '2026-07-01 09:00:00.1');
            INSERT INTO migrations (name, down, ts) VALUES ('20260530_client_services', NULL, '2026-07-01 09:00:00.2')
            """)
        let hash = try sha256(p.chat)
        let status = statusLines(try CLI.run(["db", "status", "--data-dir", p.root], environment: env).stdout, database: 0)
        #expect(status["newer than sxkit"] == "yes, 2: 20260529_delivery_job_senders, 20260530_client_services")
        #expect(status["can go down"] == "101: 20230317_hidden_profiles … 20260529_delivery_job_senders; 53 cannot (no down SQL stored)")
        #expect(status["migrate would"]?.hasPrefix("nothing: the database has migrations the list does not know, and 20260530_client_services has no down SQL") == true)
        let r = try CLI.run(["db", "migrate", "--data-dir", p.root, "--confirm", "yesUpDown", "--json"], environment: env)
        #expect(r.status == 1)
        #expect(try compact(try json(r)[0]["migrationResult"]) == #"{"dbFile":"\#(p.chat)","migrationError":{"mtrError":{"dbMigrations":["20260530_client_services"],"type":"noDown"},"type":"migrationError"},"type":"errorMigration"}"#)
        #expect(try sha256(p.chat) == hash)
        #expect(!FileManager.default.fileExists(atPath: p.chat + ".migration-backup"))
    }

    @Test func anOlderDatabaseGoesUpOnlyWithTheSQLOfAMigrationsFolder() throws {
        let p = try Profile()
        // As the profile was before the last two stable migrations.
        try p.changeChat("DELETE FROM migrations WHERE name IN ('20260515_public_group_access', '20260516_supporter_badges')")
        let hash = try sha256(p.chat)
        let status = statusLines(try CLI.run(["db", "status", "--data-dir", p.root], environment: env).stdout, database: 0)
        #expect(status["known"] == "150 of the list's 152")
        #expect(status["pending"] == "2: 20260515_public_group_access, 20260516_supporter_badges (sxkit has no SQL for them)")
        #expect(status["migrate would"]?.hasPrefix("nothing: 2 up migrations pending, and sxkit has no SQL for any of them") == true)

        let refused = try CLI.run(["db", "migrate", "--data-dir", p.root, "--confirm", "yesUp", "--json"], environment: env)
        #expect(refused.status == 1)
        let entry = try json(refused)[0]
        #expect(try compact(entry["migrationResult"]) == #"{"dbFile":"\#(p.chat)","migrationSQLError":"nothing was run: sxkit knows these 2 migrations by name only and has no SQL to apply them: 20260515_public_group_access, 20260516_supporter_badges","type":"errorSQL"}"#)
        #expect(entry["withoutSQL"] as? [String] == ["20260515_public_group_access", "20260516_supporter_badges"])
        #expect((entry["message"] as? String)?.hasSuffix("; give their SQL as NAME.up.sql files with --migrations DIR, or let SimpleX Chat apply them") == true)
        #expect(try sha256(p.chat) == hash)

        // The folder gives both their SQL (chat/ only: the agent database keeps SimpleX's list).
        try p.temp.write("sql/chat/20260515_public_group_access.up.sql", Array("CREATE INDEX sxkit_test_groups_user ON groups(user_id);\n".utf8))
        try p.temp.write("sql/chat/20260515_public_group_access.down.sql", Array("DROP INDEX sxkit_test_groups_user;\n".utf8))
        try p.temp.write("sql/chat/20260516_supporter_badges.up.sql", Array("CREATE INDEX sxkit_test_profiles_badge ON contact_profiles(badge_type);\n".utf8))
        let up = try CLI.run(["db", "migrate", "--data-dir", p.root, "--migrations", p.temp.file("sql"), "--confirm", "yesUp"], environment: env)
        #expect(up.status == 0, "\(up.stdout)\(up.stderr)")
        #expect(up.stdout.hasPrefix("chat database   applied 2 up migrations: 20260515_public_group_access, 20260516_supporter_badges; backup: \(p.chat).migration-backup\nagent database  nothing to do\n"), "\(up.stdout)")
        #expect(try p.chatValue("SELECT count(*) FROM sqlite_master WHERE name IN ('sxkit_test_groups_user', 'sxkit_test_profiles_badge')") == .integer(2))
        #expect(try p.chatValue("SELECT down FROM migrations WHERE name = '20260515_public_group_access'") == .text("DROP INDEX sxkit_test_groups_user;\n"))
        #expect(try p.chatValue("SELECT down FROM migrations WHERE name = '20260516_supporter_badges'") == .null)
        let listed = statusLines(try CLI.run(["db", "status", "--data-dir", p.root, "--migrations", p.temp.file("sql")], environment: env).stdout, database: 0)
        #expect(listed["list"] == "SimpleX's 152 chat migrations (simplex-chat 6.5), SQL for 2 from \(p.temp.file("sql"))")
        #expect(listed["migrate would"] == "nothing to do")
    }
}
