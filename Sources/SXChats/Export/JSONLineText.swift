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
    /// Works on the UTF-8 bytes, copying the runs that need no escape whole (every line of an export
    /// goes through here, several times).
    static func quoted(_ text: String) -> String {
        var text = text
        return text.withUTF8 { bytes -> String in
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 8)
            out.append(0x22)
            var run = 0
            for i in 0..<bytes.count {
                let b = bytes[i]
                guard b < 0x20 || b == 0x22 || b == 0x5C else { continue }
                out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<i]))
                run = i + 1
                switch b {
                case 0x22: out += [0x5C, 0x22]
                case 0x5C: out += [0x5C, 0x5C]
                case 0x0A: out += [0x5C, 0x6E]
                case 0x0D: out += [0x5C, 0x72]
                case 0x09: out += [0x5C, 0x74]
                case 0x08: out += [0x5C, 0x62]
                case 0x0C: out += [0x5C, 0x66]
                default:
                    let hex = Array("0123456789abcdef".utf8)
                    out += [0x5C, 0x75, 0x30, 0x30, hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
                }
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[run..<bytes.count]))
            out.append(0x22)
            return String(decoding: out, as: UTF8.self)
        }
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
