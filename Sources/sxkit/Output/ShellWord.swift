import SXCore

/// Words of a command printed for the user to paste: every such command is built from these, so it
/// runs as printed whatever the names hold (spaces, quotes, `$`, newlines, bytes that are not UTF-8).
enum ShellWord {
    /// `word` as one shell word: as it is when every character is plain (letters, digits and
    /// `@%+=:,./_-`), else in single quotes with `'\''` for a quote inside (POSIX sh). A word holding
    /// a control character (a newline) or bytes that are not UTF-8 is written `$'…'` with `\n`,
    /// `\xE9` escapes instead, so the line stays one line of text: bash, zsh and ksh read that form,
    /// and POSIX sh has it since the 2024 edition (dash before 0.5.13 does not).
    static func quote(_ word: String) -> String {
        if !word.isEmpty, word.unicodeScalars.allSatisfy(isPlain) { return word }
        if word.unicodeScalars.contains(where: { FileNameBytes.isEscape($0) || $0.value < 0x20 || $0.value == 0x7F }) {
            return dollarQuoted(word)
        }
        return "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    /// Words joined into one command line, each quoted.
    static func command(_ words: [String]) -> String { words.map(quote).joined(separator: " ") }

    private static func isPlain(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "a"..."z", "A"..."Z", "0"..."9", "@", "%", "+", "=", ":", ",", ".", "/", "_", "-": true
        default: false
        }
    }

    private static func dollarQuoted(_ word: String) -> String {
        var out = "$'"
        for scalar in word.unicodeScalars {
            switch scalar {
            case "\\": out += "\\\\"
            case "'": out += "\\'"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if FileNameBytes.isEscape(scalar) {
                    out += hex(UInt8(scalar.value - 0xEF00))
                } else if scalar.value < 0x20 || scalar.value == 0x7F {
                    out += hex(UInt8(scalar.value))
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "'"
    }

    private static func hex(_ byte: UInt8) -> String {
        "\\x" + String(byte >> 4, radix: 16) + String(byte & 0xF, radix: 16)
    }
}
