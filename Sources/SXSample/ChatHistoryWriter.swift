import Foundation
import SXCore
import SXDatabase

/// Writes chat history the way the core stores it: per message one `messages` row (the JSON event
/// that travelled, on the contact's or the group member's connection) and one `chat_items` row (what
/// the user sees), linked through `chat_item_messages`; events and calls are items without a message;
/// notes are items of a note folder. `item_content` is in the core's database form
/// (`{"sndMsgContent":{"msgContent":…}}`, events nested twice), not the API's.
///
/// Random items get what real conversations have (`SampleItemStyle`): replies, edits with their
/// `chat_item_versions`, deletions and moderation, reactions in `chat_item_reactions`, disappearing
/// and live messages, forwards, link previews, calls and group events, spread over months. Column
/// facts: simplex-chat `chat_schema.sql` @00d600ba (chat_items 450-498, chat_item_versions 569-577,
/// chat_item_reactions 578-591) and `Store/Messages.hs` (how each state is written).
struct ChatHistoryWriter {
    /// Rows per transaction when growing the history.
    static let batch = 2000

    /// Who the history is with: each contact's connection, each group's other members with theirs,
    /// and each user's note folder.
    struct Peers {
        struct Contact {
            var contact: Int64
            var connection: Int64
            var name: String
        }

        struct Member {
            var member: Int64
            var connection: Int64
            /// The shared `member_id` (quotes and reactions name an item's author by it).
            var memberID: [UInt8]
            var name: String
        }

        struct Group {
            var group: Int64
            /// The user's own membership's `member_id`.
            var ownMemberID: [UInt8]
            var members: [Member]
        }

        var contacts: [Contact]
        var groups: [Group]
        /// (user, note folder) pairs.
        var notes: [(user: Int64, folder: Int64)] = [(1, 1), (2, 2)]
    }

    /// Where an item goes.
    enum Place: Hashable {
        case direct(Int)
        /// A group by index, and the sending member's index (nil: the user sent it).
        case group(Int, sender: Int?)
        case notes(Int)

        /// The chat, whoever sent the item.
        var chat: Place {
            if case .group(let g, _) = self { return .group(g, sender: nil) }
            return self
        }
    }

    /// The last message item of a chat, for replies and reactions.
    struct Recent {
        var sharedID: [UInt8]
        var ts: String
        var sent: Bool
        var msgContent: String
        var authorMemberID: [UInt8]?
    }

    private let peers: Peers
    private var rng: SplitMix64
    private var nextID: Int64 = 1
    /// Seconds after 2024-01-01 00:00 UTC of the latest item: the history spans months.
    private var clock: Int64 = 0
    private var recent: [Place: Recent] = [:]
    private let statements: Statements

    init(db: DatabaseConnection, peers: Peers, seed: Int) throws {
        precondition(!peers.contacts.isEmpty, "the sample always has contacts")
        self.peers = peers
        rng = SplitMix64(seed: UInt64(seed) &+ 0xC0FFEE)
        statements = try Statements(db)
    }

    /// Inserts one item in a chat picked at random, in a style picked at random; returns its id.
    mutating func insertItem(text given: String?) throws -> Int64 {
        let sent = rng.next() % 2 == 0
        let place: Place
        let pick = rng.next() % 40
        if pick == 0 {
            place = .notes(Int(rng.next() % UInt64(peers.notes.count)))
        } else if !peers.groups.isEmpty, pick % 4 == 1 {
            let g = Int(rng.next() % UInt64(peers.groups.count))
            let m = Int(rng.next() % UInt64(peers.groups[g].members.count))
            place = .group(g, sender: sent ? nil : m)
        } else {
            place = .direct(Int(rng.next() % UInt64(peers.contacts.count)))
        }
        let text = given ?? sentence()
        var style = SampleItemStyle.plain(text: text)
        if given == nil {
            style = SampleItemStyle.random(text: text, place: place, sent: sent, roll: Int(rng.next() % 100), rng: &rng, peers: peers,
                                           recent: recent[place.chat])
        }
        return try insert(style, place: place, sent: place.isNotes || sent)
    }

    /// Inserts the message that carries a sample file in the direct chat with `peers.contacts[contactIndex]`:
    /// an image, video, voice or file message as the name's extension says.
    mutating func insertFileItem(name: String, with contactIndex: Int, sent: Bool) throws -> Int64 {
        try insert(.file(named: name), place: .direct(contactIndex % peers.contacts.count), sent: sent)
    }

