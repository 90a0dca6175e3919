import Foundation
import SXCore
import SXDatabase

/// Which chat: a user's direct chat, group or note folder.
public struct ChatReference: Sendable, Hashable {
    public var userId: Int64
    public var kind: ChatSummary.Kind
    public var id: Int64

    public init(userId: Int64, kind: ChatSummary.Kind, id: Int64) {
        self.userId = userId
        self.kind = kind
        self.id = id
    }
}

/// One chat item as the history shows it: who, when, what, and what SimpleX records about it.
public struct ChatMessage: Sendable, Equatable {
    public enum Sender: Sendable, Equatable {
        case me
        /// The contact of a direct chat, by its local display name.
        case contact(String)
        /// A group member, by its local display name.
        case member(String)
        /// A received group item whose member row is gone.
        case unknownMember
    }

    /// `item_deleted` and moderation (simplex-chat `Store/Messages.hs`: 1 deleted, 2 blocked by the
    /// user, 3 blocked by an admin; in a group, 1 with a deleting member is a moderation).
    public enum Deletion: Sendable, Equatable {
        case deleted
        case blocked
        case blockedByAdmin
        case moderated(by: String?)
    }

    public struct Quote: Sendable, Equatable {
        public var sentAt: String?
        /// The user's own message was quoted.
        public var sentByMe: Bool
        /// The quoted message's content (`quoted_content`, MsgContent JSON); nil when unreadable.
        public var content: MessageContent?

        public init(sentAt: String?, sentByMe: Bool, content: MessageContent?) {
            self.sentAt = sentAt
            self.sentByMe = sentByMe
            self.content = content
        }
    }

    public struct File: Sendable, Equatable {
        public var fileId: Int64
        public var name: String
        public var size: Int64
        /// Relative to the files folder, as stored; nil before it was received.
        public var storedPath: String?
        /// `ci_file_status`, e.g. `rcv_complete`.
        public var status: String?
        /// A CryptoFile: the database holds its key and nonce.
        public var encrypted: Bool
        /// The CryptoFile's key and nonce (`file_crypto_key`, `file_crypto_nonce`: raw 32 and 24
        /// bytes, simplexmq `Crypto.hs` `ToField SbKey`/`CbNonce`), for decrypting a copy.
        public var cryptoKey: [UInt8]?
        public var cryptoNonce: [UInt8]?
    }

    public struct Reaction: Sendable, Equatable {
        /// The emoji, or the reaction's raw JSON when it is not an emoji.
        public var reaction: String
        public var count: Int
        public var byMe: Bool

        public init(reaction: String, count: Int, byMe: Bool) {
            self.reaction = reaction
            self.count = count
            self.byMe = byMe
        }
    }

    public var chatItemId: Int64
    public var sender: Sender
    /// `item_ts`: when it was sent (the broker's time for received items), UTC as stored.
    public var sentAt: String
    /// `created_at`: when this device recorded it, UTC as stored.
    public var createdAt: String
    public var content: ChatItemContent
    /// `item_text`: the core's text form of the content.
    public var text: String
    public var deletion: Deletion?
    public var edited: Bool
    public var live: Bool
    /// Disappearing: seconds, and when it will be (or was to be) deleted.
    public var timedTTL: Int64?
    public var timedDeleteAt: String?
    public var quote: Quote?
    /// The chat name a forwarded message came from ("" when unknown); nil when not forwarded.
    public var forwardedFrom: String?
    public var file: File?
    public var reactions: [Reaction]
}

