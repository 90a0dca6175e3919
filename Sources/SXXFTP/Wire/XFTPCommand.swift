/// What a chunk's sender creates it with: its public key, its exact size and SHA-256 (simplexmq
/// `src/Simplex/FileTransfer/Protocol.hs` 192-197, encoded as the tuple `(sndKey, size, digest)`,
/// 257-259).
public struct XFTPFileInfo: Sendable, Equatable {
    public var senderKey: XFTPPublicKey
    public var size: UInt32
    public var digest: [UInt8]

    public init(senderKey: XFTPPublicKey, size: UInt32, digest: [UInt8]) {
        self.senderKey = senderKey
        self.size = size
        self.digest = digest
    }
}

/// Which key may send a command: the chunk's sender key, or one of its recipient keys.
public enum XFTPParty: Sendable, Equatable {
    case sender, recipient
}

/// XFTP's commands (`Protocol.hs` 177-184), encoded by `encodeProtocol` (201-213) and parsed by
/// `protocolP` (238-249): the tag, and for those with arguments a space and the arguments.
public enum XFTPCommand: Sendable, Equatable {
    /// Creates a chunk; `basicAuth` is the server's upload password, if it has one.
    case new(XFTPFileInfo, recipientKeys: [XFTPPublicKey], basicAuth: [UInt8]?)
    case addRecipients([XFTPPublicKey])
    /// The chunk's bytes follow the command's block in the same request body.
    case put
    case delete
    /// `dhKey` is the recipient's ephemeral X25519 key for this download.
    case get(dhKey: XFTPPublicKey)
    case ack
    case ping

    public var tag: String {
        switch self {
        case .new: "FNEW"
        case .addRecipients: "FADD"
        case .put: "FPUT"
        case .delete: "FDEL"
        case .get: "FGET"
        case .ack: "FACK"
        case .ping: "PING"
        }
    }

    /// `FileCommandTag` parties, `Protocol.hs` 121-128: PING is a recipient command.
    public var party: XFTPParty {
        switch self {
        case .new, .addRecipients, .put, .delete: .sender
        case .get, .ack, .ping: .recipient
        }
    }

    public func encoded() throws(XFTPWireError) -> [UInt8] {
        var writer = XFTPWriter()
        writer.ascii(tag)
        switch self {
        case .new(let file, let recipientKeys, let basicAuth):
            writer.space()
            try writer.short(file.senderKey.der, field: "sender key")
            writer.word32(file.size)
            try writer.short(file.digest, field: "chunk digest")
            try writer.shortList(recipientKeys.map(\.der), field: "recipient keys")
            try writer.maybeShort(basicAuth, field: "server password")
        case .addRecipients(let keys):
            writer.space()
            try writer.shortList(keys.map(\.der), field: "recipient keys")
        case .get(let dhKey):
            writer.space()
            try writer.short(dhKey.der, field: "download key")
        case .put, .delete, .ack, .ping:
            break
        }
        return writer.bytes
    }

    /// Parses a command; `unknownTag` for a word XFTP does not have (the server answers
    /// `CMD UNKNOWN`), any other error for bad arguments (`CMD SYNTAX`).
    public static func parse(_ bytes: [UInt8]) throws(XFTPWireError) -> XFTPCommand {
        var reader = XFTPReader(bytes)
        let tag = reader.tag()
        let command: XFTPCommand
        switch tag {
        case "FNEW":
            try reader.space(field: "FNEW")
            let senderKey = try XFTPPublicKey(authKey: reader.short(field: "sender key"))
            let size = try reader.word32(field: "chunk size")
            let digest = try reader.short(field: "chunk digest")
            let keys = try reader.shortList(field: "recipient keys").map { (der: [UInt8]) throws(XFTPWireError) in try XFTPPublicKey(authKey: der) }
            let auth = try reader.maybeShort(field: "server password")
            command = .new(XFTPFileInfo(senderKey: senderKey, size: size, digest: digest), recipientKeys: keys, basicAuth: auth)
        case "FADD":
            try reader.space(field: "FADD")
            command = .addRecipients(try reader.shortList(field: "recipient keys").map { (der: [UInt8]) throws(XFTPWireError) in try XFTPPublicKey(authKey: der) })
        case "FPUT": command = .put
        case "FDEL": command = .delete
        case "FGET":
            try reader.space(field: "FGET")
            command = .get(dhKey: try XFTPPublicKey(der: reader.short(field: "download key"), expecting: .x25519, field: "download key"))
        case "FACK": command = .ack
        case "PING": command = .ping
        default: throw .unknownTag(tag)
        }
        try reader.expectEnd(field: tag)
        return command
    }
}
