/// JSON text written the way the chat core writes its migration results, so that a script can compare
/// sxkit's output with the core's byte for byte: compact, each object's `"type"` tag first and then its
/// fields in declaration order (aeson's `TaggedObject` encoding, simplexmq `src/Simplex/Messaging/Parsers.hs:120-129`
/// `taggedObjectJSON`; simplex-chat/aeson @aab7b5a `src/Data/Aeson/TH.hs:406-425`), strings escaped as
/// aeson does (`src/Data/Aeson/Encoding/Builder.hs:124-137` `escapeAscii`: `\\`, `\"`, `\n`, `\r`, `\t`,
/// other bytes below 0x20 as `\u00xx` in lower-case hex, everything else raw UTF-8, `/` unescaped).
enum CoreJSON {
    case string(String)
    case bool(Bool)
    case array([CoreJSON])
    /// Keys in the order they are written.
    case object([(String, CoreJSON)])

    var text: String {
        var out = ""
        write(to: &out)
        return out
    }

    private func write(to out: inout String) {
        switch self {
        case .string(let s):
            Self.quote(s, to: &out)
        case .bool(let b):
            out += b ? "true" : "false"
        case .array(let items):
            out += "["
            for (i, item) in items.enumerated() {
                if i > 0 { out += "," }
                item.write(to: &out)
            }
            out += "]"
        case .object(let fields):
            out += "{"
            for (i, (key, value)) in fields.enumerated() {
                if i > 0 { out += "," }
                Self.quote(key, to: &out)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }

    private static func quote(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
