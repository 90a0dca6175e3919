import Foundation
import SXCore

/// What one sample chat item is and what the core records about it: its content (a message, a call
/// or a group event, in the database's JSON form) and its state (reply, edit, deletion, reactions,
/// timer, live, forward). `random` picks one the way conversations have them: mostly plain messages,
/// a few percent of each other kind.
struct SampleItemStyle {
    enum Kind {
        /// A message; its MsgContent JSON.
        case message(String)
        /// `sndCall`/`rcvCall`: status and seconds.
        case call(status: String, duration: Int)
        /// `rcvGroupEvent` with a nullary inner event (`memberConnected`, `memberLeft`).
        case groupEvent(String)
        /// `rcvModerated`/`sndModerated`: the content was replaced when a moderator removed it.
        case moderated
    }

    struct Reaction {
        var emoji: String
        var byMe: Bool
        /// Which member reacted (groups), or a spread for the reaction's time.
        var memberIndex: Int
    }

    var kind: Kind
    var itemText: String
    /// The text before the edit (the current content is the edited one).
    var editedFrom: String?
    /// `item_deleted`: 1 deleted (by the sender, or moderated), 3 blocked by an admin.
    var deleted: Int64 = 0
    /// The moderator, by member index, when a group item was moderated.
    var moderatedByMember: Int?
    var timedTTL: Int64?
    var live = false
    var quote: ChatHistoryWriter.Recent?
    var forwardedFrom: String?
    var reactions: [Reaction] = []
    /// Sent items the peer has received (`snd_rcvd ok complete`) rather than only sent.
    var deliveredStatus = true

    var isMessage: Bool {
        if case .message = kind { return true }
        return false
    }

    var msgContent: String? {
        if case .message(let json) = kind { return json }
        return nil
    }

    /// `item_content` as the core stores it (`DBJSONCIContent`, simplex-chat `Messages/CIContent.hs`:
    /// single-field JSON; nullary constructors `{}`; simplexmq `Parsers.hs` 141-150).
    func itemContent(sent: Bool) -> String {
        let direction = sent ? "snd" : "rcv"
        switch kind {
        case .message(let json): return "{\"\(direction)MsgContent\":{\"msgContent\":\(json)}}"
        case .call(let status, let duration): return "{\"\(direction)Call\":{\"status\":\"\(status)\",\"duration\":\(duration)}}"
        case .groupEvent(let event): return "{\"rcvGroupEvent\":{\"rcvGroupEvent\":{\"\(event)\":{}}}}"
        case .moderated: return "{\"\(direction)Moderated\":{}}"
        }
    }

    static func plain(text: String) -> SampleItemStyle {
        SampleItemStyle(kind: .message(MessageContentJSON.text(text)), itemText: text)
    }

    /// The message that carries a sample file, typed by the name's extension as the apps send them.
    static func file(named name: String) -> SampleItemStyle {
        let lower = name.lowercased()
        if lower.hasSuffix(".jpg") || lower.hasSuffix(".png") {
            return SampleItemStyle(kind: .message(MessageContentJSON.image(text: "", thumbnail: MessageContentJSON.thumbnail)), itemText: "")
        }
        if lower.hasSuffix(".m4a") {
            return SampleItemStyle(kind: .message(MessageContentJSON.voice(duration: 9)), itemText: "voice message (00:09)")
        }
        if lower.hasSuffix(".mp4") {
            return SampleItemStyle(kind: .message(MessageContentJSON.video(duration: 17, thumbnail: MessageContentJSON.thumbnail)), itemText: "")
        }
        return SampleItemStyle(kind: .message(MessageContentJSON.file(text: "")), itemText: "")
    }

