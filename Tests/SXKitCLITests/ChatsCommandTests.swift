import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport

/// `sxkit chats list` as a user runs it on the sample profile.
@Suite(.ownThreads) struct ChatsCommandTests {
    static let env = ["SXKIT_PASSPHRASE": "correct horse battery staple"]

    @Test func listsEveryUsersChatsAsTextAndJSONWithoutChangingAByte() throws {
        let dir = try TempFolder()
        let data = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 2, chatItems: 120))
        let before = try FolderSnapshot.take(data.directory.root)

        let json = try CLI.run(["chats", "list", "--data-dir", dir.file("data"), "--json"], environment: Self.env)
        #expect(json.status == 0, "\(json.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let users = try #require(document["users"] as? [[String: Any]])
        #expect(users.map { $0["displayName"] as? String } == ["alice", "alice-work"])
        #expect(users.map { $0["active"] as? Bool } == [true, false])
        let chats = try #require(users[0]["chats"] as? [[String: Any]])
        let total = chats.reduce(0) { $0 + (($1["messages"] as? Int) ?? 0) }
        // Counted apart, by the sqlcipher shell.
        let shell = try sqlcipherShell(data.directory.chatDatabase, "PRAGMA key = 'correct horse battery staple';\n.headers off\nSELECT count(*) FROM chat_items WHERE user_id = 1;\n")
        let counted = shell.output.split(separator: "\n").last.flatMap { Int($0) }
        #expect(counted != nil && total == counted, "\(total) vs \(shell.output) \(shell.error)")
        let latest = try #require(chats.first)
        #expect((latest["lastMessageAt"] as? String)?.hasSuffix("Z") == true, "ISO 8601 UTC: \(latest)")
        #expect(Set(chats.compactMap { $0["kind"] as? String }) == ["direct", "group", "notes"])

        let text = try CLI.run(["chats", "list", "--data-dir", dir.file("data")], environment: Self.env)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.hasPrefix("user 1: alice (Alice Example) [active] — 16 chat(s), \(total) message(s)\n"), "\(text.stdout)")
        let notes = try #require(chats.first { $0["kind"] as? String == "notes" }?["messages"] as? Int)
        #expect(notes > 0 && text.stdout.contains("  notes      1  Private notes\n                \(notes) message(s), 2024-"), "\(text.stdout)")
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only")
    }

    @Test func aWrongPassphraseOrAFolderWithoutDatabasesIsAClearError() throws {
        let dir = try TempFolder()
        _ = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 10))
        let wrong = try CLI.run(["chats", "list", "--data-dir", dir.file("data")], environment: ["SXKIT_PASSPHRASE": "wrong"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("passphrase"), "\(wrong.stderr)")
        #expect(wrong.stdout.isEmpty)
        try FileManager.default.createDirectory(atPath: dir.file("empty"), withIntermediateDirectories: true)
        let empty = try CLI.run(["chats", "list", "--data-dir", dir.file("empty")], environment: Self.env)
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("not a SimpleX data directory"), "\(empty.stderr)")
    }

    @Test func exportWritesTranscriptsAndAManifestAndRefusesToReplaceThem() throws {
        let dir = try TempFolder()
        let data = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 60))
        let before = try FolderSnapshot.take(data.directory.root)
        let out = dir.file("export")
        let run = try CLI.run(["chats", "export", "bob", "group:1", "-o", out, "--format", "txt", "--format", "jsonl", "--utc",
                               "--data-dir", dir.file("data"), "--json"], environment: Self.env)
        #expect(run.status == 0, "\(run.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        #expect(report["databaseUnchanged"] as? Bool == true)
        let chats = try #require(report["chats"] as? [[String: Any]])
        #expect(chats.map { $0["name"] as? String } == ["bob", "family"])
        let files = chats.flatMap { ($0["files"] as? [String]) ?? [] }
        #expect(files.count == 4 && files.allSatisfy { FileManager.default.fileExists(atPath: Path.join(out, $0)) })
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Path.join(out, "manifest.json")))) as? [String: Any])
        #expect((manifest["command"] as? [String])?.prefix(3) == ["sxkit", "chats", "export"])
        #expect(manifest["time_zone"] as? String == "UTC")
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only")

        let again = try CLI.run(["chats", "export", "bob", "-o", out, "--data-dir", dir.file("data")], environment: Self.env)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exist") && again.stderr.contains("--force"), "\(again.stderr)")
        let forced = try CLI.run(["chats", "export", "bob", "-o", out, "--data-dir", dir.file("data"), "--force"], environment: Self.env)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("direct:2 bob: ") && forced.stdout.contains("the database's SHA-256 is unchanged"), "\(forced.stdout)")

        let badTime = try CLI.run(["chats", "export", "-o", dir.file("x"), "--since", "yesterday", "--data-dir", dir.file("data")], environment: Self.env)
        #expect(badTime.status == 2)
        let unknown = try CLI.run(["chats", "export", "nobody", "-o", dir.file("y"), "--data-dir", dir.file("data")], environment: Self.env)
        #expect(unknown.status == 1 && unknown.stderr.contains("no chat is called 'nobody'"), "\(unknown.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("y")))
    }

    @Test func exportAsHTMLWritesPagesAndAnIndexInTheManifestAndRefusesAnExistingIndex() throws {
        let dir = try TempFolder()
        let data = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 60))
        let before = try FolderSnapshot.take(data.directory.root)
        let out = dir.file("export")
        let run = try CLI.run(["chats", "export", "bob", "family", "-o", out, "--format", "html", "--format", "txt", "--data-dir", dir.file("data")],
                              environment: Self.env)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("direct:2 bob: ") && run.stdout.contains("1-alice/direct-2-bob.html, 1-alice/direct-2-bob.txt"), "\(run.stdout)")
        #expect(run.stdout.hasSuffix("open \(out)/index.html in a browser: it lists every exported chat's page\n"), "\(run.stdout)")
        let index = try String(contentsOfFile: Path.join(out, "index.html"), encoding: .utf8)
        #expect(index.contains("<a href=\"1-alice/direct-2-bob.html\">bob</a>") && index.contains("<a href=\"1-alice/group-1-family.html\">family</a>"), "\(index)")
        let page = try String(contentsOfFile: Path.join(out, "1-alice/direct-2-bob.html"), encoding: .utf8)
        #expect(page.hasPrefix("<!DOCTYPE html>") && page.contains("<img class=\"media\" src=\"../media/") && !page.contains("<script"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Path.join(out, "manifest.json")))) as? [String: Any])
        let listed = Set((manifest["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
        #expect(listed.isSuperset(of: ["index.html", "1-alice/direct-2-bob.html", "1-alice/group-1-family.html"]), "\(listed)")
        #expect(manifest["formats"] as? [String] == ["html", "txt"])
        for file in ["index.html", "1-alice/direct-2-bob.html"] {
            #expect(try POSIXFile.status(Path.join(out, file)).st_mode & 0o777 == 0o600, "\(file)")
        }
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only")

        // Another export into the same folder would replace index.html: refused, nothing written.
        let other = dir.file("other")
        try FileManager.default.createDirectory(atPath: other, withIntermediateDirectories: true)
        try Data("my own index".utf8).write(to: URL(fileURLWithPath: Path.join(other, "index.html")))
        let refused = try CLI.run(["chats", "export", "bob", "-o", other, "--format", "html", "--data-dir", dir.file("data")], environment: Self.env)
        #expect(refused.status == 1 && refused.stderr.contains("index.html") && refused.stderr.contains("--force"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: other) == ["index.html"])
        let forced = try CLI.run(["chats", "export", "bob", "-o", other, "--format", "html", "--force", "--data-dir", dir.file("data")], environment: Self.env)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try String(contentsOfFile: Path.join(other, "index.html"), encoding: .utf8).contains("<a href=\"1-alice/direct-2-bob.html\">bob</a>"))
    }
}
