import Foundation
import Testing
import SXChats
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// `chats list`'s reader against the sample profile: its counts are the `sqlcipher` shell's, it
/// changes nothing, and it marks what the apps hide.
@Suite(.ownThreads) struct ChatCatalogTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    func sample(_ folder: TempFolder, walMode: Bool = false) throws -> SampleDataDirectory {
        try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 3, chatItems: 300, walMode: walMode))
    }

    func catalog(_ path: String) throws -> [ChatUserSummary] {
        try ReadAccess.read(path, passphrase: Self.passphrase) { db, _ in try ChatCatalog.read(db) }
    }

    /// Rows of `|`-separated columns from the shell.
    func shell(_ path: String, _ sql: String) throws -> [[String]] {
        let run = try sqlcipherShell(path, "PRAGMA key = 'correct horse battery staple';\n.headers off\n.mode list\n\(sql);\n")
        #expect(run.status == 0, "\(run.error)")
        return run.output.split(separator: "\n").map { $0.split(separator: "|", omittingEmptySubsequences: false).map(String.init) }.filter { $0 != ["ok"] }
    }

    @Test("every chat's item and file counts and times are those the sqlcipher shell computes", .enabled(if: sqlcipherShellInstalled))
    func countsMatchTheShell() throws {
        let folder = try TempFolder("sxkit-chats")
        let data = try sample(folder)
        let users = try catalog(data.directory.chatDatabase)
        let names = try shell(data.directory.chatDatabase, "SELECT user_id, local_display_name FROM users ORDER BY user_id")
        #expect(users.map { ["\($0.userId)", $0.displayName] } == names)
        #expect(users.first?.active == true)

        var mine: [String: [String]] = [:]
        for user in users {
            for chat in user.chats where chat.messages > 0 {
                let column = chat.kind == .direct ? "c" : chat.kind == .group ? "g" : "n"
                mine["\(user.userId)/\(column)\(chat.id)"] = ["\(chat.messages)", chat.firstMessageAt ?? "", chat.lastMessageAt ?? "", "\(chat.files)", "\(chat.fileBytes)"]
            }
        }
        let items = try shell(data.directory.chatDatabase, """
            SELECT i.user_id || '/' || CASE WHEN i.contact_id IS NOT NULL THEN 'c' || i.contact_id WHEN i.group_id IS NOT NULL THEN 'g' || i.group_id ELSE 'n' || i.note_folder_id END AS chat,
                   count(*), min(i.item_ts), max(i.item_ts),
                   (SELECT count(*) FROM files f JOIN chat_items j ON j.chat_item_id = f.chat_item_id WHERE j.user_id = i.user_id AND j.contact_id IS i.contact_id AND j.group_id IS i.group_id AND j.note_folder_id IS i.note_folder_id),
                   (SELECT coalesce(sum(f.file_size), 0) FROM files f JOIN chat_items j ON j.chat_item_id = f.chat_item_id WHERE j.user_id = i.user_id AND j.contact_id IS i.contact_id AND j.group_id IS i.group_id AND j.note_folder_id IS i.note_folder_id)
            FROM chat_items i GROUP BY i.user_id, i.contact_id, i.group_id, i.note_folder_id
            """)
        let theirs = Dictionary(uniqueKeysWithValues: items.map { ($0[0], Array($0.dropFirst())) })
        #expect(mine == theirs)
        #expect(mine.values.contains { Int($0[3])! > 0 }, "the sample has chats with files")
        #expect(users.flatMap(\.chats).contains { $0.kind == .group && $0.messages > 0 })
        // The users' own contacts are not chats; every other contact, group and note folder is.
        let chats = try shell(data.directory.chatDatabase, """
            SELECT (SELECT count(*) FROM contacts WHERE is_user = 0 AND deleted = 0) + (SELECT count(*) FROM groups) + (SELECT count(*) FROM note_folders)
            """)
        #expect(users.reduce(0) { $0 + $1.chats.count } == Int(chats[0][0])!)
    }

    @Test("reading changes no byte, time or file of the data directory, also with a WAL", arguments: [false, true])
    func readOnly(walMode: Bool) throws {
        let folder = try TempFolder("sxkit-chats")
        let data = try sample(folder, walMode: walMode)
        let before = try FolderSnapshot.take(data.directory.root)
        #expect(try !catalog(data.directory.chatDatabase).isEmpty)
        #expect(try FolderSnapshot.take(data.directory.root) == before)
    }

    @Test("a hidden profile and a deleted contact with messages are listed and marked; one without messages is not")
    func hiddenAndDeleted() throws {
        let folder = try TempFolder("sxkit-chats")
        let data = try sample(folder)
        let (db, _) = try DatabaseOpener.open(data.directory.chatDatabase, passphrase: Self.passphrase, mode: .readWrite)
        let withItems = try #require(try db.scalarInt("SELECT contact_id FROM chat_items WHERE contact_id IS NOT NULL AND user_id = 1 ORDER BY contact_id LIMIT 1"))
        let withoutItems = try #require(try db.scalarInt(
            "SELECT contact_id FROM chat_items WHERE contact_id > \(withItems) AND user_id = 1 ORDER BY contact_id LIMIT 1"))
        try db.execute("DELETE FROM chat_items WHERE contact_id = \(withoutItems)")
        try db.execute("UPDATE users SET view_pwd_hash = x'01', view_pwd_salt = x'02' WHERE user_id = 2")
        try db.execute("UPDATE contacts SET deleted = 1 WHERE contact_id IN (\(withItems), \(withoutItems))")
        let noteFolder = try #require(try db.scalarInt("SELECT note_folder_id FROM note_folders WHERE user_id = 1"))
        let notesBefore = try #require(try db.scalarInt("SELECT count(*) FROM chat_items WHERE note_folder_id = \(noteFolder)"))
        try db.execute("""
            INSERT INTO chat_items (user_id, note_folder_id, item_sent, item_ts, item_content, item_text, created_at, updated_at, item_status)
            VALUES (1, \(noteFolder), 1, '2026-01-02 03:04:05.123456', '{"sndMsgContent":{"msgContent":{"type":"text","text":"note"}}}', 'note',
                    '2026-01-02 03:04:05', '2026-01-02 03:04:05', 'snd_sent')
            """)
        let users = try catalog(data.directory.chatDatabase)
        #expect(users.map(\.hidden) == [false, true])
        let chats = users[0].chats
        #expect(chats.first { $0.kind == .direct && $0.id == withItems }?.deleted == true)
        #expect(!chats.contains { $0.kind == .direct && $0.id == withoutItems })
        let notes = try #require(chats.first { $0.kind == .notes })
        #expect(notes.displayName == ChatCatalog.notesName && notes.messages == notesBefore + 1 && notes.lastMessageAt == "2026-01-02 03:04:05.123456")
        #expect(chats.first?.kind == .notes, "most recent first")
    }

    @Test("the agent database is not a chat database; an old schema without notes or group scopes still reads")
    func otherSchemas() throws {
        let folder = try TempFolder("sxkit-chats")
        let data = try sample(folder)
        #expect(throws: ChatReadError.notAChatDatabase) { try catalog(data.directory.agentDatabase) }

        let old = folder.file("old.db")
        let (db, _) = try DatabaseOpener.open(old, passphrase: SecretBytes([]), mode: .readWriteCreate)
        try db.execute("""
            CREATE TABLE users (user_id INTEGER PRIMARY KEY, contact_id INTEGER, local_display_name TEXT, active_user INTEGER);
            CREATE TABLE contacts (contact_id INTEGER PRIMARY KEY, user_id INTEGER, local_display_name TEXT, is_user INTEGER);
            CREATE TABLE chat_items (chat_item_id INTEGER PRIMARY KEY, user_id INTEGER, contact_id INTEGER, group_id INTEGER, item_ts TEXT);
            INSERT INTO users VALUES (1, 1, 'me', 1);
            INSERT INTO contacts VALUES (1, 1, 'me', 1), (2, 1, 'bob', 0);
            INSERT INTO chat_items VALUES (1, 1, 2, NULL, '2021-05-01 10:00:00'), (2, 1, 2, NULL, '2021-05-02 10:00:00');
            """)
        let users = try ReadAccess.read(old, passphrase: nil) { db, _ in try ChatCatalog.read(db) }
        #expect(users.count == 1 && users[0].hidden == false)
        #expect(users[0].chats.map { "\($0.kind) \($0.displayName) \($0.messages) \($0.lastMessageAt ?? "")" } == ["direct bob 2 2021-05-02 10:00:00"])
    }
}
