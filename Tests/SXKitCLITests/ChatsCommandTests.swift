import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport

/// `sxkit chats list` as a user runs it on the sample profile.
@Suite struct ChatsCommandTests {
    static let env = ["SXKIT_PASSPHRASE": "correct horse battery staple"]

    @Test func listsEveryUsersChatsAsTextAndJSONWithoutChangingAByte() throws {
        let dir = try TempFolder()
        let data = try SampleDataDirectory.create(at: dir.file("data"), options: .init(photos: 1, documents: 2, chatItems: 120))
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
        #expect(text.stdout.contains("  notes      1  Private notes\n                0 message(s)\n"), "\(text.stdout)")
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only")
    }

    @Test func aWrongPassphraseOrAFolderWithoutDatabasesIsAClearError() throws {
        let dir = try TempFolder()
        _ = try SampleDataDirectory.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 10))
        let wrong = try CLI.run(["chats", "list", "--data-dir", dir.file("data")], environment: ["SXKIT_PASSPHRASE": "wrong"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("passphrase"), "\(wrong.stderr)")
        #expect(wrong.stdout.isEmpty)
        try FileManager.default.createDirectory(atPath: dir.file("empty"), withIntermediateDirectories: true)
        let empty = try CLI.run(["chats", "list", "--data-dir", dir.file("empty")], environment: Self.env)
        #expect(empty.status != 0)
        #expect(empty.stderr.contains("not a SimpleX data directory"), "\(empty.stderr)")
    }
}
