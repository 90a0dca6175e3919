import SXCore

/// The HTML transcript: one self-contained page per chat, written as its items are read (a head,
/// one element per item, a tail), and the export's `index.html`. sxkit's own layout (SimpleX has
/// no HTML export); every field shown is one `ChatMessage` already carries. The pages hold no
/// script and load nothing from the network: a Content-Security-Policy allows only the export's own
/// files (`media/`) and `data:` pictures, one inline style sheet does the layout, stored text is
/// escaped by `HTMLText.escape` alone, and link previews show their URL as text, never fetched.
struct TranscriptHTMLPage {
    let chat: ChatSummary
    let user: ChatUserSummary
    let clock: TranscriptClock
    /// From the page's folder up to the export's (`../`): media links are relative to the page.
    let up: String
    /// The local day of the last item written, for the day separators.
    private var day: String?

    init(chat: ChatSummary, user: ChatUserSummary, clock: TranscriptClock, pagePath: String) {
        self.chat = chat
        self.user = user
        self.clock = clock
        up = String(repeating: "../", count: pagePath.utf8.filter { $0 == 0x2F }.count)
    }

    /// What the pages allow: nothing by default; pictures from the export's folder or `data:`,
    /// audio and video from the export's folder, the inline style sheet. No script source at all.
    static let contentSecurityPolicy = "default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'"

    static func head(title: String) -> String {
        """
        <!DOCTYPE html>
        <html>
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta http-equiv="Content-Security-Policy" content="\(contentSecurityPolicy)">
        <meta name="referrer" content="no-referrer">
        <title>\(HTMLText.escape(title))</title>
        <style>\(style)</style>
        </head>
        <body>

        """
    }

    static let style = """
        body{font:15px/1.4 system-ui,sans-serif;margin:0;background:#eceff1;color:#111}
        header,footer{padding:10px 16px;background:#fff;border-bottom:1px solid #ccd}
        footer{border-top:1px solid #ccd;color:#556}
        main{max-width:860px;margin:0 auto;padding:8px 12px}
        h1{font-size:20px;margin:0}
        .day{text-align:center;font-size:13px;color:#445;margin:18px 0 8px}
        .msg{max-width:78%;margin:6px 0;padding:6px 10px;border-radius:10px;background:#fff;overflow-wrap:anywhere}
        .msg.sent{margin-left:auto;background:#d7ebff}
        .who{font-weight:600;font-size:13px;color:#1a4f8b}
        time{font-size:12px;color:#667;margin-left:6px}
        .text{white-space:pre-wrap}
        .label,.marks,.note{font-style:italic;color:#556;font-size:13px}
        .quote{border-left:3px solid #7aa7d8;margin:4px 0;padding:2px 8px;background:rgba(0,0,0,.04);font-size:14px}
        .raw{white-space:pre-wrap;font-family:monospace;font-size:12px;color:#633}
        .missing{color:#a00;font-style:italic;font-size:13px}
        .event{text-align:center;font-size:13px;color:#445;margin:8px 0}
        .preview{border:1px solid #ccd;border-radius:6px;padding:4px 8px;margin:4px 0;font-size:13px}
        .uri{font-family:monospace;font-size:12px;color:#334}
        .file{font-size:13px;color:#334}
        .reactions span{display:inline-block;background:#f3f3f3;border-radius:8px;padding:0 6px;margin:2px 4px 0 0;font-size:13px}
        img.media{display:block;max-width:100%;max-height:480px;margin:4px 0;border-radius:6px}
        video.media{max-width:100%;max-height:480px}
        table{border-collapse:collapse;width:100%;background:#fff}
        td,th{text-align:left;padding:4px 8px;border-bottom:1px solid #dde}
        """

    /// The page's beginning, up to the first item.
    func begin() -> String {
        Self.head(title: "\(chat.displayName) — \(user.displayName)")
            + "<header><h1 dir=\"auto\">\(HTMLText.escape(chat.displayName))</h1>"
            + "<div class=\"note\">\(chat.kind.rawValue) chat of <span dir=\"auto\">\(HTMLText.escape(user.displayName))</span>; "
            + "times in \(HTMLText.escape(clock.zoneName)); <a href=\"\(up)index.html\">all chats</a></div></header>\n<main>\n"
    }

    /// The page's end, after the last item.
    func end(items: Int64) -> String {
        "</main>\n<footer>\(items) item(s); exported by sxkit</footer>\n</body>\n</html>\n"
    }

