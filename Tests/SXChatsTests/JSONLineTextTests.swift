import Foundation
import Testing
import SXTestSupport
@testable import SXChats

/// The hand-written JSON lines are exactly what `JSONEncoder` (sorted keys, slashes unescaped)
/// writes for the same fields: every field set, and strings with everything that needs escaping.
@Suite(.ownThreads) struct JSONLineTextTests {
    static let strings = [
        "plain", "", "quote \" and backslash \\ and slash /", "tab\tnew\nline\rreturn", "\u{08}\u{0C}\u{01}\u{1F}\u{7F}",
        "مرحبا 👋🏽 שלום", "line\u{2028}separator\u{2029}", "<script>alert(1)</script> & 'x'", "é\u{301} combining", "\u{0}nul",
    ]

    func line(_ text: String, full: Bool) -> TranscriptJSONLine {
        var l = TranscriptJSONLine(chat_item_id: 42, chat: .init(kind: "group", id: 7, name: text), sender: .init(kind: "member", name: text),
                                   direction: "received", sent_at: "2024-01-01T10:00:05Z", created_at: "2024-01-01T10:00:06.250Z",
                                   kind: "message", type: "voice", text: text)
        guard full else { return l }
        l.unknown = true
        l.raw = #"{"rcvX":{"a":"\#(text)"}}"#
        l.deleted = "moderated"
        l.moderated_by = text
        l.edited = true
        l.live = false
        l.timed_ttl = 86400
        l.timed_delete_at = "2024-01-02T10:00:05Z"
        l.quote = .init(sent_at: "2024-01-01T09:00:00Z", by_me: true, type: "text", text: text)
        l.forwarded_from = text
        l.duration = 9
        l.link_preview = .init(uri: "https://x.y/a?b=c", title: text, description: nil)
        l.report_reason = "spam"
        l.call_status = "ended"
        l.file = .init(file_id: 3, name: text, size: 1234, status: "rcv_complete", encrypted: true, stored_path: "a/b.jpg", media: "media/3-b.jpg", media_error: nil)
        l.reactions = [.init(reaction: "👍", count: 2, by_me: true), .init(reaction: text, count: 1, by_me: false)]
        return l
    }

    @Test("the same text as JSONEncoder", arguments: strings)
    func sameAsEncoder(text: String) throws {
        for full in [false, true] {
            let fields = line(text, full: full)
            let encoded = String(decoding: try TranscriptLine.encoder.encode(fields), as: UTF8.self)
            #expect(fields.jsonText == encoded)
            #expect(try JSONSerialization.jsonObject(with: Data(fields.jsonText.utf8)) is [String: Any])
        }
    }
}
