import Foundation
import SXCore

/// An XFTP server's address, `xftp://<keyHash>[:<basicAuth>]@<host>[,<host>…][:<port>]`, as simplexmq
/// writes and reads it (`src/Simplex/Messaging/Protocol.hs` `strEncodeServer` 1357-1361,
/// `serverStrP` 1363-1375; hosts: `src/Simplex/Messaging/Transport/Client.hs` 81-114).
///
/// keyHash is the SHA-256 fingerprint of the server's identity (CA) certificate, base64url. The port
/// applies to every host and is kept as written (an empty port means 443 when connecting, but
/// `h` and `h:443` are different addresses to SimpleX). Basic auth is a server password for
/// uploads; SimpleX refuses it inside file descriptions (`Protocol.hs` 1271-1277).
public struct XFTPServerAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    public static let scheme = "xftp"
    public static let defaultPort = 443

    public var keyHash: [UInt8]
    public var basicAuth: String?
    public var hosts: [TransportHost]
    /// Decimal digits, or empty for the default port.
    public var port: String

    public init(keyHash: [UInt8], basicAuth: String? = nil, hosts: [TransportHost], port: String = "") {
        self.keyHash = keyHash
        self.basicAuth = basicAuth
        self.hosts = hosts
        self.port = port
    }

    /// IPv6 hosts are written in brackets: simplexmq writes them bare (`show`), which its own parser
    /// then reads back wrong when a port follows; it reads the bracketed form right.
    public var description: String {
        "xftp://" + Base64URL.encode(keyHash) + (basicAuth.map { ":" + $0 } ?? "") + "@"
            + hosts.map(\.connectName).joined(separator: ",") + (port.isEmpty ? "" : ":" + port)
    }

    /// The port to connect to.
    public var portNumber: Int { Int(port) ?? Self.defaultPort }

    /// SimpleX's order (the derived `Ord` of `ProtocolServer`, `Protocol.hs` 1251-1257): hosts, then
    /// the port as a string, then keyHash bytes. Descriptions group replicas by server in this order.
    public static func < (a: XFTPServerAddress, b: XFTPServerAddress) -> Bool {
        if a.hosts != b.hosts { return a.hosts.lexicographicallyPrecedes(b.hosts) }
        if a.port != b.port { return a.port.utf8.lexicographicallyPrecedes(b.port.utf8) }
        return a.keyHash.lexicographicallyPrecedes(b.keyHash)
    }

    /// Parses the whole text; nil with the reason on failure.
    public static func parse(_ text: String) -> Result<XFTPServerAddress, AddressProblem> {
        guard let schemeEnd = text.range(of: "://") else { return .failure(.notXFTP(text)) }
        guard text[..<schemeEnd.lowerBound] == Substring(scheme) else { return .failure(.notXFTP(text)) }
        let rest = text[schemeEnd.upperBound...]
        guard let at = rest.firstIndex(of: "@") else { return .failure(.malformed(text, "no '@' before the host")) }
        var identity = rest[..<at]
        var auth: String?
        if let colon = identity.firstIndex(of: ":") {
            let password = identity[identity.index(after: colon)...]
            guard !password.isEmpty, password.unicodeScalars.allSatisfy({ $0.value > 0x20 && $0.value < 0x7F && !"@:/".unicodeScalars.contains($0) }) else {
                return .failure(.malformed(text, "the server password has a character it may not have"))
            }
            auth = String(password)
            identity = identity[..<colon]
        }
        guard let keyHash = Base64URL.decodeLenient(String(identity)) else { return .failure(.malformed(text, "the key hash is not base64url")) }
        var location = String(rest[rest.index(after: at)...])
        var port = ""
        // The port follows every host: after the last ':' unless that belongs to a bare IPv6 host.
        if let colon = location.lastIndex(of: ":") {
            let tail = location[location.index(after: colon)...]
            let head = location[..<colon]
            let lastHost = head.split(separator: ",", omittingEmptySubsequences: false).last ?? ""
            let bareIPv6 = !lastHost.hasPrefix("[") && lastHost.contains(":")
            if !bareIPv6 || head.hasSuffix("]") {
                guard !tail.isEmpty, tail.allSatisfy(\.isASCII), tail.allSatisfy(\.isNumber), let n = Int(tail), n <= 65_535 else {
                    return .failure(.malformed(text, "the port '\(tail)' is not a number"))
                }
                port = String(n)
                location = String(head)
            }
        }
        var hosts: [TransportHost] = []
        for part in location.split(separator: ",", omittingEmptySubsequences: false) {
            switch TransportHost.parse(String(part)) {
            case .success(let host): hosts.append(host)
            case .failure(let reason): return .failure(.malformed(text, reason.text))
            }
        }
        guard !hosts.isEmpty else { return .failure(.malformed(text, "no host")) }
        return .success(XFTPServerAddress(keyHash: keyHash, basicAuth: auth, hosts: hosts, port: port))
    }
}