    /// A style for a random item: `roll` in 0..<100 picks it.
    static func random(text: String, place: ChatHistoryWriter.Place, sent: Bool, roll: Int, rng: inout SplitMix64,
                       peers: ChatHistoryWriter.Peers, recent: ChatHistoryWriter.Recent?) -> SampleItemStyle {
        var style = plain(text: text)
        let inGroup: Bool
        if case .group = place { inGroup = true } else { inGroup = false }
        if case .notes = place { return style }
        switch roll {
        case 0..<9:
            style.quote = recent
        case 9..<13:
            // Edited: the current text is the new one; the old one is a version.
            style.editedFrom = text
            let edited = text + " (edited: " + ChatHistoryWriter.words[Int(rng.next() % UInt64(ChatHistoryWriter.words.count))] + ")"
            style.kind = .message(MessageContentJSON.text(edited))
            style.itemText = edited
        case 13..<16:
            style.deleted = 1
        case 16 where inGroup && !sent:
            // Moderated: the core replaces the content and keeps who removed it (`updateGroupChatItemModerated`).
            style.kind = .moderated
            style.itemText = "moderated"
            style.deleted = 1
            style.moderatedByMember = Int(rng.next() % 6)
        case 17..<19 where inGroup && !sent:
            style.deleted = 3
        case 16..<19:
            style.deleted = 1
        case 19..<23:
            style.timedTTL = [3600, 86400, 604800][Int(rng.next() % 3)]
        case 23:
            style.live = true
        case 24..<28:
            let (json, shown) = MessageContentJSON.link(text: text)
            style.kind = .message(json)
            style.itemText = shown
        case 28..<30:
            style.forwardedFrom = peers.contacts[Int(rng.next() % UInt64(peers.contacts.count))].name
        case 30..<32 where !inGroup:
            let status = ["ended", "missed", "rejected", "ended"][Int(rng.next() % 4)]
            let duration = status == "ended" ? 20 + Int(rng.next() % 900) : 0
            style.kind = .call(status: status, duration: duration)
            style.itemText = (sent ? "outgoing call: " : "incoming call: ") + status
        case 30..<32 where inGroup && !sent:
            let event = rng.next() % 3 == 0 ? "memberLeft" : "memberConnected"
            style.kind = .groupEvent(event)
            style.itemText = event == "memberLeft" ? "left" : "connected"
        default:
            break
        }
        if roll >= 40 && roll < 56 && style.isMessage && style.deleted == 0 {
            let count = 1 + Int(rng.next() % 3)
            for n in 0..<count {
                let emoji = Self.emoji[Int(rng.next() % UInt64(Self.emoji.count))]
                if style.reactions.contains(where: { $0.emoji == emoji && $0.byMe == (n == 0 && !sent) }) { continue }
                style.reactions.append(Reaction(emoji: emoji, byMe: n == 0 && !sent, memberIndex: n))
            }
        }
        if sent && roll % 7 == 3 { style.deliveredStatus = false }
        return style
    }

    /// The emoji the apps offer (simplex-chat `Protocol.hs` `MREmojiChar`).
    static let emoji = ["👍", "👎", "😀", "😂", "😢", "❤️", "🚀", "✅"]
}

/// MsgContent JSON as the apps send it (simplex-chat `src/Simplex/Chat/Protocol.hs` `MsgContent`: a
/// `type` and `text`, and what each type adds) and MsgReaction (`{"type":"emoji","emoji":…}`).
enum MessageContentJSON {
    static func text(_ text: String) -> String { "{\"type\":\"text\",\"text\":\(JSONText.quote(text))}" }

    static func image(text: String, thumbnail: String) -> String {
        "{\"type\":\"image\",\"text\":\(JSONText.quote(text)),\"image\":\(JSONText.quote(thumbnail))}"
    }

    static func video(duration: Int, thumbnail: String) -> String {
        "{\"type\":\"video\",\"text\":\"\",\"image\":\(JSONText.quote(thumbnail)),\"duration\":\(duration)}"
    }

    static func voice(duration: Int) -> String { "{\"type\":\"voice\",\"text\":\"\",\"duration\":\(duration)}" }

    static func file(text: String) -> String { "{\"type\":\"file\",\"text\":\(JSONText.quote(text))}" }

    /// A link message with its preview (the preview's page is never fetched by anyone reading it).
    static func link(text: String) -> (json: String, text: String) {
        let uri = "https://example.org/notes/\(text.utf8.count)"
        let shown = text + " " + uri
        let json = "{\"type\":\"link\",\"text\":\(JSONText.quote(shown)),\"preview\":{\"uri\":\(JSONText.quote(uri)),"
            + "\"title\":\"Example notes\",\"description\":\"A page someone shared\",\"image\":\(JSONText.quote(thumbnail)),\"content\":{\"type\":\"page\"}}}"
        return (json, shown)
    }

    static func reaction(_ emoji: String) -> String { "{\"type\":\"emoji\",\"emoji\":\(JSONText.quote(emoji))}" }

    /// The inline thumbnail of image, video and link messages: a small JPEG as a data URI.
    static let thumbnail: String = {
        let bytes = (try? SyntheticImage.jpeg(width: 24, height: 18, seed: 5, quality: 60)) ?? []
        return "data:image/jpg;base64," + Data(bytes).base64EncodedString()
    }()
}
