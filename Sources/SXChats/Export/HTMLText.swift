/// Text put into the HTML pages. Everything that comes from the database (names, message text,
/// file names, raw JSON, reactions, link previews) goes through `escape` and nothing else, so no
/// stored text can become markup; links into the export are built by `relativeURL` from paths
/// sxkit made.
enum HTMLText {
    /// `&`, `<`, `>`, `"` and `'` as character references: safe in element text and in quoted
    /// attribute values alike.
    static func escape(_ text: String) -> String {
        let bytes = text.utf8
        guard bytes.contains(where: { $0 == 0x26 || $0 == 0x3C || $0 == 0x3E || $0 == 0x22 || $0 == 0x27 }) else { return text }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + 16)
        for b in bytes {
            switch b {
            case 0x26: out += Array("&amp;".utf8)
            case 0x3C: out += Array("&lt;".utf8)
            case 0x3E: out += Array("&gt;".utf8)
            case 0x22: out += Array("&quot;".utf8)
            case 0x27: out += Array("&#39;".utf8)
            default: out.append(b)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A relative path of the export (`media/1-a b#.jpg`) as a relative URL (`media/1-a%20b%23.jpg`):
    /// every byte but the unreserved ones percent-encoded, segment by segment, so a file name can
    /// neither end the path (`?`, `#`) nor be read as a scheme (`http:`); `prefix` (`../`) climbs
    /// from the page's folder to the export's.
    static func relativeURL(_ path: String, prefix: String = "") -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out = Array(prefix.utf8)
        for b in path.utf8 {
            let unreserved = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39)
                || b == 0x2D || b == 0x2E || b == 0x5F || b == 0x7E || b == 0x2F
            if unreserved {
                out.append(b)
            } else {
                out += [0x25, hex[Int(b >> 4)], hex[Int(b & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// An inline picture the database holds (an image's thumbnail, a link preview's image) when it
    /// is a base64 `data:image/…` URI and nothing else: such a URI loads nothing from anywhere.
    static func inlineImage(_ uri: String?) -> String? {
        guard let uri else { return nil }
        let types = ["data:image/jpeg;base64,", "data:image/jpg;base64,", "data:image/png;base64,", "data:image/gif;base64,", "data:image/webp;base64,"]
        guard let type = types.first(where: { uri.hasPrefix($0) }) else { return nil }
        let payload = uri.utf8.dropFirst(type.utf8.count)
        guard !payload.isEmpty, payload.allSatisfy({ b in
            (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2B || b == 0x2F || b == 0x3D
        }) else { return nil }
        return uri
    }
}