/// Streams one chat's items in the apps' order, one row at a time, so memory stays flat whatever the
/// chat's size. Read-only; columns older profiles lack are probed. The order and the way of reading
/// are the apps': simplex-chat `Store/Messages.hs` reads a chat's ordered ids first and then each item
/// by its id (`getDirectChatItemIdsLast_`/`getDirectCIsAfter_`: `created_at, chat_item_id` for direct
/// chats, as `getLocalChatItemIdsLast_` for notes; `getGroupChatItemIDs`: `item_ts, chat_item_id` for
/// groups). The ids come off the indexes made for this (`chat_schema.sql`
/// `idx_chat_items_contacts_created_at`, `idx_chat_items_notes_created_at`,
/// `idx_chat_items_groups_item_ts`): no sort, and only ids when a profile lacks them.
/// Facts: simplex-chat `chat_schema.sql` (chat_items 450-498, files 264-291, chat_item_reactions
/// 578-591, group_members 209-251) and `Store/Messages.hs` (`toQuote`, `toCIForwardedFrom`, the
/// reaction queries).
public struct ChatHistoryReader {
    let db: DatabaseConnection
    let schema: Schema

    public init(_ db: DatabaseConnection) throws {
        self.db = db
        schema = try Schema(db)
        guard schema.has("chat_items") else { throw ChatReadError.notAChatDatabase }
    }

    /// Calls `body` for every item of `chat` with `item_ts` in [since, until) (stored-form strings,
    /// UTC), in order.
    public func forEach(_ chat: ChatReference, since: String? = nil, until: String? = nil, _ body: (ChatMessage) throws -> Void) throws {
        let items = try cursor(chat, since: since, until: until)
        while try items.advance() { try body(try items.message()) }
    }

    /// A cursor over `chat`'s items with `item_ts` in [since, until), in order.
    public func cursor(_ chat: ChatReference, since: String? = nil, until: String? = nil) throws -> ChatItemCursor {
        let order = Self.orderColumn(chat.kind)
        let ids = try windowed("SELECT i.chat_item_id, i.\(order) FROM chat_items i WHERE i.user_id = ?1 AND \(chatFilter(chat.kind))",
                               chat: chat, since: since, until: until, orderedBy: "i.\(order), i.chat_item_id")
        let contactName = chat.kind == .direct ? try db.prepare("SELECT local_display_name FROM contacts WHERE contact_id = ?1").first(chat.id) : nil
        // The user's own member id in a group: the author of the group's sent items, for their reactions.
        var ownMemberId: [UInt8]?
        if chat.kind == .group, schema.has("group_members", "member_category") {
            let own = try db.prepare("SELECT member_id FROM group_members WHERE group_id = ?1 AND member_category = 'user' LIMIT 1")
            try own.bind(chat.id, at: 1)
            if try own.step(), !own.isNull(0) { ownMemberId = own.blob(0) }
        }
        let row = try db.prepare(itemQuery(chat.kind))
        if let ownMemberId { try row.bind(ownMemberId, at: 2) }
        return ChatItemCursor(reader: self, chat: chat, ids: ids, row: row, contactName: contactName,
                              reactions: try ReactionLookup(db, schema, chat: chat))
    }

    /// The column a chat's items are ordered by (with `chat_item_id` after it), as the apps order them.
    static func orderColumn(_ kind: ChatSummary.Kind) -> String {
        kind == .group ? "item_ts" : "created_at"
    }

