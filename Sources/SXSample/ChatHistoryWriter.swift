import Foundation
import SXCore
import SXDatabase

/// Writes chat history the way the app stores it: one `messages` row (the JSON event that travelled)
/// and one `chat_items` row (what the user sees) per message, linked through `chat_item_messages`.
struct ChatHistoryWriter {
    /// Rows per transaction when growing the history.
    static let batch = 2000

    let contacts: Int
    let groups: Int
    private var rng: SplitMix64
    private var nextID: Int64 = 1
    private let message: Statement
    private let item: Statement
    private let link: Statement

    init(db: DatabaseConnection, contacts: Int, groups: Int, seed: Int) throws {
        self.contacts = max(contacts, 1)
        self.groups = groups
        rng = SplitMix64(seed: UInt64(seed) &+ 0xC0FFEE)
        message = try db.prepare("INSERT INTO messages (message_id, msg_sent, chat_msg_event, msg_body, created_at) VALUES (?, ?, 'x.msg.new', ?, ?)")
        item = try db.prepare("""
            INSERT INTO chat_items (chat_item_id, user_id, contact_id, group_id, created_by_msg_id, item_sent, item_ts, item_content, item_text, item_status)
            VALUES (?, 1, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        link = try db.prepare("INSERT INTO chat_item_messages (chat_item_id, message_id) VALUES (?, ?)")
    }

    /// Inserts one message and its chat item; returns the item's id.
    mutating func insertItem(text given: String?) throws -> Int64 {
        let id = nextID
        nextID += 1
        let text = given ?? sentence()
        let sent = rng.next() % 2 == 0
        let inGroup = groups > 0 && rng.next() % 4 == 0
        let contact: ColumnValue = inGroup ? .null : .integer(Int64(2 + Int(rng.next() % UInt64(contacts))))
        let group: ColumnValue = inGroup ? .integer(Int64(1 + Int(rng.next() % UInt64(groups)))) : .null
        // Timestamps walk forward from 2024-01-01, a few minutes apart.
        let seconds = 1_704_067_200 + id * 173
        let ts = Self.timestamp(seconds)
        let content = "{\"type\":\"\(sent ? "sndMsgContent" : "rcvMsgContent")\",\"msgContent\":{\"type\":\"text\",\"text\":\(JSONText.quote(text))}}"
        let body = "{\"v\":\"1-8\",\"event\":\"x.msg.new\",\"params\":{\"content\":{\"type\":\"text\",\"text\":\(JSONText.quote(text))}}}"
        try message.bind([.integer(id), .integer(sent ? 1 : 0), .blob(Array(body.utf8)), .text(ts)])
        _ = try message.step()
        try message.reset()
        try item.bind([.integer(id), contact, group, .integer(id), .integer(sent ? 1 : 0), .text(ts), .text(content), .text(text),
                       .text(sent ? "snd_sent" : "rcv_read")])
        _ = try item.step()
        try item.reset()
        try link.bind([.integer(id), .integer(id)])
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
