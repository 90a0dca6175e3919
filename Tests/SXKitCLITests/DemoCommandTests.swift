import Foundation
import Testing
import SXTestSupport

/// `sxkit demo` walks every capability on a fresh sample and fails loudly if any step misbehaves.
@Suite(.ownThreads) struct DemoCommandTests {
    @Test func demoWalksEveryStep() throws {
        let dir = try TempFolder()
        let r = try CLI.run(["demo", "--dir", dir.file("demo")])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        for line in [
            "the sample passphrase: chat database correct, agent database correct",
            "a wrong one: chat database wrongPassphrase, agent database wrongPassphrase",
            "old passphrase now: wrongPassphrase, wrongPassphrase; new passphrase: correct, correct",
            "every table has the same row count as before: yes",
            "chat database: 152 of SimpleX's 152 chat migrations, newest 20260516_supporter_badges; newer than sxkit: no; can go down: 100 (20230317_hidden_profiles … 20260516_supporter_badges); migrate would: nothing to do",
            "agent database: 44 of SimpleX's 44 agent migrations, newest m20260410_receive_attempts; newer than sxkit: no",
            "chat database: SQLCipher 4, ",
            ", journal delete, 152 migrations up to 20260516_supporter_badges",
            "DBMigrationResult: {\"type\":\"ok\"}",
            "with yesUp:     {\"type\":\"errorMigration\",\"dbFile\":\"\(dir.file("demo"))/simplex_v1_chat.db\",\"migrationError\":{\"type\":\"downgrade\",\"downMigrations\":[\"20261121_demo_pinned_chats\"]}}",
            "with yesUpDown: {\"type\":\"ok\"}; reverted 20261121_demo_pinned_chats",
            "7 of 7 files authentic",
            "14 of 14 entries intact (every CRC read)",
            "simplex_v1_chat.db: correct, quick_check ok",
            "every table has the same row count: yes; the same referenced files are present: yes",
            "budget 261120: every one fits",
            "SHA-256 matches the original: yes",
            "; SHA-256 matches the original: yes",
            "recipient 2: chunk ",
            "server address xftp://",
            "over XFTP in ",
            "files folder: 11 file(s), 4.32 MiB: 4 encrypted, 6 plaintext, 2 missing, 1 orphan(s)",
            "encrypted 6 file(s) (2.31 MiB)",
            "files folder: 11 file(s), 4.32 MiB: 10 encrypted, 0 plaintext, 2 missing, 1 orphan(s)",
            "would remove orphans   1 file(s), 595.7 KiB",
            "removed orphans   1 file(s), 595.7 KiB",
            "files folder: 10 file(s), 3.74 MiB: 10 encrypted, 0 plaintext, 2 missing, 0 orphan(s)",
            "every table has the same row count: yes; every file has the same SHA-256: yes",
            "user alice: 16 chat(s), 16 with messages, 2973 message(s), 12 file(s)",
            "user alice-work: 1 chat(s), 1 with messages, 39 message(s), 0 file(s)",
            "try: sxkit chats list --data-dir ",
            "chat(s) as HTML pages, ",
            "/chats-html/index.html",
        ] {
            #expect(r.stdout.contains(line), "missing: \(line)")
        }
        #expect(r.stdout.contains("files: 12 referenced (10 present, 2 missing; 4 encrypted, 8 plaintext), 1 orphan"))
        // It says its passphrases, and leaves the current one in a file.
        #expect(r.stdout.contains("the sample passphrase is \"correct horse battery staple\"; the wrong one tried is \"hunter2\""))
        #expect(r.stdout.contains("the passphrase is now \"demo: a longer passphrase, with 'quotes' and ünïcode\" (was \"correct horse battery staple\")"))
        #expect(r.stdout.contains("passphrases: the sample was made with \"correct horse battery staple\"; since step 4 its databases, and those of imported/ and migrated/, open with \"demo: a longer passphrase, with 'quotes' and ünïcode\""))
        #expect(r.stdout.contains("Remove it with: rm -rf \(dir.file("demo"))"))
        let file = dir.file("demo/demo-passphrase.txt")
        for data in ["demo", "demo/imported", "demo/migrated"] {
            let key = try CLI.run(["db", "test-key", "--data-dir", dir.file(data), "--passphrase-file", file])
            #expect(key.status == 0, "\(data): \(key.stdout)\(key.stderr)")
        }
    }

    @Test func sampleOnlyBuildsABigEnoughChatDatabase() throws {
        let dir = try TempFolder()
        let r = try CLI.run(["demo", "--sample-only", "--dir", dir.file("s"), "--chat-db-size", "3MB"])
        #expect(r.status == 0, "\(r.stderr)")
        let size = try FileManager.default.attributesOfItem(atPath: dir.file("s/simplex_v1_chat.db"))[.size] as? Int ?? 0
        #expect(size >= 3_000_000)
        #expect(!r.stdout.contains("== 2."))
        let bad = try CLI.run(["demo", "--sample-only", "--dir", dir.file("t"), "--chat-db-size", "lots"])
        #expect(bad.status == 2)
    }
}
