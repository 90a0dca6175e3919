import Foundation

/// Minimal JSON text helpers for hand-assembled lines (event streams), where building a Codable
/// type per line would be noise. Strings are escaped exactly as aeson escapes them (`\\`, `\"`, `\n`,
/// `\r`, `\t`, other control characters as lower-case `\u00xx`, the rest raw), so lines meant to match
/// the chat core's bytes use it too.
public enum JSONText {
    /// `s` as a JSON string. A byte of a name that is not UTF-8 is shown as `\\xE9` (the value reads
    /// `\xE9`); for a file sxkit reads back (a manifest), `keepingRawBytes` writes it as the JSON
    /// escape of its carrying character (`\uEFE9`), which decodes to the same path.
    public static func quote(_ s: String, keepingRawBytes: Bool = false) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            case _ where FileNameBytes.isEscape(scalar):
                out += keepingRawBytes ? String(format: "\\u%04X", scalar.value) : FileNameBytes.display(String(scalar), prefix: "\\\\x")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
