import Foundation

/// Minimal JSON text helpers for hand-assembled lines (event streams), where building a Codable
/// type per line would be noise. Strings are escaped exactly as aeson escapes them (`\\`, `\"`, `\n`,
/// `\r`, `\t`, other control characters as lower-case `\u00xx`, the rest raw), so lines meant to match
/// the chat core's bytes use it too.
public enum JSONText {
    public static func quote(_ s: String) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            case _ where FileNameBytes.isEscape(scalar): out += FileNameBytes.display(String(scalar), prefix: "\\\\x")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
