import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The formats a chat is exported in, each streamed item by item: a line per item (txt, jsonl),
/// or an element per item of a self-contained page (html, `TranscriptHTMLPage`).
public enum TranscriptFormat: String, Sendable, CaseIterable {
    case txt, jsonl, html

    public var fileExtension: String { rawValue }
}

/// Times as ISO 8601 with their zone: the database's UTC text (`YYYY-MM-DD HH:MM:SS[.ffffff]`, no
/// zone: sqlite-simple's `utcTimeToBuilder`) shown in `zone`.
public struct TranscriptClock: Sendable {
    public let zone: TimeZone

    public init(zone: TimeZone) { self.zone = zone }

    public static let utc = TranscriptClock(zone: TimeZone(identifier: "UTC")!)

    /// The zone's identifier (`Europe/Berlin`), `UTC` for UTC (Foundation calls it GMT).
    public var zoneName: String {
        zone.secondsFromGMT() == 0 && ["GMT", "UTC"].contains(zone.identifier) ? "UTC" : zone.identifier
    }

    /// `2024-01-01T10:00:05+01:00` (`Z` at offset zero), milliseconds kept when the stored time has
    /// a fraction; text that is not a stored time is returned as it is.
    public func iso8601(_ stored: String) -> String {
        guard let (epoch, fraction) = Self.parse(stored) else { return stored }
        let offset = offset(at: epoch)
        let millis = fraction.isEmpty ? "" : "." + String((fraction + "000").prefix(3))
        return Self.fields(epoch + offset) + millis + (offset == 0 ? "Z" : Self.offsetText(offset))
    }

    /// `YYYY-MM-DD HH:MM:SS ±HH:MM` for the text transcript.
    public func readable(_ stored: String) -> String {
        guard let (epoch, _) = Self.parse(stored) else { return stored }
        let offset = offset(at: epoch)
        return Self.fields(epoch + offset).replacingOccurrences(of: "T", with: " ") + " " + Self.offsetText(offset)
    }

    private func offset(at epoch: Int) -> Int {
        zone.secondsFromGMT() == 0 && zoneName == "UTC" ? 0 : zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(epoch)))
    }

    /// Seconds since the epoch and the fraction's digits of `YYYY-MM-DD HH:MM:SS[.f…]` (a `T` and a
    /// trailing `Z` accepted), read by hand: a formatter per item cost most of an export's time.
    static func parse(_ stored: String) -> (Int, String)? {
        let b = Array(stored.utf8)
        guard b.count >= 19, b[4] == 0x2D, b[7] == 0x2D, b[10] == 0x20 || b[10] == 0x54, b[13] == 0x3A, b[16] == 0x3A else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var v = 0
            for i in range {
                guard b[i] >= 0x30, b[i] <= 0x39 else { return nil }
                v = v * 10 + Int(b[i] - 0x30)
            }
            return v
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
              let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else { return nil }
        var rest = b[19...]
        if rest.last == 0x5A { rest = rest.dropLast() }
        var fraction = ""
        if let first = rest.first {
            guard first == 0x2E, rest.count > 1, rest.dropFirst().allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
            fraction = String(decoding: rest.dropFirst(), as: UTF8.self)
        }
        var t = tm()
        t.tm_year = Int32(year - 1900)
        t.tm_mon = Int32(month - 1)
        t.tm_mday = Int32(day)
        t.tm_hour = Int32(hour)
        t.tm_min = Int32(minute)
        t.tm_sec = Int32(second)
        return (Int(timegm(&t)), fraction)
    }

    /// `YYYY-MM-DDTHH:MM:SS` of seconds since the epoch, read as UTC.
    static func fields(_ epoch: Int) -> String {
        var seconds = time_t(epoch)
        var t = tm()
        gmtime_r(&seconds, &t)
        func two(_ v: Int32) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(t.tm_year + 1900)-\(two(t.tm_mon + 1))-\(two(t.tm_mday))T\(two(t.tm_hour)):\(two(t.tm_min)):\(two(t.tm_sec))"
    }

    static func offsetText(_ offset: Int) -> String {
        let sign = offset < 0 ? "-" : "+"
        let minutes = abs(offset) / 60
        let h = minutes / 60, m = minutes % 60
        return sign + (h < 10 ? "0\(h)" : "\(h)") + ":" + (m < 10 ? "0\(m)" : "\(m)")
    }
}

/// One item as a JSON Lines object. Field names are stable and documented (README): snake_case,
/// keys sorted, absent values left out; `chat_item_id` and `file_id` are the database's ids.
struct TranscriptJSONLine: Encodable {
    struct Chat: Encodable {
        var kind: String
        var id: Int64
        var name: String
    }

    struct Sender: Encodable {
        var kind: String
        var name: String?
    }

