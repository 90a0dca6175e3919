/// One JSON object written by hand, keys sorted, absent values left out: the same text
/// `JSONEncoder` writes with `.sortedKeys` and `.withoutEscapingSlashes` (a test compares them), at a
/// fraction of the cost per item.
struct JSONObjectText {
    private var fields: [(key: String, value: String)] = []

    mutating func add(_ key: String, _ value: String?) {
        if let value { fields.append((key, Self.quoted(value))) }
    }

    mutating func add(_ key: String, _ value: Int64?) {
        if let value { fields.append((key, String(value))) }
    }

    mutating func add(_ key: String, _ value: Int?) {
        if let value { fields.append((key, String(value))) }
    }

    mutating func add(_ key: String, _ value: Bool?) {
        if let value { fields.append((key, value ? "true" : "false")) }
    }

    /// A value already written as JSON (an object or an array).
    mutating func add(json key: String, _ value: String?) {
        if let value { fields.append((key, value)) }
    }

    var text: String {
        "{" + fields.sorted { $0.key < $1.key }.map { Self.quoted($0.key) + ":" + $0.value }.joined(separator: ",") + "}"
    }

    /// A JSON string: `"` and `\` escaped, control characters as `\b \f \n \r \t` or `\u00XX`.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{08}": out += "\\b"
            case "\u{0C}": out += "\\f"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}

extension TranscriptJSONLine {
    /// This line as `JSONEncoder` would write it (see `JSONObjectText`).
    var jsonText: String {
        var o = JSONObjectText()
        var c = JSONObjectText()
        c.add("kind", chat.kind)
        c.add("id", chat.id)
        c.add("name", chat.name)
        o.add(json: "chat", c.text)
        o.add("chat_item_id", chat_item_id)
        var s = JSONObjectText()
        s.add("kind", sender.kind)
        s.add("name", sender.name)
        o.add(json: "sender", s.text)
        o.add("direction", direction)
        o.add("sent_at", sent_at)
        o.add("created_at", created_at)
        o.add("kind", kind)
        o.add("type", type)
        o.add("text", text)
        o.add("unknown", unknown)
        o.add("raw", raw)
        o.add("deleted", deleted)
        o.add("moderated_by", moderated_by)
        o.add("edited", edited)
        o.add("live", live)
        o.add("timed_ttl", timed_ttl)
        o.add("timed_delete_at", timed_delete_at)
        if let quote {
            var q = JSONObjectText()
            q.add("sent_at", quote.sent_at)
            q.add("by_me", quote.by_me)
            q.add("type", quote.type)
            q.add("text", quote.text)
            o.add(json: "quote", q.text)
        }
        o.add("forwarded_from", forwarded_from)
        o.add("duration", duration)
        if let link_preview {
            var p = JSONObjectText()
            p.add("uri", link_preview.uri)
            p.add("title", link_preview.title)
            p.add("description", link_preview.description)
            o.add(json: "link_preview", p.text)
        }
        o.add("report_reason", report_reason)
        o.add("call_status", call_status)
        if let file {
            var f = JSONObjectText()
            f.add("file_id", file.file_id)
            f.add("name", file.name)
            f.add("size", file.size)
            f.add("status", file.status)
            f.add("encrypted", file.encrypted)
            f.add("stored_path", file.stored_path)
            f.add("media", file.media)
            f.add("media_error", file.media_error)
            o.add(json: "file", f.text)
        }
        if let reactions {
            let items = reactions.map { r -> String in
                var e = JSONObjectText()
                e.add("reaction", r.reaction)
                e.add("count", r.count)
                e.add("by_me", r.by_me)
                return e.text
            }
            o.add(json: "reactions", "[" + items.joined(separator: ",") + "]")
        }
        return o.text
    }
}
