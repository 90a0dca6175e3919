/// A Linux file name is bytes; a Swift `String` holds only Unicode. Bytes that are not UTF-8 (a
/// Latin-1 `caf\xE9.jpg`) are carried in a String losslessly as the private-use characters
/// U+EF80...U+EFFF, one per byte 0x80...0xFF (the block MirBSD's OPTU-8 uses for the same purpose).
/// A name whose valid UTF-8 spells one of those characters has those bytes carried the same way, so
/// every byte string has exactly one String and back: `bytes(string(b)) == b`.
public enum FileNameBytes {
    private static let escapes: ClosedRange<UInt32> = 0xEF80...0xEFFF

    /// The String that carries `bytes`.
    public static func string(_ bytes: some Collection<UInt8>) -> String {
        decode(bytes).string
    }

    /// The String that carries `bytes`, and whether they were UTF-8 text (one validation for both:
    /// a folder walk asks this of every name).
    public static func decode(_ bytes: some Collection<UInt8>) -> (string: String, isUTF8: Bool) {
        let raw = Array(bytes)
        if let valid = String(validating: raw, as: UTF8.self) {
            // Only a name holding 0xEE can spell a carrier character (U+EF80...U+EFFF is EE BE/BF xx).
            if !raw.contains(0xEE) || !valid.unicodeScalars.contains(where: isEscape) { return (valid, true) }
            return (carried(raw), true)
        }
        return (carried(raw), false)
    }

    private static func carried(_ raw: [UInt8]) -> String {
        var scalars = String.UnicodeScalarView()
        var i = 0
        while i < raw.count {
            let length = sequenceLength(raw[i])
            if length > 1, i + length <= raw.count, let text = String(validating: raw[i..<(i + length)], as: UTF8.self),
               let scalar = text.unicodeScalars.first, !isEscape(scalar) {
                scalars.append(scalar)
                i += length
            } else if raw[i] < 0x80 {
                scalars.append(Unicode.Scalar(raw[i]))
                i += 1
            } else {
                scalars.append(Unicode.Scalar(0xEF00 + UInt32(raw[i]))!)
                i += 1
            }
        }
        return String(scalars)
    }

    /// The bytes `string` carries (its UTF-8, with every carried byte put back).
    public static func bytes(_ string: String) -> [UInt8] {
        guard hasRawBytes(string) else { return Array(string.utf8) }
        var out: [UInt8] = []
        for scalar in string.unicodeScalars {
            if isEscape(scalar) { out.append(UInt8(scalar.value - 0xEF00)) } else { out.append(contentsOf: String(scalar).utf8) }
        }
        return out
    }

    /// `string` as text for another program to store (a file header, an archive): each carried
    /// byte becomes U+FFFD, as any UTF-8 decoder reads it.
    public static func text(_ string: String) -> String {
        hasRawBytes(string) ? String(decoding: bytes(string), as: UTF8.self) : string
    }

    /// Whether `string` carries bytes that are not UTF-8 text.
    public static func hasRawBytes(_ string: String) -> Bool { string.unicodeScalars.contains(where: isEscape) }

    /// `string` to show: each carried byte as `\xE9`, the rest as it is. Inside JSON text the
    /// prefix is `\\x`, so that the string's value reads `\xE9`.
    public static func display(_ string: String, prefix: String = "\\x") -> String {
        guard hasRawBytes(string) else { return string }
        var out = ""
        for scalar in string.unicodeScalars {
            if isEscape(scalar) {
                let byte = scalar.value - 0xEF00
                out += prefix + String(byte >> 4, radix: 16, uppercase: true) + String(byte & 0xF, radix: 16, uppercase: true)
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    public static func isEscape(_ scalar: Unicode.Scalar) -> Bool { escapes.contains(scalar.value) }

    /// How many bytes a UTF-8 sequence starting with `lead` has (1 for a byte that starts none).
    private static func sequenceLength(_ lead: UInt8) -> Int {
        switch lead {
        case 0xC2...0xDF: 2
        case 0xE0...0xEF: 3
        case 0xF0...0xF4: 4
        default: 1
        }
    }
}
