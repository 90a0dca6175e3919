/// The few DER pieces XFTP needs around keys (X.690): a length, and reading one element.
enum DER {
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var rest = count
        while rest > 0 {
            bytes.insert(UInt8(rest & 0xFF), at: 0)
            rest >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }

    static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] { [tag] + length(content.count) + content }

    /// One element at the reader's position: its tag, its content, and its whole bytes.
    static func read(_ bytes: [UInt8], at position: inout Int, field: String) throws(XFTPWireError) -> (tag: UInt8, content: ArraySlice<UInt8>, whole: ArraySlice<UInt8>) {
        let start = position
        guard position + 2 <= bytes.count else { throw .truncated(field: field) }
        let tag = bytes[position]
        var length = Int(bytes[position + 1])
        position += 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...3).contains(count), position + count <= bytes.count else { throw .invalid(field: field, reason: "a DER length of \(count) bytes") }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[position])
                position += 1
            }
        }
        guard position + length <= bytes.count else { throw .truncated(field: field) }
        defer { position += length }
        return (tag, bytes[position..<position + length], bytes[start..<position + length])
    }
}
