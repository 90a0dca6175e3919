/// Reads what `XFTPWriter` writes (simplexmq `Encoding.hs`), failing with the field's name.
public struct XFTPReader: Sendable {
    public let bytes: [UInt8]
    public private(set) var position: Int

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes
        position = 0
    }

    public var remaining: Int { bytes.count - position }
    public var atEnd: Bool { position == bytes.count }

    public mutating func byte(field: String) throws(XFTPWireError) -> UInt8 {
        guard remaining >= 1 else { throw .truncated(field: field) }
        defer { position += 1 }
        return bytes[position]
    }

    public mutating func take(_ count: Int, field: String) throws(XFTPWireError) -> [UInt8] {
        guard count >= 0, remaining >= count else { throw .truncated(field: field) }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    public mutating func word16(field: String) throws(XFTPWireError) -> UInt16 {
        let two = try take(2, field: field)
        return UInt16(two[0]) << 8 | UInt16(two[1])
    }

    public mutating func word32(field: String) throws(XFTPWireError) -> UInt32 {
        try take(4, field: field).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
    }

    public mutating func short(field: String) throws(XFTPWireError) -> [UInt8] {
        try take(Int(byte(field: field)), field: field)
    }

    public mutating func large(field: String) throws(XFTPWireError) -> [UInt8] {
        try take(Int(word16(field: field)), field: field)
    }

    public mutating func maybeShort(field: String) throws(XFTPWireError) -> [UInt8]? {
        switch try byte(field: field) {
        case UInt8(ascii: "0"): return nil
        case UInt8(ascii: "1"): return try short(field: field)
        case let other: throw .invalid(field: field, reason: "a Maybe starts with '0' or '1', not byte \(other)")
        }
    }

    public mutating func shortList(field: String) throws(XFTPWireError) -> [[UInt8]] {
        let count = Int(try byte(field: field))
        guard count > 0 else { throw .invalid(field: field, reason: "the list is empty") }
        var values: [[UInt8]] = []
        for _ in 0..<count { values.append(try short(field: field)) }
        return values
    }

    public mutating func largeList(field: String) throws(XFTPWireError) -> [[UInt8]] {
        let count = Int(try byte(field: field))
        guard count > 0 else { throw .invalid(field: field, reason: "the list is empty") }
        var values: [[UInt8]] = []
        for _ in 0..<count { values.append(try large(field: field)) }
        return values
    }

    /// A tag: the bytes up to a space or the end (`messageTagP`, `A.takeTill (== ' ')`).
    public mutating func tag() -> String {
        let start = position
        while position < bytes.count, bytes[position] != 0x20 { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }

    public mutating func space(field: String) throws(XFTPWireError) {
        guard try byte(field: field) == 0x20 else { throw .invalid(field: field, reason: "a space must follow the tag") }
    }

    /// Everything left (a `Tail`).
    public mutating func rest() -> [UInt8] {
        defer { position = bytes.count }
        return Array(bytes[position...])
    }

    public func expectEnd(field: String) throws(XFTPWireError) {
        guard atEnd else { throw .trailingBytes(field: field, count: remaining) }
    }
}