    struct Quote: Encodable {
        var sent_at: String?
        var by_me: Bool
        var type: String?
        var text: String?
    }

    struct File: Encodable {
        var file_id: Int64
        var name: String
        var size: Int64
        var status: String?
        var encrypted: Bool
        var stored_path: String?
        /// The copy in the export (`media/…`), or why there is none.
        var media: String?
        var media_error: String?
    }

    struct Reaction: Encodable {
        var reaction: String
        var count: Int
        var by_me: Bool
    }

    struct Preview: Encodable {
        var uri: String
        var title: String?
        var description: String?
    }

    var chat_item_id: Int64
    var chat: Chat
    var sender: Sender
    var direction: String?
    var sent_at: String
    var created_at: String
    var kind: String
    var type: String?
    var text: String
    var unknown: Bool?
    var raw: String?
    var deleted: String?
    var moderated_by: String?
    var edited: Bool?
    var live: Bool?
    var timed_ttl: Int64?
    var timed_delete_at: String?
    var quote: Quote?
    var forwarded_from: String?
    var duration: Int?
    var link_preview: Preview?
    var report_reason: String?
    var call_status: String?
    var file: File?
    var reactions: [Reaction]?
}

enum TranscriptLine {
    /// The reference the hand-written lines are checked against (JSONLineTextTests); not used to write.
    static let encoder: JSONEncoder = {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return e
    }()

    static func json(_ m: ChatMessage, chat: ChatSummary, clock: TranscriptClock, media: MediaOutcome? = nil) throws -> String {
        jsonLine(m, chat: chat, clock: clock, media: media).jsonText
    }

    /// The line's fields (`json` writes them; a test checks its text against `JSONEncoder`'s).
    static func jsonLine(_ m: ChatMessage, chat: ChatSummary, clock: TranscriptClock, media: MediaOutcome? = nil) -> TranscriptJSONLine {
        var line = TranscriptJSONLine(
            chat_item_id: m.chatItemId, chat: .init(kind: chat.kind.rawValue, id: chat.id, name: chat.displayName),
            sender: sender(m.sender), direction: nil, sent_at: clock.iso8601(m.sentAt), created_at: clock.iso8601(m.createdAt),
            kind: "message", type: nil, text: m.text)
        switch m.content {
        case .message(let direction, let content):
            line.direction = direction.rawValue
            line.type = content.type
            line.text = content.text
            if !content.isKnownType { line.unknown = true }
            line.duration = content.duration
            line.link_preview = content.preview.map { .init(uri: $0.uri, title: $0.title, description: $0.description) }
            line.report_reason = content.reportReason
        case .deleted(let direction, _):
            line.direction = direction.rawValue
            line.kind = "deleted"
        case .moderated(let direction):
            line.direction = direction.rawValue
            line.kind = "moderated"
        case .blocked:
            line.direction = ChatItemDirection.received.rawValue
            line.kind = "blocked"
        case .call(let direction, let status, let duration):
            line.direction = direction.rawValue
            line.kind = "call"
            line.call_status = status
            line.duration = duration
        case .event(let direction, let tag, let detail, let raw):
            line.direction = direction?.rawValue
            line.kind = "event"
            line.type = detail.map { "\(tag).\($0)" } ?? tag
            line.raw = raw
        case .unknown(let tag, let raw):
            line.kind = "unknown"
            line.type = tag
            line.unknown = true
            line.raw = raw
        case .invalid(let raw):
            line.kind = "invalid"
            line.unknown = true
            line.raw = raw
        }
        switch m.deletion {
        case nil: break
        case .deleted?: line.deleted = "deleted"
        case .blocked?: line.deleted = "blocked"
        case .blockedByAdmin?: line.deleted = "blocked_by_admin"
        case .moderated(let by)?:
            line.deleted = "moderated"
            line.moderated_by = by
        }
        if m.edited { line.edited = true }
        if m.live { line.live = true }
        line.timed_ttl = m.timedTTL
        line.timed_delete_at = m.timedDeleteAt.map(clock.iso8601)
        line.quote = m.quote.map { .init(sent_at: $0.sentAt.map(clock.iso8601), by_me: $0.sentByMe, type: $0.content?.type, text: $0.content?.text) }
        line.forwarded_from = m.forwardedFrom
        line.file = m.file.map { .init(file_id: $0.fileId, name: $0.name, size: $0.size, status: $0.status, encrypted: $0.encrypted, stored_path: $0.storedPath) }
        switch media {
        case .copied(let path)?: line.file?.media = path
        case .missing?: line.file?.media_error = "missing from the files folder"
        case .failed(let why)?: line.file?.media_error = why
        case nil: break
        }
        if !m.reactions.isEmpty { line.reactions = m.reactions.map { .init(reaction: $0.reaction, count: $0.count, by_me: $0.byMe) } }
        return line
    }

