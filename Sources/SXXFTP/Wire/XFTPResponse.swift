/// XFTP's responses (`src/Simplex/FileTransfer/Protocol.hs` 294-324).
public enum XFTPResponse: Sendable, Equatable {
    /// FNEW's answer: the sender's chunk id and one id per recipient key, in order.
    case senderIds(senderId: [UInt8], recipientIds: [[UInt8]])
    /// FADD's answer.
    case recipientIds([[UInt8]])
    /// FGET's answer: the server's ephemeral X25519 key and the secret-box nonce; the encrypted chunk
    /// and its 16-byte tag follow the block in the response body.
    case file(dhKey: XFTPPublicKey, nonce: [UInt8])
    case ok
    case error(XFTPErrorCode)
    case pong

    public var tag: String {
        switch self {
        case .senderIds: "SIDS"
        case .recipientIds: "RIDS"
        case .file: "FILE"
        case .ok: "OK"
        case .error: "ERR"
        case .pong: "PONG"
        }
    }

    public func encoded() throws(XFTPWireError) -> [UInt8] {
        var writer = XFTPWriter()
        writer.ascii(tag)
        switch self {
        case .senderIds(let senderId, let recipientIds):
            writer.space()
            try writer.short(senderId, field: "sender id")
            try writer.shortList(recipientIds, field: "recipient ids")
        case .recipientIds(let ids):
            writer.space()
            try writer.shortList(ids, field: "recipient ids")
        case .file(let dhKey, let nonce):
            writer.space()
            try writer.short(dhKey.der, field: "download key")
            // `CbNonce` is its 24 bytes with no length (`Crypto.hs` instance Encoding CbNonce).
            guard nonce.count == 24 else { throw .invalid(field: "nonce", reason: "a nonce is 24 bytes, not \(nonce.count)") }
            writer.raw(nonce)
        case .error(let code):
            writer.space()
            writer.raw(code.encoded)
        case .ok, .pong:
            break
        }
        return writer.bytes
    }

    public static func parse(_ bytes: [UInt8]) throws(XFTPWireError) -> XFTPResponse {
        var reader = XFTPReader(bytes)
        let tag = reader.tag()
        let response: XFTPResponse
        switch tag {
        case "SIDS":
            try reader.space(field: "SIDS")
            let sender = try reader.short(field: "sender id")
            response = .senderIds(senderId: sender, recipientIds: try reader.shortList(field: "recipient ids"))
        case "RIDS":
            try reader.space(field: "RIDS")
            response = .recipientIds(try reader.shortList(field: "recipient ids"))
        case "FILE":
            try reader.space(field: "FILE")
            let key = try XFTPPublicKey(der: reader.short(field: "download key"), expecting: .x25519, field: "download key")
            response = .file(dhKey: key, nonce: try reader.take(24, field: "nonce"))
        case "OK": response = .ok
        case "PONG": response = .pong
        case "ERR":
            try reader.space(field: "ERR")
            response = .error(try XFTPErrorCode.parse(reader.rest()))
        default: throw .unknownTag(tag)
        }
        try reader.expectEnd(field: tag)
        return response
    }
}