    /// One item: a day separator first when it starts a new local day, then the item's element.
    mutating func item(_ m: ChatMessage, media: MediaOutcome?) -> String {
        var out = ""
        let readable = clock.readable(m.sentAt)
        if readable != m.sentAt {
            let today = String(readable.prefix(10))
            if today != day {
                out += "<h2 class=\"day\"><time datetime=\"\(today)\">\(today)</time></h2>\n"
                day = today
            }
        }
        let who = HTMLText.escape(TranscriptLine.senderName(m.sender))
        let time = timeElement(m)
        switch m.content {
        case .call(_, let status, let duration):
            return out + "<div class=\"event\" id=\"item-\(m.chatItemId)\" dir=\"auto\">call \(HTMLText.escape(status))\(duration.map { ", \($0) s" } ?? "") (\(who)) \(time)\(marks(m))</div>\n"
        case .event(_, let tag, let detail, _):
            return out + "<div class=\"event\" id=\"item-\(m.chatItemId)\" dir=\"auto\">\(who): \(HTMLText.escape(detail.map { "\(tag) \($0)" } ?? tag)) \(time)\(marks(m))</div>\n"
        default: break
        }
        let direction = m.sender == .me ? "sent" : "received"
        out += "<div class=\"msg \(direction)\" id=\"item-\(m.chatItemId)\"><div><span class=\"who\" dir=\"auto\">\(who)</span>\(time)\(marks(m))</div>\n"
        if let q = m.quote {
            let quoted: String
            if q.sentByMe { quoted = "me" } else if chat.kind == .direct { quoted = chat.displayName } else { quoted = "them" }
            out += "<blockquote class=\"quote\"><div class=\"who\" dir=\"auto\">\(HTMLText.escape(quoted))</div>"
                + "<div class=\"text\" dir=\"auto\">\(HTMLText.escape(q.content?.text ?? ""))</div></blockquote>\n"
        }
        switch m.content {
        case .message(_, let content):
            if let label = TranscriptLine.typeLabel(content), !(content.type == "image" && media.isCopied) {
                out += "<div class=\"label\">\(HTMLText.escape(label))</div>"
            }
            if !content.text.isEmpty { out += "<div class=\"text\" dir=\"auto\">\(HTMLText.escape(content.text))</div>\n" }
            if let p = content.preview {
                out += "<div class=\"preview\">"
                if let image = HTMLText.inlineImage(p.image) { out += "<img class=\"media\" alt=\"link preview\" src=\"\(HTMLText.escape(image))\">" }
                if let title = p.title, !title.isEmpty { out += "<div class=\"who\" dir=\"auto\">\(HTMLText.escape(title))</div>" }
                if let description = p.description, !description.isEmpty { out += "<div class=\"text\" dir=\"auto\">\(HTMLText.escape(description))</div>" }
                out += "<div class=\"uri\">\(HTMLText.escape(p.uri))</div></div>\n"
            }
            out += file(m.file, content: content, media: media)
        case .deleted: out += "<div class=\"label\">[deleted]</div>\n" + file(m.file, content: nil, media: media)
        case .moderated: out += "<div class=\"label\">[moderated]</div>\n" + file(m.file, content: nil, media: media)
        case .blocked: out += "<div class=\"label\">[blocked]</div>\n" + file(m.file, content: nil, media: media)
        case .unknown(let tag, let raw):
            out += "<div class=\"label\">[\(HTMLText.escape(tag)): not understood by this sxkit]</div><div class=\"raw\">\(HTMLText.escape(raw))</div>\n"
            out += file(m.file, content: nil, media: media)
        case .invalid(let raw):
            out += "<div class=\"label\">[content not readable as stored]</div><div class=\"raw\">\(HTMLText.escape(raw))</div>\n"
            out += file(m.file, content: nil, media: media)
        case .call, .event: break
        }
        if !m.reactions.isEmpty {
            out += "<div class=\"reactions\">" + m.reactions.map {
                "<span\($0.byMe ? " title=\"you reacted\"" : "")>\(HTMLText.escape($0.reaction)) × \($0.count)\($0.byMe ? " (you)" : "")</span>"
            }.joined() + "</div>\n"
        }
        return out + "</div>\n"
    }

    /// `<time>` with the local clock time; the full sent time, and when this device received it
    /// (`created_at`), in its title.
    private func timeElement(_ m: ChatMessage) -> String {
        let sent = clock.readable(m.sentAt)
        let shown = sent == m.sentAt ? sent : String(sent.dropFirst(11).prefix(5))
        var title = "sent \(sent)"
        if m.createdAt != m.sentAt { title += m.sender == .me ? ", recorded \(clock.readable(m.createdAt))" : ", received \(clock.readable(m.createdAt))" }
        return "<time datetime=\"\(HTMLText.escape(clock.iso8601(m.sentAt)))\" title=\"\(HTMLText.escape(title))\">\(HTMLText.escape(shown))</time>"
    }

    private func marks(_ m: ChatMessage) -> String {
        let marks = TranscriptLine.marks(m)
        return marks.isEmpty ? "" : " <span class=\"marks\" dir=\"auto\">(\(HTMLText.escape(marks.joined(separator: ", "))))</span>"
    }

    /// What a file is shown as: a picture, a player, or a line with its name.
    enum MediaKind {
        case picture, video, audio, other

        static let pictures: Set<String> = ["jpg", "jpeg", "png", "gif", "webp"]
        static let videos: Set<String> = ["mp4", "webm", "mov", "m4v"]
        static let sounds: Set<String> = ["m4a", "mp3", "ogg", "oga", "opus", "wav", "aac"]

        /// By the message's type (an image, a sticker: `image`; `video`; `voice`), else by the file
        /// name's extension: a picture sent as a file is shown as a picture too.
        init(type: String?, name: String) {
            switch type {
            case "image": self = .picture
            case "video": self = .video
            case "voice": self = .audio
            default:
                let ext = name.split(separator: ".").count > 1 ? name.split(separator: ".").last.map { $0.lowercased() } ?? "" : ""
                self = Self.pictures.contains(ext) ? .picture : Self.videos.contains(ext) ? .video : Self.sounds.contains(ext) ? .audio : .other
            }
        }
    }

    /// The attached file: inline when it was copied (picture, video or audio player) with its line
    /// (name, size, status, a link to the copy); a marked note when the copy is missing or failed,
    /// with the message's own thumbnail when it has one.
    private func file(_ f: ChatMessage.File?, content: MessageContent?, media: MediaOutcome?) -> String {
        guard let f else { return "" }
        var out = ""
        let kind = MediaKind(type: content?.type, name: f.name)
        let name = HTMLText.escape(f.name)
        let details = "\(name), \(ByteCount.format(f.size))\(f.status.map { ", " + HTMLText.escape($0) } ?? "")\(f.encrypted ? ", encrypted" : "")"
        switch media {
        case .copied(let path)?:
            let url = HTMLText.escape(HTMLText.relativeURL(path, prefix: up))
            switch kind {
            case .picture: out += "<img class=\"media\" src=\"\(url)\" alt=\"\(name)\">\n"
            case .video: out += "<video class=\"media\" controls preload=\"metadata\" src=\"\(url)\"></video>\n"
            case .audio: out += "<audio controls preload=\"metadata\" src=\"\(url)\"></audio>\n"
            case .other: break
            }
            out += "<div class=\"file\" dir=\"auto\">file: <a href=\"\(url)\">\(name)</a> (\(details))</div>\n"
        case .missing?, .failed?, nil:
            if kind == .picture || kind == .video, let thumbnail = HTMLText.inlineImage(content?.thumbnail) {
                out += "<img class=\"thumbnail\" src=\"\(HTMLText.escape(thumbnail))\" alt=\"thumbnail of \(name)\">\n"
            }
            out += "<div class=\"file\" dir=\"auto\">file: \(details)</div>\n"
            switch media {
            case .missing?: out += "<div class=\"missing\">not shown: \(name) is missing from the files folder</div>\n"
            case .failed(let why)?: out += "<div class=\"missing\">not shown: \(name) was not copied: \(HTMLText.escape(why))</div>\n"
            default: break
            }
        }
        return out
    }
}