/// One host of a server address. The cases are in SimpleX's order (`Transport/Client.hs` 70-75: IPv4
/// < IPv6 < onion < domain), each compared by its contents.
public enum TransportHost: Sendable, Hashable, Comparable, CustomStringConvertible {
    case ipv4(UInt8, UInt8, UInt8, UInt8)
    /// The 16 bytes of the address.
    case ipv6([UInt8])
    case onion(String)
    case domain(String)

    public var description: String {
        switch self {
        case .ipv4(let a, let b, let c, let d): return "\(a).\(b).\(c).\(d)"
        case .ipv6(let bytes):
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count))
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        case .onion(let name), .domain(let name): return name
        }
    }

    /// What to connect to (an IPv6 address in brackets for a URL).
    public var connectName: String {
        if case .ipv6 = self { return "[\(description)]" }
        return description
    }

    private var rank: Int {
        switch self {
        case .ipv4: 0
        case .ipv6: 1
        case .onion: 2
        case .domain: 3
        }
    }

    public static func < (a: TransportHost, b: TransportHost) -> Bool {
        switch (a, b) {
        case let (.ipv4(a1, a2, a3, a4), .ipv4(b1, b2, b3, b4)): return [a1, a2, a3, a4].lexicographicallyPrecedes([b1, b2, b3, b4])
        case let (.ipv6(x), .ipv6(y)): return x.lexicographicallyPrecedes(y)
        case let (.onion(x), .onion(y)), let (.domain(x), .domain(y)): return x.unicodeScalars.lexicographicallyPrecedes(y.unicodeScalars)
        default: return a.rank < b.rank
        }
    }

    /// In SimpleX's order of attempts: IPv4, IPv6 (bare or in brackets), onion, domain.
    struct Invalid: Error {
        var text: String
        init(_ text: String) { self.text = text }
    }

    static func parse(_ text: String) -> Result<TransportHost, Invalid> {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        if parts.count == 4, parts.allSatisfy({ !$0.isEmpty && $0.count <= 3 && $0.allSatisfy { $0.isASCII && $0.isNumber } }) {
            let values = parts.compactMap { UInt8($0) }
            guard values.count == 4 else { return .failure(Invalid("invalid IP address '\(text)'")) }
            return .success(.ipv4(values[0], values[1], values[2], values[3]))
        }
        var v6 = text
        if v6.hasPrefix("[") && v6.hasSuffix("]") { v6 = String(v6.dropFirst().dropLast()) }
        if !v6.isEmpty, v6.contains(":"), v6.allSatisfy({ $0.isHexDigit || $0 == ":" }) {
            var address = in6_addr()
            guard inet_pton(AF_INET6, v6, &address) == 1 else { return .failure(Invalid("bad IPv6 address '\(text)'")) }
            return .success(.ipv6(withUnsafeBytes(of: &address) { Array($0) }))
        }
        if text.hasSuffix(".onion") {
            let name = text.dropLast(6)
            guard name.allSatisfy({ ($0.isASCII && $0.isLowercase) || ($0.isASCII && $0.isNumber) }) else { return .failure(Invalid("invalid onion host '\(text)'")) }
            return .success(.onion(text))
        }
        guard !text.isEmpty, !text.contains(where: { ":#,;/ \n\r\t".contains($0) }) else { return .failure(Invalid("invalid host '\(text)'")) }
        return .success(.domain(text))
    }
}

/// Why an address cannot be used.
public enum AddressProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notXFTP(String)
    case malformed(String, String)

    public var description: String {
        switch self {
        case .notXFTP(let text): return "'\(text)' is not an xftp:// server address"
        case .malformed(let text, let why): return "server address '\(text)': \(why)"
        }
    }
}

/// Where a replica lives: one of SimpleX's XFTP servers, or one of sxkit's own relays (a folder
/// path or an http(s) URL, which only sxkit reads).
public enum RelayAddress: Sendable, Hashable, Comparable, CustomStringConvertible {
    case xftp(XFTPServerAddress)
    case sxkit(String)

    /// `xftp://…` is an XFTP server (parsed strictly); anything else names an sxkit relay.
    public static func parse(_ text: String) -> Result<RelayAddress, AddressProblem> {
        guard text.hasPrefix(XFTPServerAddress.scheme + "://") else { return .success(.sxkit(text)) }
        return XFTPServerAddress.parse(text).map(RelayAddress.xftp)
    }

    public var description: String {
        switch self {
        case .xftp(let server): server.description
        case .sxkit(let location): location
        }
    }

    /// The address as a description carries it: an upload password is the sender's alone, and
    /// SimpleX refuses descriptions that contain one (`Protocol.hs` 1271-1277).
    public var withoutPassword: RelayAddress {
        guard case .xftp(var server) = self else { return self }
        server.basicAuth = nil
        return .xftp(server)
    }

    /// XFTP servers first, in SimpleX's order; sxkit's relays after them, by text.
    public static func < (a: RelayAddress, b: RelayAddress) -> Bool {
        switch (a, b) {
        case let (.xftp(x), .xftp(y)): x < y
        case let (.sxkit(x), .sxkit(y)): x.utf8.lexicographicallyPrecedes(y.utf8)
        case (.xftp, .sxkit): true
        case (.sxkit, .xftp): false
        }
    }
}