    /// One item by its id (?1), with its sender, moderator and file; ?2 is the user's own member id in
    /// a group (the author of its sent items).
    private func itemQuery(_ kind: ChatSummary.Kind) -> String {
        func column(_ name: String, _ otherwise: String = "NULL") -> String { schema.has("chat_items", name) ? "i.\(name)" : otherwise }
        let member = schema.has("group_members") ? "m.local_display_name" : "NULL"
        let moderator = schema.has("group_members") && schema.has("chat_items", "item_deleted_by_group_member_id") ? "dm.local_display_name" : "NULL"
        let hasFiles = schema.has("files") && schema.has("files", "chat_item_id")
        let crypto = schema.has("files", "file_crypto_key") ? "f.file_crypto_key IS NOT NULL AND f.file_crypto_nonce IS NOT NULL" : "0"
        let keys = schema.has("files", "file_crypto_key") ? "f.file_crypto_key, f.file_crypto_nonce" : "NULL, NULL"
        let fileColumns = hasFiles ? "f.file_id, f.file_name, f.file_size, f.file_path, f.ci_file_status, \(crypto)" : "NULL, NULL, NULL, NULL, NULL, 0"
        var sql = """
            SELECT i.chat_item_id, i.item_sent, i.item_ts, i.created_at, i.item_content, i.item_text, \(column("item_deleted", "0")),
                   \(column("item_edited")), \(column("item_live")), \(column("timed_ttl")), \(column("timed_delete_at")),
                   \(column("quoted_sent_at")), \(column("quoted_content")), \(column("quoted_sent")),
                   \(column("fwd_from_tag")), \(column("fwd_from_chat_name")), \(column("shared_msg_id")),
                   \(column("group_member_id")), \(member), \(moderator), \(fileColumns),
                   \(schema.has("group_members") && kind == .group ? "coalesce(m.member_id, ?2)" : "NULL"),
                   \(hasFiles ? keys : "NULL, NULL")
            FROM chat_items i
            """
        if schema.has("group_members") {
            sql += " LEFT JOIN group_members m ON m.group_member_id = \(column("group_member_id"))"
            if moderator != "NULL" { sql += " LEFT JOIN group_members dm ON dm.group_member_id = i.item_deleted_by_group_member_id" }
        }
        if hasFiles { sql += " LEFT JOIN files f ON f.chat_item_id = i.chat_item_id" }
        return sql + " WHERE i.chat_item_id = ?1"
    }

    /// `select` (whose WHERE takes the user as ?1 and the chat as ?2) limited to `item_ts` in
    /// [since, until) and ordered, prepared and bound.
    private func windowed(_ select: String, chat: ChatReference, since: String?, until: String?, orderedBy order: String) throws -> Statement {
        var sql = select
        if since != nil { sql += " AND i.item_ts >= ?3" }
        if until != nil { sql += " AND i.item_ts < ?4" }
        let statement = try db.prepare(sql + " ORDER BY " + order)
        try statement.bind(chat.userId, at: 1)
        try statement.bind(chat.id, at: 2)
        if let since { try statement.bind(since, at: 3) }
        if let until { try statement.bind(until, at: 4) }
        return statement
    }

    /// The `WHERE` term that picks one chat's items (its id bound as ?2); a group's member-support
    /// sub-chats are not the group's.
    private func chatFilter(_ kind: ChatSummary.Kind) -> String {
        switch kind {
        case .direct: return "i.contact_id = ?2"
        case .group: return "i.group_id = ?2" + (schema.has("chat_items", "group_scope_tag") ? " AND i.group_scope_tag IS NULL" : "")
        case .notes: return "i.note_folder_id = ?2"
        }
    }

    /// The files of `chat`'s items in the window that have a stored path: what an export copies.
    public func storedFiles(_ chat: ChatReference, since: String? = nil, until: String? = nil) throws -> [(fileId: Int64, name: String)] {
        guard schema.has("files"), schema.has("files", "chat_item_id") else { return [] }
        let statement = try windowed("SELECT f.file_id, f.file_name FROM files f JOIN chat_items i ON i.chat_item_id = f.chat_item_id "
                                     + "WHERE i.user_id = ?1 AND \(chatFilter(chat.kind)) AND f.file_path IS NOT NULL AND f.file_path != ''",
                                     chat: chat, since: since, until: until, orderedBy: "f.file_id")
        var out: [(Int64, String)] = []
        while try statement.step() { out.append((statement.int64(0), statement.text(1) ?? "")) }
        return out
    }