    private mutating func insert(_ style: SampleItemStyle, place: Place, sent: Bool) throws -> Int64 {
        let id = nextID
        nextID += 1
        // A message every 40 minutes on average, a few seconds to a few hours apart.
        clock += 20 + Int64(rng.next() % 4780)
        let ts = Self.timestamp(1_704_067_200 + clock)
        // Received items are recorded a little after the broker's time, often with a fraction (as the core writes UTCTime).
        let created = sent ? ts : Self.timestamp(1_704_067_200 + clock + 1 + Int64(rng.next() % 20), micros: Int(rng.next() % 1_000_000))
        let sharedID: [UInt8]? = style.isMessage && !place.isNotes ? (0..<12).map { _ in UInt8(truncatingIfNeeded: rng.next()) } : nil
        var user: Int64 = 1
        var contact: Int64?, group: Int64?, member: Int64?, folder: Int64?, connection: Int64?
        var authorMemberID: [UInt8]?
        switch place {
        case .direct(let c):
            contact = peers.contacts[c].contact
            connection = peers.contacts[c].connection
        case .group(let g, let sender):
            let chosen = peers.groups[g]
            group = chosen.group
            let m = chosen.members[sender ?? 0]
            connection = m.connection
            member = sender == nil ? nil : m.member
            authorMemberID = sender == nil ? chosen.ownMemberID : m.memberID
        case .notes(let n):
            (user, folder) = peers.notes[n]
        }
        let ciContent = style.itemContent(sent: sent)
        var messageID: Int64?
        if let sharedID, let connection, let msgContent = style.msgContent {
            messageID = id
            let body = "{\"v\":\"1-8\",\"event\":\"x.msg.new\",\"params\":{\"content\":\(msgContent)}}"
            try statements.message.run([.integer(id), .integer(sent ? 1 : 0), .blob(Array(body.utf8)), .text(ts), .text(ts), .integer(connection),
                                        group.map { .integer($0) } ?? .null, member.map { .integer($0) } ?? .null, .blob(sharedID)])
        }
        func value(_ v: Int64?) -> ColumnValue { v.map { .integer($0) } ?? .null }
        func value(_ v: String?) -> ColumnValue { v.map { .text($0) } ?? .null }
        func value(_ v: [UInt8]?) -> ColumnValue { v.map { .blob($0) } ?? .null }
        let quote = style.quote
        let deletedBy: Int64? = style.moderatedByMember.flatMap { m in
            if case .group(let g, _) = place { return peers.groups[g].members[m % peers.groups[g].members.count].member }
            return nil
        }
        let status = place.isNotes ? "snd_new" : sent ? (style.deliveredStatus ? "snd_rcvd ok complete" : "snd_sent complete") : "rcv_read"
        try statements.item.run([
            .integer(id), .integer(user), value(contact), value(group), value(member), value(folder), value(messageID), .integer(sent ? 1 : 0),
            .text(ts), .text(ciContent), .text(style.itemText), .text(status), .text(created), .text(created), value(sharedID),
            value(quote?.sharedID), value(quote?.ts), value(quote?.msgContent), quote.map { .integer($0.sent ? 1 : 0) } ?? .null,
            value(quote?.authorMemberID), style.editedFrom == nil ? .null : .integer(1), value(style.timedTTL),
            value(style.timedTTL.map { Self.timestamp(1_704_067_200 + clock + $0) }), style.live ? .integer(1) : .null,
            .integer(style.deleted), value(deletedBy), style.deleted == 0 ? .null : .text(Self.timestamp(1_704_067_200 + clock + 600)),
            value(style.forwardedFrom.map { _ in "contact" }), value(style.forwardedFrom), style.forwardedFrom == nil ? .null : .integer(0),
        ])
        if let messageID {
            try statements.link.run([.integer(id), .integer(messageID), .text(ts), .text(ts)])
        }
        if let original = style.editedFrom, let current = style.msgContent {
            // The first edit writes the original and the new version; the versions hold text only (MCText).
            for (n, content) in [MessageContentJSON.text(original), current].enumerated() {
                let at = Self.timestamp(1_704_067_200 + clock + Int64(n) * 90)
                try statements.version.run([.integer(id), .text(content), .text(at), .text(at), .text(at)])
            }
        }
        if let sharedID {
            for reaction in style.reactions {
                let reactor: Int64? = {
                    guard !reaction.byMe, case .group(let g, _) = place else { return nil }
                    return peers.groups[g].members[reaction.memberIndex % peers.groups[g].members.count].member
                }()
                let at = Self.timestamp(1_704_067_200 + clock + 30 + Int64(reaction.memberIndex) * 7)
                try statements.reaction.run([value(group == nil ? nil : authorMemberID), .blob(sharedID), value(contact), value(group), value(reactor),
                                             .text(MessageContentJSON.reaction(reaction.emoji)), .integer(reaction.byMe ? 1 : 0), .text(at), .text(at), .text(at)])
            }
            if let msgContent = style.msgContent, style.deleted == 0 {
                recent[place.chat] = Recent(sharedID: sharedID, ts: ts, sent: sent, msgContent: msgContent, authorMemberID: authorMemberID)
            }
        }
        return id
    }