extension Optional where Wrapped == MediaOutcome {
    var isCopied: Bool {
        if case .copied? = self { return true }
        return false
    }
}

/// `DIR/index.html`: every exported user and chat, with a link to its page, its item count and the
/// times of its first and last item.
enum TranscriptHTMLIndex {
    struct Entry {
        var user: ChatUserSummary
        var chat: ChatSummary
        /// Relative to the export folder.
        var page: String
        var items: Int64
        var first: String?
        var last: String?
    }

    static func page(_ entries: [Entry], clock: TranscriptClock) -> String {
        var out = TranscriptHTMLPage.head(title: "SimpleX chats")
            + "<header><h1>SimpleX chats</h1><div class=\"note\">\(entries.count) chat(s); times in \(HTMLText.escape(clock.zoneName))</div></header>\n<main>\n"
        var userId: Int64?
        for entry in entries {
            if entry.user.userId != userId {
                if userId != nil { out += "</table>\n" }
                userId = entry.user.userId
                out += "<h2 dir=\"auto\">\(HTMLText.escape(entry.user.displayName))</h2>\n"
                    + "<table><tr><th>chat</th><th>kind</th><th>items</th><th>first</th><th>last</th></tr>\n"
            }
            out += "<tr><td dir=\"auto\"><a href=\"\(HTMLText.escape(HTMLText.relativeURL(entry.page)))\">\(HTMLText.escape(entry.chat.displayName))</a></td>"
                + "<td>\(entry.chat.kind.rawValue)</td><td>\(entry.items)</td>"
                + "<td>\(HTMLText.escape(entry.first.map(clock.readable) ?? ""))</td><td>\(HTMLText.escape(entry.last.map(clock.readable) ?? ""))</td></tr>\n"
        }
        if userId != nil { out += "</table>\n" }
        return out + "</main>\n<footer>exported by sxkit</footer>\n</body>\n</html>\n"
    }
}
