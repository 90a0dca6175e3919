import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport

/// `sxkit db inspect` and `sxkit db test-key` end to end, including the bad-input cases.
@Suite(.ownThreads) struct DatabaseInspectCommandTests {
    static let passphrase = "correct horse battery staple"
    static let env = ["SXKIT_PASSPHRASE": passphrase]

    static func sample(_ dir: TempFolder) throws -> SampleDataDirectory {
        try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 2, chatItems: 100))
    }

    @Test func inspectPrintsATableAndAJSONDocumentAndChangesNothing() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let before = try FolderSnapshot.take(sample.directory.root)
        let text = try CLI.run(["db", "inspect", "--data-dir", sample.directory.root], environment: Self.env)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("classification  SQLCipher 4"))
        #expect(text.stdout.contains("journal mode    delete, auto_vacuum full"))
        #expect(text.stdout.contains("referenced but missing    2"))
        #expect(text.stdout.contains("present, not referenced   1"))
        let json = try CLI.run(["db", "inspect", "--data-dir", sample.directory.root, "--json", "--deep"], environment: Self.env)
        #expect(json.status == 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let databases = try #require(doc["databases"] as? [[String: Any]])
        #expect(databases.count == 2)
        #expect(databases.map { $0["classification"] as? String } == ["sqlcipher4", "sqlcipher4"])
        let chat = try #require(databases[0]["chat"] as? [String: Any])
        let files = try #require(chat["filesCheck"] as? [String: Any])
        #expect(files["referencedMissing"] as? Int == 2)
        #expect((databases[0]["integrity"] as? [String: Any])?["ok"] as? Bool == true)
        let after = try FolderSnapshot.take(sample.directory.root)
        #expect(before == after, "changed: \(before.differences(from: after))")
    }

    @Test func inspectWithoutAPassphraseStillClassifies() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let result = try CLI.run(["db", "inspect", "--data-dir", sample.directory.root])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("encrypted (no passphrase given)"))
    }

    @Test func testKeyTellsTheThreeFailuresApart() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let ok = try CLI.run(["db", "test-key", "--data-dir", sample.directory.root], environment: Self.env)
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.components(separatedBy: "the passphrase is correct (SQLCipher 4)").count == 3)

        let wrong = try CLI.run(["db", "test-key", "--data-dir", sample.directory.root], environment: ["SXKIT_PASSPHRASE": "wrong"])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("WRONG PASSPHRASE"))
        #expect(wrong.stdout.contains("the passphrase is wrong"))
        #expect(!wrong.stderr.contains("hmac check failed"), "SQLCipher's own log leaked: \(wrong.stderr)")

        // A JPEG named like the chat DB, and a plaintext SQLite DB as the agent DB.
        let jpeg = try FileBytes.read(Path.join(sample.directory.filesFolder!, "screenshot_1.png"), limit: 1 << 24)
        try AtomicFileWriter.write(jpeg, to: sample.directory.chatDatabase)
        try FileManager.default.removeItem(atPath: sample.directory.agentDatabase)
        _ = shell("rm -f '\(sample.directory.agentDatabase)'-*; /usr/bin/sqlcipher '\(sample.directory.agentDatabase)' 'CREATE TABLE t(x);'")
        let mixed = try CLI.run(["db", "test-key", "--data-dir", sample.directory.root, "--json"], environment: Self.env)
        #expect(mixed.status == 1)
        let results = try #require((try JSONSerialization.jsonObject(with: Data(mixed.stdout.utf8)) as? [String: Any])?["databases"] as? [[String: Any]])
        #expect(results.map { $0["status"] as? String } == ["notADatabase", "notEncrypted"])
        let messages = results.compactMap { $0["message"] as? String }
        #expect(messages[0].contains("not a database"))
        #expect(messages[1].contains("not encrypted"))
        let plainOK = try CLI.run(["db", "test-key", "--db", sample.directory.agentDatabase, "--no-passphrase"])
        #expect(plainOK.status == 0, "\(plainOK.stdout)")
    }

    @Test func emptyTruncatedAndMissingFiles() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let bytes = try FileBytes.read(sample.directory.chatDatabase, limit: 1 << 26)
        let truncated = try dir.write("truncated/simplex_v1_chat.db", Array(bytes.prefix(3000)))
        let empty = try dir.write("empty/simplex_v1_chat.db", [])
        for (path, word) in [(truncated, "NOT A DATABASE"), (empty, "NOT A DATABASE")] as [(String, String)] {
            let r = try CLI.run(["db", "test-key", "--data-dir", Path.parent(path)], environment: Self.env)
            #expect(r.status == 1)
            #expect(r.stdout.contains("chat database   \(word)"), "\(r.stdout)")
            #expect(r.stdout.contains("agent database  MISSING"), "\(r.stdout)")
        }
        let inspect = try CLI.run(["db", "inspect", "--data-dir", Path.parent(empty)], environment: Self.env)
        #expect(inspect.stdout.contains("empty file (0 bytes)"))
        #expect(inspect.stdout.contains("only one of the two databases is present"))
    }

    @Test func passphraseWithQuotesSpacesAndNonASCII() throws {
        let dir = try TempFolder()
        let secret = "it's a \"long\" pass — ünïcødé '' ok"
        let sample = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1,
                                                    passphrase: SecretBytes(Array(secret.utf8)), chatItems: 10))
        let file = try dir.write("pass.txt", Array((secret + "\n").utf8))
        let r = try CLI.run(["db", "test-key", "--data-dir", sample.directory.root, "--passphrase-file", file])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        if sqlcipherShellInstalled {
            let escaped = secret.replacingOccurrences(of: "'", with: "''")
            let out = try sqlcipherShell(sample.directory.chatDatabase, "PRAGMA key = '\(escaped)';\nSELECT count(*) FROM users;\n").output
            #expect(out.contains("2"), "the sqlcipher shell could not open the sample with the same passphrase: \(out)")
        }
    }
}
