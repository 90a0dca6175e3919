/// XFTP's fixed-size block: every command, response and handshake travels as exactly 16,384 bytes,
/// a 2-byte big-endian content length, the content, and '#' up to the end (simplexmq
/// `src/Simplex/FileTransfer/Protocol.hs` 83-84 `xftpBlockSize`; `src/Simplex/Messaging/Crypto.hs`
/// 1082-1097 `pad`/`unPad`). Fixed sizes keep an observer from learning the command by its length.
public enum XFTPBlock {
    public static let size = 16_384
    /// The most content one block carries.
    public static let maxContent = size - 2

    public static func pad(_ content: [UInt8]) throws(XFTPWireError) -> [UInt8] {
        guard content.count <= maxContent else { throw .blockOverflow(length: content.count) }
        var block = [UInt8]()
        block.reserveCapacity(size)
        block.append(UInt8(content.count >> 8))
        block.append(UInt8(content.count & 0xFF))
        block.append(contentsOf: content)
        block.append(contentsOf: repeatElement(UInt8(ascii: "#"), count: size - block.count))
        return block
    }

    /// The content of a block. Like `unPad`, the padding bytes themselves are not checked; unlike it,
    /// the block must be exactly 16,384 bytes (the server and client check that before `unPad`:
    /// `Server.hs` 400, `Client.hs` 235).
    public static func unpad(_ block: [UInt8]) throws(XFTPWireError) -> [UInt8] {
        guard block.count == size else { throw .badBlock(length: block.count) }
        let length = Int(block[0]) << 8 | Int(block[1])
        guard 2 + length <= block.count else { throw .badBlock(length: block.count) }
        return Array(block[2..<2 + length])
    }
}
