import SXCore

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
            out += JSONText.quote(s)
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
                out += JSONText.quote(key)
                out += ":"
                value.write(to: &out)
            }
            out += "}"
        }
    }
}