    /// Moves every chat's `chat_ts` to its last item, as the core does when an item arrives.
    static func settleChatTimes(_ db: DatabaseConnection) throws {
        try db.execute("""
            UPDATE contacts SET chat_ts = coalesce((SELECT max(item_ts) FROM chat_items i WHERE i.contact_id = contacts.contact_id), chat_ts) WHERE is_user = 0;
            UPDATE groups SET chat_ts = coalesce((SELECT max(item_ts) FROM chat_items i WHERE i.group_id = groups.group_id), chat_ts);
            UPDATE note_folders SET chat_ts = coalesce((SELECT max(item_ts) FROM chat_items i WHERE i.note_folder_id = note_folders.note_folder_id), chat_ts);
            """)
    }

    private mutating func sentence() -> String {
        // Mostly short messages, now and then a long one.
        let count = rng.next() % 6 == 0 ? 12 + Int(rng.next() % 50) : 2 + Int(rng.next() % 10)
        var words: [String] = []
        words.reserveCapacity(count)
        for _ in 0..<count { words.append(Self.words[Int(rng.next() % UInt64(Self.words.count))]) }
        return words.joined(separator: " ")
    }

    /// The core's UTCTime text: `YYYY-MM-DD HH:MM:SS`, with `.ffffff` only when there is a fraction.
    static func timestamp(_ seconds: Int64, micros: Int = 0) -> String {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        let whole = String(format: "%04d-%02d-%02d %02d:%02d:%02d", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                           Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
        guard micros > 0 else { return whole }
        var fraction = String(format: "%06d", micros)
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return whole + "." + fraction
    }

    static let words = ["hello", "see", "you", "tomorrow", "at", "the", "station", "photos", "from", "weekend", "relay", "meeting",
                        "moved", "to", "thursday", "can", "you", "send", "file", "again", "thanks", "lunch", "on", "me", "new",
                        "address", "is", "ready", "voice", "call", "later", "great", "idea", "let's", "do", "it", "train", "late",
                        "birthday", "party", "saturday", "bring", "cake", "👍", "ok", "sure", "why", "not", "map", "link"]

    /// The prepared inserts.
    private struct Statements {
        let message: Statement
        let item: Statement
        let link: Statement
        let version: Statement
        let reaction: Statement

        init(_ db: DatabaseConnection) throws {
            message = try db.prepare("""
                INSERT INTO messages (message_id, msg_sent, chat_msg_event, msg_body, created_at, updated_at, connection_id, group_id,
                                      author_group_member_id, shared_msg_id)
                VALUES (?, ?, 'x.msg.new', ?, ?, ?, ?, ?, ?, ?)
                """)
            item = try db.prepare("""
                INSERT INTO chat_items (chat_item_id, user_id, contact_id, group_id, group_member_id, note_folder_id, created_by_msg_id, item_sent,
                                        item_ts, item_content, item_text, item_status, created_at, updated_at, shared_msg_id,
                                        quoted_shared_msg_id, quoted_sent_at, quoted_content, quoted_sent, quoted_member_id, item_edited, timed_ttl,
                                        timed_delete_at, item_live, item_deleted, item_deleted_by_group_member_id, item_deleted_ts,
                                        fwd_from_tag, fwd_from_chat_name, fwd_from_msg_dir)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            link = try db.prepare("INSERT INTO chat_item_messages (chat_item_id, message_id, created_at, updated_at) VALUES (?, ?, ?, ?)")
            version = try db.prepare("INSERT INTO chat_item_versions (chat_item_id, msg_content, item_version_ts, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
            reaction = try db.prepare("""
                INSERT INTO chat_item_reactions (item_member_id, shared_msg_id, contact_id, group_id, group_member_id, reaction, reaction_sent,
                                                 reaction_ts, created_at, updated_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        }
    }
}

extension ChatHistoryWriter.Place {
    var isNotes: Bool {
        if case .notes = self { return true }
        return false
    }
}
