import Foundation
import SXCore
import SXDatabase

/// Writes chat history the way the app stores it: one `messages` row (the JSON event that travelled,
/// on the contact's or the group member's connection) and one `chat_items` row (what the user sees)
/// per message, linked through `chat_item_messages`. `item_content` is in the core's database form
/// (`{"sndMsgContent":{"msgContent":…}}` / `{"rcvMsgContent":{"msgContent":…}}`), not the API's.
struct ChatHistoryWriter {
    /// Rows per transaction when growing the history.
    static let batch = 2000

    /// Who the history is with: each contact's connection, and each group's other members with theirs.
    struct Peers {
        var contacts: [(contact: Int64, connection: Int64)]
        var groups: [(group: Int64, members: [(member: Int64, connection: Int64)])]
    }

    private let peers: Peers
    private var rng: SplitMix64
    private var nextID: Int64 = 1
    private let message: Statement
    private let item: Statement
    private let link: Statement

    init(db: DatabaseConnection, peers: Peers, seed: Int) throws {
        precondition(!peers.contacts.isEmpty, "the sample always has contacts")
        self.peers = peers
        rng = SplitMix64(seed: UInt64(seed) &+ 0xC0FFEE)
        message = try db.prepare("""
            INSERT INTO messages (message_id, msg_sent, chat_msg_event, msg_body, created_at, updated_at, connection_id, group_id,
                                  author_group_member_id, shared_msg_id)
            VALUES (?, ?, 'x.msg.new', ?, ?, ?, ?, ?, ?, ?)
            """)
        item = try db.prepare("""
            INSERT INTO chat_items (chat_item_id, user_id, contact_id, group_id, group_member_id, created_by_msg_id, item_sent, item_ts,
                                    item_content, item_text, item_status, created_at, updated_at, shared_msg_id)
            VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        link = try db.prepare("INSERT INTO chat_item_messages (chat_item_id, message_id, created_at, updated_at) VALUES (?, ?, ?, ?)")
    }

    /// Inserts one message and its chat item in a chat picked at random; returns the item's id.
    mutating func insertItem(text given: String?) throws -> Int64 {
        let sent = rng.next() % 2 == 0
        if !peers.groups.isEmpty, rng.next() % 4 == 0 {
            let group = peers.groups[Int(rng.next() % UInt64(peers.groups.count))]
            let member = group.members[Int(rng.next() % UInt64(group.members.count))]
            return try insert(text: given ?? sentence(), sent: sent, contact: nil, group: group.group,
                              member: sent ? nil : member.member, connection: member.connection)
        }
        return try insertItem(text: given ?? sentence(), with: Int(rng.next() % UInt64(peers.contacts.count)), sent: sent)
    }

    /// Inserts one message and its chat item in the direct chat with `peers.contacts[contactIndex]`.
    mutating func insertItem(text: String, with contactIndex: Int, sent: Bool) throws -> Int64 {
        let contact = peers.contacts[contactIndex % peers.contacts.count]
        return try insert(text: text, sent: sent, contact: contact.contact, group: nil, member: nil, connection: contact.connection)
    }

    private mutating func insert(text: String, sent: Bool, contact: Int64?, group: Int64?, member: Int64?, connection: Int64) throws -> Int64 {
        let id = nextID
        nextID += 1
        // Timestamps walk forward from 2024-01-01, a few minutes apart.
        let ts = Self.timestamp(1_704_067_200 + id * 173)
        let sharedID = (0..<12).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let content = "{\"type\":\"text\",\"text\":\(JSONText.quote(text))}"
        let itemContent = "{\"\(sent ? "sndMsgContent" : "rcvMsgContent")\":{\"msgContent\":\(content)}}"
        let body = "{\"v\":\"1-8\",\"event\":\"x.msg.new\",\"params\":{\"content\":\(content)}}"
        let groupValue: ColumnValue = group.map { .integer($0) } ?? .null
        let memberValue: ColumnValue = member.map { .integer($0) } ?? .null
        try message.bind([.integer(id), .integer(sent ? 1 : 0), .blob(Array(body.utf8)), .text(ts), .text(ts), .integer(connection),
                          groupValue, memberValue, .blob(sharedID)])
        _ = try message.step()
        try message.reset()
        try item.bind([.integer(id), contact.map { .integer($0) } ?? .null, groupValue, memberValue, .integer(id), .integer(sent ? 1 : 0),
                       .text(ts), .text(itemContent), .text(text), .text(sent ? "snd_sent" : "rcv_read"), .text(ts), .text(ts), .blob(sharedID)])
        _ = try item.step()
        try item.reset()
        try link.bind([.integer(id), .integer(id), .text(ts), .text(ts)])
        _ = try link.step()
        try link.reset()
        return id
    }

    private mutating func sentence() -> String {
        let count = 4 + Int(rng.next() % 60)
        var words: [String] = []
        words.reserveCapacity(count)
        for _ in 0..<count { words.append(Self.words[Int(rng.next() % UInt64(Self.words.count))]) }
        return words.joined(separator: " ")
    }

    static func timestamp(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }

    static let words = ["hello", "see", "you", "tomorrow", "at", "the", "station", "photos", "from", "weekend", "relay", "meeting",
                        "moved", "to", "thursday", "can", "you", "send", "file", "again", "thanks", "lunch", "on", "me", "new",
                        "address", "is", "ready", "voice", "call", "later", "great", "idea", "let's", "do", "it", "train", "late",
                        "birthday", "party", "saturday", "bring", "cake", "👍", "ok", "sure", "why", "not", "map", "link"]
}
