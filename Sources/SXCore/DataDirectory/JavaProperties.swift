/// A Java properties file kept byte for byte: parsed as `java.util.Properties.load` reads one (its
/// `LineReader` and `load0`: `\n`, `\r` and `\r\n` line ends; `#`/`!` comment lines; leading blanks
/// skipped; a line ending in an odd number of backslashes continues on the next; the key ends at an
/// unescaped `=`, `:` or blank), so that one key's value can be replaced, or the key removed, with
/// every other byte — comments, order, spacing, escapes, line ends — exactly as it was.
public struct JavaProperties: Sendable, Equatable {
    /// One `key=value` definition (a logical line).
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: String
        /// Byte offsets: where the logical line starts, where its value starts, where its content
        /// ends (before the last line end) and where the next line starts.
        var lineStart: Int
        var valueStart: Int
        var contentEnd: Int
        var lineEnd: Int
        /// The line is a key alone, with no unescaped separator or blank after it: a value written
        /// there needs a separator first.
        var bareKey: Bool
    }

    public private(set) var bytes: [UInt8]
    public private(set) var entries: [Entry]

    public init(bytes: [UInt8]) {
        self.bytes = bytes
        entries = Self.parse(bytes)
    }

    /// The value `Properties.getProperty` would return: the last definition wins.
    public func value(_ key: String) -> String? {
        entries.last { $0.key == key }?.value
    }

    /// Every key with its value, the last definition winning.
    public var values: [String: String] {
        var result: [String: String] = [:]
        for entry in entries { result[entry.key] = entry.value }
        return result
    }

    public func contains(_ key: String) -> Bool { entries.contains { $0.key == key } }

    /// Replaces the value of every definition of `key` (written as `Properties.store` escapes a
    /// value); the key's own text and separator stay. A missing key is not added.
    public mutating func replaceValue(of key: String, with value: String) {
        let escaped = Array(Self.escapeValue(value).utf8)
        for entry in entries.reversed() where entry.key == key {
            // A bare `key` line has no separator yet: the value needs one.
            bytes.replaceSubrange(entry.valueStart..<entry.contentEnd, with: (entry.bareKey ? [UInt8(ascii: "=")] : []) + escaped)
        }
        entries = Self.parse(bytes)
    }

    /// Removes every definition of `key`, line end included.
    public mutating func remove(_ key: String) {
        for entry in entries.reversed() where entry.key == key {
            bytes.removeSubrange(entry.lineStart..<entry.lineEnd)
        }
        entries = Self.parse(bytes)
    }

    /// A value as `Properties.store(Writer, …)` writes it (`saveConvert` with escapeSpace false and
    /// escUnicode false): `\` doubled; tab, newline, return and form feed as `\t` `\n` `\r` `\f`;
    /// `=`, `:`, `#`, `!` after a backslash; a space only when it is the first character; all other
    /// characters as they are.
    public static func escapeValue(_ value: String) -> String {
        var out = ""
        for (i, c) in value.enumerated() {
            switch c {
            case "\\": out += "\\\\"
            case "\t": out += "\\t"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\u{0C}": out += "\\f"
            case "=", ":", "#", "!": out += "\\" + String(c)
            case " " where i == 0: out += "\\ "
            default: out.append(c)
            }
        }
        return out
    }

    // MARK: Parsing

    private static func isBlank(_ b: UInt8) -> Bool { b == 0x20 || b == 0x09 || b == 0x0C }

    /// The physical lines: content range and where the next line starts.
    private static func physicalLines(_ bytes: [UInt8]) -> [(start: Int, end: Int, next: Int)] {
        var lines: [(Int, Int, Int)] = []
        var start = 0
        var i = 0
        while i < bytes.count {
            if bytes[i] == 0x0A || bytes[i] == 0x0D {
                let next = bytes[i] == 0x0D && i + 1 < bytes.count && bytes[i + 1] == 0x0A ? i + 2 : i + 1
                lines.append((start, i, next))
                start = next
                i = next
            } else {
                i += 1
            }
        }
        if start < bytes.count { lines.append((start, bytes.count, bytes.count)) }
        return lines
    }

    static func parse(_ bytes: [UInt8]) -> [Entry] {
        let lines = physicalLines(bytes)
        var entries: [Entry] = []
        var index = 0
        while index < lines.count {
            let first = lines[index]
            var p = first.start
            while p < first.end, isBlank(bytes[p]) { p += 1 }
            if p == first.end || bytes[p] == UInt8(ascii: "#") || bytes[p] == UInt8(ascii: "!") {
                index += 1
                continue
            }
            // The logical line's bytes with where each came from; continuations dropped.
            var logical: [(byte: UInt8, offset: Int)] = []
            var line = first
            while true {
                var segment = Array(p..<line.end)
                let trailing = segment.reversed().prefix { bytes[$0] == UInt8(ascii: "\\") }.count
                let continues = trailing % 2 == 1 && index + 1 < lines.count
                if trailing % 2 == 1 { segment.removeLast() }
                logical += segment.map { (bytes[$0], $0) }
                guard continues else { break }
                index += 1
                line = lines[index]
                p = line.start
                while p < line.end, isBlank(bytes[p]) { p += 1 }
            }
            entries.append(entry(logical, lineStart: first.start, contentEnd: line.end, lineEnd: line.next))
            index += 1
        }
        return entries
    }

    private static func entry(_ logical: [(byte: UInt8, offset: Int)], lineStart: Int, contentEnd: Int, lineEnd: Int) -> Entry {
        let limit = logical.count
        var keyLength = 0
        var valueIndex = limit
        var hasSeparator = false
        var precedingBackslash = false
        while keyLength < limit {
            let c = logical[keyLength].byte
            if (c == UInt8(ascii: "=") || c == UInt8(ascii: ":")) && !precedingBackslash {
                valueIndex = keyLength + 1
                hasSeparator = true
                break
            } else if isBlank(c) && !precedingBackslash {
                valueIndex = keyLength + 1
                break
            }
            precedingBackslash = c == UInt8(ascii: "\\") ? !precedingBackslash : false
            keyLength += 1
        }
        while valueIndex < limit {
            let c = logical[valueIndex].byte
            if !isBlank(c) {
                if !hasSeparator && (c == UInt8(ascii: "=") || c == UInt8(ascii: ":")) { hasSeparator = true } else { break }
            }
            valueIndex += 1
        }
        // An empty value starts right after the line's last logical byte, not at its content end: a
        // line ending `key\` at the end of the file drops that backslash, and a value written after
        // it would be escaped by it into the key (found by fuzzing).
        let valueStart = valueIndex < limit ? logical[valueIndex].offset : logical.last.map { $0.offset + 1 } ?? contentEnd
        return Entry(key: unescape(logical[0..<keyLength].map(\.byte)), value: unescape(logical[valueIndex...].map(\.byte)),
                     lineStart: lineStart, valueStart: valueStart, contentEnd: contentEnd, lineEnd: lineEnd, bareKey: keyLength == limit)
    }

    /// `loadConvert`: `\t` `\n` `\r` `\f`, `\uXXXX`, and a backslash before anything else dropped.
    private static func unescape(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            i += 1
            guard c == UInt8(ascii: "\\"), i < bytes.count else {
                out.append(c)
                continue
            }
            let e = bytes[i]
            i += 1
            switch e {
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "u") where i + 4 <= bytes.count:
                if let code = UInt32(String(decoding: bytes[i..<i + 4], as: UTF8.self), radix: 16), let scalar = Unicode.Scalar(code) {
                    out += Array(String(Character(scalar)).utf8)
                }
                i += 4
            default: out.append(e)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
