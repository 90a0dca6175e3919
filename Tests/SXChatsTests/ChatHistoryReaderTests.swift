import Foundation
import Testing
import SXChats
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// One chat's items as the history shows them, from rows written here the way the core writes them
/// (simplex-chat `chat_schema.sql` columns) over the sample's own varied history.
@Suite(.ownThreads) struct ChatHistoryReaderTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    struct Fixture {
        let folder: TempFolder
        let data: SampleDataDirectory
        var path: String { data.directory.chatDatabase }

        init() throws {
            folder = try TempFolder("sxkit-history")
            data = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 1, chatItems: 150))
        }

        func write(_ sql: String) throws {
            let (db, _) = try DatabaseOpener.open(path, passphrase: ChatHistoryReaderTests.passphrase, mode: .readWrite)
            try db.execute(sql)
        }

        func scalar(_ sql: String) throws -> Int64 {
            let (db, _) = try DatabaseOpener.open(path, passphrase: ChatHistoryReaderTests.passphrase, mode: .readOnly)
            return try #require(try db.scalarInt(sql))
        }

        func history(_ chat: ChatReference, since: String? = nil, until: String? = nil) throws -> [ChatMessage] {
            try ReadAccess.read(path, passphrase: ChatHistoryReaderTests.passphrase) { db, _ in
                var out: [ChatMessage] = []
                try ChatHistoryReader(db).forEach(chat, since: since, until: until) { out.append($0) }
                return out
            }
        }
    }

    @Test("a direct chat in order: senders, quotes, edits, deletion, disappearing, forwards, files and reactions")
    func directChat() throws {
        let f = try Fixture()
        let contact = try f.scalar("SELECT contact_id FROM chat_items WHERE contact_id IS NOT NULL AND item_sent = 0 ORDER BY contact_id LIMIT 1")
        let stored = try ReadAccess.read(f.path, passphrase: Self.passphrase) { db, _ in
            try db.rows("SELECT local_display_name FROM contacts WHERE contact_id = \(contact)").first?.first
        }
        guard case .text(let name)? = stored else {
            Issue.record("no contact name")
            return
        }
        let ids = try ReadAccess.read(f.path, passphrase: Self.passphrase) { db, _ in
            try db.rows("SELECT chat_item_id FROM chat_items WHERE contact_id = \(contact) ORDER BY created_at, chat_item_id").compactMap { row -> Int64? in
                if case .integer(let v) = row[0] { return v } else { return nil }
            }
        }
        // Four plain messages of the chat (the sample's history has every state; these have none yet).
        let plain = try ReadAccess.read(f.path, passphrase: Self.passphrase) { db, _ in
            try db.rows("""
                SELECT chat_item_id FROM chat_items i WHERE contact_id = \(contact) AND item_deleted = 0 AND quoted_sent_at IS NULL
                  AND item_edited IS NULL AND timed_ttl IS NULL AND fwd_from_tag IS NULL AND item_live IS NULL AND item_content LIKE '%MsgContent%'
                  AND NOT EXISTS (SELECT 1 FROM chat_item_reactions r WHERE r.contact_id = i.contact_id AND r.shared_msg_id = i.shared_msg_id)
                ORDER BY item_ts, chat_item_id LIMIT 4
                """).compactMap { row -> Int64? in
                if case .integer(let v) = row[0] { return v } else { return nil }
            }
        }
        try #require(plain.count == 4)
        try f.write("""
            UPDATE chat_items SET quoted_sent_at = '2024-01-01 00:00:01', quoted_content = '{"type":"text","text":"the original"}', quoted_sent = 1,
                   item_edited = 1 WHERE chat_item_id = \(plain[1]);
            UPDATE chat_items SET item_deleted = 1 WHERE chat_item_id = \(plain[2]);
            UPDATE chat_items SET timed_ttl = 86400, timed_delete_at = '2024-01-02 00:00:00', fwd_from_tag = 'contact', fwd_from_chat_name = 'dave',
                   fwd_from_msg_dir = 0 WHERE chat_item_id = \(plain[3]);
            INSERT INTO chat_item_reactions (shared_msg_id, contact_id, reaction, reaction_sent, reaction_ts)
                SELECT shared_msg_id, contact_id, '{"type":"emoji","emoji":"👍"}', 1, '2024-01-01 01:00:00' FROM chat_items WHERE chat_item_id = \(plain[0]);
            INSERT INTO chat_item_reactions (shared_msg_id, contact_id, reaction, reaction_sent, reaction_ts)
                SELECT shared_msg_id, contact_id, '{"type":"emoji","emoji":"👍"}', 0, '2024-01-01 01:00:01' FROM chat_items WHERE chat_item_id = \(plain[0]);
            INSERT INTO chat_item_reactions (shared_msg_id, contact_id, reaction, reaction_sent, reaction_ts)
                SELECT shared_msg_id, contact_id, '{"type":"sticker","pack":"x"}', 0, '2024-01-01 01:00:02' FROM chat_items WHERE chat_item_id = \(plain[0]);
            """)
        let history = try f.history(ChatReference(userId: 1, kind: .direct, id: contact))
        #expect(history.map(\.chatItemId) == ids)
        #expect(history.allSatisfy { $0.sender == .me || $0.sender == .contact(name) })
        #expect(history.contains { $0.sender == .me } && history.contains { $0.sender == .contact(name) })
        let picked = try plain.map { id in try #require(history.first { $0.chatItemId == id }) }
        #expect(picked[0].reactions == [.init(reaction: "👍", count: 2, byMe: true), .init(reaction: #"{"type":"sticker","pack":"x"}"#, count: 1, byMe: false)])
        #expect(picked[1].quote == .init(sentAt: "2024-01-01 00:00:01", sentByMe: true, content: MessageContent(type: "text", text: "the original")))
        #expect(picked[1].edited && picked[1].deletion == nil)
        #expect(picked[2].deletion == .deleted)
        #expect(picked[3].timedTTL == 86400 && picked[3].timedDeleteAt == "2024-01-02 00:00:00" && picked[3].forwardedFrom == "dave")
        // A direct chat holds messages and calls.
        #expect(history.allSatisfy { switch $0.content { case .message, .call: return true; default: return false } })
        let withFile = history.filter { $0.file != nil }
        let files = try f.scalar("SELECT count(*) FROM files f JOIN chat_items i ON i.chat_item_id = f.chat_item_id WHERE i.contact_id = \(contact)")
        #expect(Int64(withFile.count) == files)

        // A window of item_ts: [since, until).
        let window = try f.history(ChatReference(userId: 1, kind: .direct, id: contact), since: history[1].sentAt, until: history[3].sentAt)
        #expect(window.map(\.chatItemId) == history.filter { $0.sentAt >= history[1].sentAt && $0.sentAt < history[3].sentAt }.map(\.chatItemId))
        #expect(!window.isEmpty)
    }

    @Test("the apps' order: direct chats and notes by created_at (when this device recorded the item), groups by item_ts, ties by id")
    func order() throws {
        let f = try Fixture()
        let contact = try f.scalar("SELECT contact_id FROM chat_items WHERE contact_id IS NOT NULL ORDER BY contact_id LIMIT 1")
        let group = try f.scalar("SELECT group_id FROM chat_items WHERE group_id IS NOT NULL ORDER BY group_id LIMIT 1")
        func ids(_ sql: String) throws -> [Int64] {
            try ReadAccess.read(f.path, passphrase: Self.passphrase) { db, _ in
                try db.rows(sql).compactMap { row -> Int64? in if case .integer(let v) = row[0] { return v } else { return nil } }
            }
        }
        let direct = try ids("SELECT chat_item_id FROM chat_items WHERE contact_id = \(contact) ORDER BY chat_item_id LIMIT 3")
        let inGroup = try ids("SELECT chat_item_id FROM chat_items WHERE group_id = \(group) ORDER BY chat_item_id LIMIT 3")
        try #require(direct.count == 3 && inGroup.count == 3)
        // A message delivered late: sent (item_ts) before the chat's first item, recorded (created_at) after
        // its third. The direct chat shows it where it was recorded; a group item with the same times
        // goes where it was sent. Two items recorded at the same instant keep their id order.
        try f.write("""
            UPDATE chat_items SET item_ts = '2000-01-01 00:00:00', created_at = '2099-01-01 00:00:00' WHERE chat_item_id IN (\(direct[0]), \(inGroup[0]));
            UPDATE chat_items SET created_at = '2099-01-01 00:00:00' WHERE chat_item_id = \(direct[1]);
            """)
        let directUser = try f.scalar("SELECT user_id FROM contacts WHERE contact_id = \(contact)")
        let groupUser = try f.scalar("SELECT user_id FROM groups WHERE group_id = \(group)")
        let directOrder = try f.history(ChatReference(userId: directUser, kind: .direct, id: contact)).map(\.chatItemId)
        #expect(Array(directOrder.suffix(2)) == [direct[0], direct[1]])
        #expect(directOrder.first == direct[2])
        let groupOrder = try f.history(ChatReference(userId: groupUser, kind: .group, id: group)).map(\.chatItemId)
        #expect(groupOrder.first == inGroup[0])
        #expect(groupOrder == (try ids("SELECT chat_item_id FROM chat_items WHERE group_id = \(group) AND group_scope_tag IS NULL ORDER BY item_ts, chat_item_id")))
    }

    @Test("a group: members by name, the user as me, moderation by a member, blocking")
    func groupChat() throws {
        let f = try Fixture()
        let group = try f.scalar("SELECT group_id FROM chat_items WHERE group_id IS NOT NULL AND item_sent = 0 ORDER BY group_id LIMIT 1")
        let received = try f.scalar("SELECT chat_item_id FROM chat_items WHERE group_id = \(group) AND item_sent = 0 ORDER BY item_ts, chat_item_id LIMIT 1")
        let blocked = try f.scalar("SELECT chat_item_id FROM chat_items WHERE group_id = \(group) AND item_sent = 0 ORDER BY item_ts DESC, chat_item_id DESC LIMIT 1")
        let moderator = try f.scalar("SELECT group_member_id FROM group_members WHERE group_id = \(group) AND member_category = 'user'")
        try f.write("""
            UPDATE chat_items SET item_deleted = 1, item_deleted_by_group_member_id = \(moderator), item_content = '{"rcvModerated":{}}', item_text = 'moderated'
                WHERE chat_item_id = \(received);
            UPDATE chat_items SET item_deleted = 2 WHERE chat_item_id = \(blocked);
            """)
        let history = try f.history(ChatReference(userId: 1, kind: .group, id: group))
        let names = try ReadAccess.read(f.path, passphrase: Self.passphrase) { db, _ in
            try db.rows("SELECT i.chat_item_id, m.local_display_name FROM chat_items i JOIN group_members m ON m.group_member_id = i.group_member_id WHERE i.group_id = \(group)")
        }
        #expect(history.count == Int(try f.scalar("SELECT count(*) FROM chat_items WHERE group_id = \(group)")))
        for row in names {
            guard case .integer(let id) = row[0], case .text(let name) = row[1], let item = history.first(where: { $0.chatItemId == id }) else { continue }
            #expect(item.sender == .member(name))
        }
        #expect(history.contains { $0.sender == .me })
        let moderated = try #require(history.first { $0.chatItemId == received })
        #expect(moderated.deletion == .moderated(by: "alice") && moderated.content == .moderated(.received))
        #expect(history.first { $0.chatItemId == blocked }?.deletion == .blocked)
    }
}
