/// SimpleX's binary encoding (simplexmq `src/Simplex/Messaging/Encoding.hs`), the parts XFTP uses:
/// a ByteString is one length byte and the bytes (`instance Encoding ByteString`, 102-106; `Large`,
/// 137-143, has a 2-byte big-endian length), Word16/Word32 are big-endian (72-82), `Maybe` is '0'
/// or '1' and the value (116-122), and a `NonEmpty` list is one count byte and the items (155-178).
/// Tuples are their parts one after another.
public struct XFTPWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public mutating func byte(_ value: UInt8) { bytes.append(value) }

    public mutating func word16(_ value: UInt16) {
        bytes.append(UInt8(value >> 8))
        bytes.append(UInt8(value & 0xFF))
    }

    public mutating func word32(_ value: UInt32) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8((value >> UInt32(shift)) & 0xFF)) }
    }

    /// Bytes as they are, with no length (a tag, a nonce of fixed size, a `Tail`).
    public mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

    /// An ASCII word: a command or response tag.
    public mutating func ascii(_ word: String) { bytes.append(contentsOf: word.utf8) }

    public mutating func space() { bytes.append(0x20) }

    /// A ByteString: one length byte, then the bytes.
    public mutating func short(_ value: [UInt8], field: String) throws(XFTPWireError) {
        guard value.count <= 255 else { throw .tooLong(field: field, length: value.count) }
        bytes.append(UInt8(value.count))
        bytes.append(contentsOf: value)
    }

    /// A `Large`: a 2-byte length, then the bytes.
    public mutating func large(_ value: [UInt8], field: String) throws(XFTPWireError) {
        guard value.count <= 0xFFFF else { throw .tooLong(field: field, length: value.count) }
        word16(UInt16(value.count))
        bytes.append(contentsOf: value)
    }

    /// A `Maybe ByteString`: '0', or '1' and the ByteString.
    public mutating func maybeShort(_ value: [UInt8]?, field: String) throws(XFTPWireError) {
        guard let value else { return byte(UInt8(ascii: "0")) }
        byte(UInt8(ascii: "1"))
        try short(value, field: field)
    }

    /// A `NonEmpty ByteString`: a count byte, then each ByteString.
    public mutating func shortList(_ values: [[UInt8]], field: String) throws(XFTPWireError) {
        guard !values.isEmpty else { throw .invalid(field: field, reason: "the list is empty") }
        guard values.count <= 255 else { throw .tooLong(field: field, length: values.count) }
        bytes.append(UInt8(values.count))
        for value in values { try short(value, field: field) }
    }

    /// A `NonEmpty Large`: a count byte, then each Large.
    public mutating func largeList(_ values: [[UInt8]], field: String) throws(XFTPWireError) {
        guard !values.isEmpty else { throw .invalid(field: field, reason: "the list is empty") }
        guard values.count <= 255 else { throw .tooLong(field: field, length: values.count) }
        bytes.append(UInt8(values.count))
        for value in values { try large(value, field: field) }
    }
}