    static func sender(_ s: ChatMessage.Sender) -> TranscriptJSONLine.Sender {
        switch s {
        case .me: return .init(kind: "me", name: nil)
        case .contact(let name): return .init(kind: "contact", name: name)
        case .member(let name): return .init(kind: "member", name: name)
        case .unknownMember: return .init(kind: "member", name: nil)
        }
    }

    static func senderName(_ s: ChatMessage.Sender) -> String {
        switch s {
        case .me: return "me"
        case .contact(let name), .member(let name): return name
        case .unknownMember: return "(unknown member)"
        }
    }

    /// What a message's type adds before its text (`voice message, 9 s`, `image`, `report: spam`,
    /// `…: not understood by this sxkit`); nil for text and links. The text and HTML transcripts
    /// both say it in these words.
    static func typeLabel(_ content: MessageContent) -> String? {
        switch content.type {
        case "voice": return "voice message\(content.duration.map { ", \($0) s" } ?? "")"
        case "video": return "video\(content.duration.map { ", \($0) s" } ?? "")"
        case "image": return "image"
        case "file": return "file"
        case "report": return "report: \(content.reportReason ?? "")"
        case "chat": return "chat link: \(content.chatLinkType ?? "")"
        default: return content.isKnownType ? nil : "\(content.type): not understood by this sxkit"
        }
    }

    /// What SimpleX records about an item beside its content, in the words both the text and the
    /// HTML transcripts use: deleted, blocked, blocked by admin, moderated [by …], edited, live,
    /// disappears after N s, forwarded [from …].
    static func marks(_ m: ChatMessage) -> [String] {
        var marks: [String] = []
        switch m.deletion {
        case nil: break
        case .deleted?: marks.append("deleted")
        case .blocked?: marks.append("blocked")
        case .blockedByAdmin?: marks.append("blocked by admin")
        case .moderated(let by)?: marks.append("moderated" + (by.map { " by \($0)" } ?? ""))
        }
        if m.edited { marks.append("edited") }
        if m.live { marks.append("live") }
        if let ttl = m.timedTTL { marks.append("disappears after \(ttl) s") }
        if let from = m.forwardedFrom { marks.append(from.isEmpty ? "forwarded" : "forwarded from \(from)") }
        return marks
    }

    /// `[2024-01-01 10:00:05 +01:00] bob: hello (edited)`, then indented lines for the quote, file
    /// and reactions. Events read `* …`; what sxkit cannot read is kept, marked.
    static func text(_ m: ChatMessage, clock: TranscriptClock, media: MediaOutcome? = nil) -> String {
        let who = senderName(m.sender)
        var body: String
        switch m.content {
        case .message(_, let content):
            var t = content.text
            if let label = typeLabel(content) { t = "[\(label)]" + (t.isEmpty ? "" : " " + t) }
            body = "\(who): \(t)"
        case .deleted: body = "\(who): [deleted]"
        case .moderated: body = "\(who): [moderated]"
        case .blocked: body = "\(who): [blocked]"
        case .call(_, let status, let duration): body = "* call \(status)\(duration.map { ", \($0) s" } ?? "") (\(who))"
        case .event(_, let tag, let detail, _): body = "* \(who): \(detail.map { "\(tag) \($0)" } ?? tag)"
        case .unknown(let tag, let raw): body = "\(who): [\(tag): not understood by this sxkit] \(raw)"
        case .invalid(let raw): body = "\(who): [content not readable as stored] \(raw)"
        }
        let marks = Self.marks(m)
        // Line breaks inside a message stay, indented under it, so each item still starts a line with its time.
        body = body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\n    ")
        var out = "[\(clock.readable(m.sentAt))] \(body)" + (marks.isEmpty ? "" : " (\(marks.joined(separator: ", ")))")
        if let q = m.quote { out += "\n    > \(q.sentByMe ? "me" : "them"): \(q.content?.text ?? "")" }
        if let f = m.file {
            let copy: String
            switch media {
            case .copied(let path)?: copy = " → \(path)"
            case .missing?: copy = " (missing from the files folder)"
            case .failed(let why)?: copy = " (not copied: \(why))"
            case nil: copy = ""
            }
            out += "\n    [file: \(f.name), \(f.size) bytes\(f.status.map { ", \($0)" } ?? "")\(f.encrypted ? ", encrypted" : "")]\(copy)"
        }
        if !m.reactions.isEmpty {
            out += "\n    reactions: " + m.reactions.map { "\($0.reaction) \($0.count)\($0.byMe ? " (you)" : "")" }.joined(separator: ", ")
        }
        return out
    }
}