    func message(_ row: Statement, chat: ChatReference, contactName: String?, reactions: ReactionLookup?) throws -> ChatMessage {
        let sent = row.int64(1) != 0
        let sender: ChatMessage.Sender
        if sent {
            sender = .me
        } else if chat.kind == .group {
            sender = row.text(18).map { .member($0) } ?? .unknownMember
        } else {
            sender = .contact(contactName ?? "")
        }
        let deletion: ChatMessage.Deletion?
        switch row.int64(6) {
        case 0: deletion = nil
        case 2: deletion = .blocked
        case 3: deletion = .blockedByAdmin
        default: deletion = chat.kind == .group && row.text(19) != nil ? .moderated(by: row.text(19)) : .deleted
        }
        let content = ChatItemContent.parse(row.text(4) ?? "")
        var quote: ChatMessage.Quote?
        if let quotedAt = row.text(11), let quoted = row.text(12) {
            let parsed = ChatItemContent.parse(#"{"sndMsgContent":{"msgContent":"# + quoted + "}}")
            if case .message(_, let c) = parsed { quote = .init(sentAt: quotedAt, sentByMe: row.int64(13) != 0, content: c) } else {
                quote = .init(sentAt: quotedAt, sentByMe: row.int64(13) != 0, content: nil)
            }
        }
        // A forward is recorded by its tag; the chat name goes with `contact` and `group` (`toCIForwardedFrom`).
        let forwarded = row.text(14).map { _ in row.text(15) ?? "" }
        var file: ChatMessage.File?
        if !row.isNull(20) {
            let encrypted = row.int64(25) != 0
            file = .init(fileId: row.int64(20), name: row.text(21) ?? "", size: row.int64(22), storedPath: row.text(23), status: row.text(24),
                         encrypted: encrypted, cryptoKey: encrypted ? row.blob(27) : nil, cryptoNonce: encrypted ? row.blob(28) : nil)
        }
        let shared = row.isNull(16) ? nil : row.blob(16)
        let found = try shared.flatMap { try reactions?.reactions(sharedMsgId: $0, itemMemberId: row.isNull(26) ? nil : row.blob(26)) } ?? []
        return ChatMessage(chatItemId: row.int64(0), sender: sender, sentAt: row.text(2) ?? "", createdAt: row.text(3) ?? "",
                           content: content, text: row.text(5) ?? "", deletion: deletion, edited: row.int64(7) != 0, live: row.int64(8) != 0,
                           timedTTL: row.isNull(9) ? nil : row.int64(9), timedDeleteAt: row.text(10), quote: quote, forwardedFrom: forwarded,
                           file: file, reactions: found)
    }
}

/// The reactions to an item, grouped as the apps show them: per reaction, how many and whether the
/// user is among them (direct: by chat and `shared_msg_id`; group: also by the author's `member_id`).
final class ReactionLookup {
    private let statement: Statement
    private let group: Bool

    init?(_ db: DatabaseConnection, _ schema: Schema, chat: ChatReference) throws {
        guard schema.has("chat_item_reactions"), chat.kind != .notes else { return nil }
        group = chat.kind == .group
        let where_ = group ? "group_id = ?1 AND shared_msg_id = ?2 AND item_member_id = ?3" : "contact_id = ?1 AND shared_msg_id = ?2"
        statement = try db.prepare("SELECT reaction, count(*), max(reaction_sent) FROM chat_item_reactions WHERE \(where_) GROUP BY reaction ORDER BY min(chat_item_reaction_id)")
        try statement.bind(chat.id, at: 1)
    }

    func reactions(sharedMsgId: [UInt8], itemMemberId: [UInt8]?) throws -> [ChatMessage.Reaction] {
        if group && itemMemberId == nil { return [] }
        try statement.reset()
        try statement.bind(sharedMsgId, at: 2)
        if group, let itemMemberId { try statement.bind(itemMemberId, at: 3) }
        var out: [ChatMessage.Reaction] = []
        while try statement.step() {
            let raw = statement.text(0) ?? ""
            out.append(.init(reaction: ReactionText.emoji(raw) ?? raw, count: Int(statement.int64(1)), byMe: statement.int64(2) != 0))
        }
        return out
    }
}

/// `{"type":"emoji","emoji":"👍"}` (simplex-chat `Protocol.hs` `MsgReaction`) → "👍"; nil for any
/// other kind of reaction (kept raw by the caller).
enum ReactionText {
    static func emoji(_ json: String) -> String? {
        guard let data = json.data(using: .utf8),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              object["type"] as? String == "emoji" else { return nil }
        return object["emoji"] as? String
    }
}

extension Statement {
    /// The first column of the first row for `id`, or nil.
    func first(_ id: Int64) throws -> String? {
        try bind(id, at: 1)
        return try step() ? text(0) : nil
    }
}
