/// Why bytes are not a valid XFTP block, transmission, command, response or handshake. Each case says
/// which part was wrong, so that a refusal names what a peer sent rather than "parse error".
public enum XFTPWireError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Fewer bytes than the field needs.
    case truncated(field: String)
    /// A length-prefixed field longer than its prefix can say (255 or 65,535 bytes).
    case tooLong(field: String, length: Int)
    /// The content does not fit in a 16,384-byte block with its 2-byte length.
    case blockOverflow(length: Int)
    /// A block that is not exactly 16,384 bytes, or whose length prefix points past its end.
    case badBlock(length: Int)
    /// A command or response word that XFTP does not have.
    case unknownTag(String)
    /// A field whose bytes are not what the protocol allows there.
    case invalid(field: String, reason: String)
    /// Bytes left over where the message must end.
    case trailingBytes(field: String, count: Int)

    public var description: String {
        switch self {
        case .truncated(let field): "the \(field) is cut short"
        case .tooLong(let field, let length): "the \(field) is \(length) bytes, more than its length prefix can hold"
        case .blockOverflow(let length): "\(length) bytes do not fit in one 16,384-byte XFTP block"
        case .badBlock(let length): "a \(length)-byte XFTP block is not valid (blocks are 16,384 bytes, with a 2-byte length first)"
        case .unknownTag(let tag): "'\(tag)' is not an XFTP command or response"
        case .invalid(let field, let reason): "the \(field) is not valid: \(reason)"
        case .trailingBytes(let field, let count): "\(count) unexpected bytes after the \(field)"
        }
    }
}
