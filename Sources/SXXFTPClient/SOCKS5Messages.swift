/// The bytes of a SOCKS5 client's side of the conversation (RFC 1928, and RFC 1929 for
/// username/password authentication), and the parsing of the proxy's answers. Kept apart from the
/// channel handler so that each can be checked against bytes written out from the RFCs.
enum SOCKS5Messages {
    static let version: UInt8 = 5
    static let noAuthentication: UInt8 = 0
    static let usernamePassword: UInt8 = 2
    static let noAcceptableMethod: UInt8 = 0xFF

    /// VER, NMETHODS, METHODS: one method, username/password when there are credentials (as the
    /// `socks` library SimpleX's clients use offers it: simplexmq `Transport/Client.hs` 224-228).
    static func greeting(credentials: SOCKSCredentials?) -> [UInt8] {
        [version, 1, credentials == nil ? noAuthentication : usernamePassword]
    }

    /// RFC 1929: VER 1, ULEN, UNAME, PLEN, PASSWD.
    static func authentication(_ credentials: SOCKSCredentials) -> [UInt8] {
        [1, UInt8(credentials.username.count)] + credentials.username + [UInt8(credentials.password.count)] + credentials.password
    }

    /// CONNECT to a domain name (ATYP 3): the proxy resolves it, so an onion name reaches Tor whole.
    /// A name has 1 to 255 bytes there.
    static func connect(host: String, port: Int) throws(SOCKSFailure) -> [UInt8] {
        let name = Array(host.utf8)
        guard (1...255).contains(name.count), (0...65535).contains(port) else { throw .unusableTarget(host) }
        return [version, 1, 0, 3, UInt8(name.count)] + name + [UInt8(port >> 8), UInt8(port & 0xFF)]
    }

    enum Reply: Equatable {
        /// Not enough bytes yet.
        case incomplete
        /// Complete, `length` bytes long.
        case complete(length: Int, code: UInt8)
    }

    /// The method selection (VER, METHOD): `code` is the method.
    static func methodReply(_ bytes: ArraySlice<UInt8>) throws(SOCKSFailure) -> Reply {
        guard bytes.count >= 2 else { return .incomplete }
        guard bytes[bytes.startIndex] == version else { throw .notSOCKS5 }
        return .complete(length: 2, code: bytes[bytes.startIndex + 1])
    }

    /// RFC 1929's answer (VER 1, STATUS): `code` is the status, 0 for success.
    static func authenticationReply(_ bytes: ArraySlice<UInt8>) throws(SOCKSFailure) -> Reply {
        guard bytes.count >= 2 else { return .incomplete }
        guard bytes[bytes.startIndex] == 1 else { throw .malformed("an authentication answer of version \(bytes[bytes.startIndex])") }
        return .complete(length: 2, code: bytes[bytes.startIndex + 1])
    }

    /// VER, REP, RSV, ATYP, BND.ADDR, BND.PORT: `code` is REP, 0 for success.
    static func connectReply(_ bytes: ArraySlice<UInt8>) throws(SOCKSFailure) -> Reply {
        guard bytes.count >= 5 else { return .incomplete }
        let start = bytes.startIndex
        guard bytes[start] == version else { throw .notSOCKS5 }
        let address: Int
        switch bytes[start + 3] {
        case 1: address = 4
        case 4: address = 16
        case 3: address = 1 + Int(bytes[start + 4])
        case let other: throw .malformed("a bound address of type \(other)")
        }
        let length = 4 + address + 2
        guard bytes.count >= length else { return .incomplete }
        return .complete(length: length, code: bytes[start + 1])
    }
}

/// A username and password for a SOCKS5 proxy (RFC 1929: a username of 1 to 255 bytes, a password
/// of at most 255; SimpleX sends an empty one).
public struct SOCKSCredentials: Sendable, Equatable {
    public let username: [UInt8]
    public let password: [UInt8]

    public init?(username: [UInt8], password: [UInt8]) {
        guard (1...255).contains(username.count), password.count <= 255 else { return nil }
        self.username = username
        self.password = password
    }
}

/// Why a SOCKS5 proxy did not connect us, in words.
public enum SOCKSFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case notSOCKS5
    case noAcceptableMethod(offered: UInt8)
    case credentialsRefused
    case connectRefused(code: UInt8)
    case malformed(String)
    /// A host name SOCKS5 cannot carry (over 255 bytes).
    case unusableTarget(String)

    public var description: String {
        switch self {
        case .unusableTarget(let host): "the host name '\(host.prefix(40))…' is longer than SOCKS5 allows (255 bytes)"
        case .notSOCKS5: "it does not speak SOCKS5"
        case .noAcceptableMethod(let offered):
            offered == SOCKS5Messages.usernamePassword
                ? "it accepts no username/password authentication, which isolates this run's connections (use @HOST:PORT to connect without it)"
                : "it requires authentication"
        case .credentialsRefused: "it refused the username and password"
        case .connectRefused(let code): "it could not connect: \(Self.reason(code))"
        case .malformed(let what): "it answered \(what)"
        }
    }

    /// RFC 1928 section 6.
    static func reason(_ code: UInt8) -> String {
        switch code {
        case 1: "general failure"
        case 2: "not allowed by its rules"
        case 3: "network unreachable"
        case 4: "host unreachable"
        case 5: "connection refused"
        case 6: "TTL expired"
        case 7: "command not supported"
        case 8: "address type not supported"
        default: "reply code \(code)"
        }
    }
}
