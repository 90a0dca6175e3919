import Foundation
import SXCrypto

/// A SOCKS5 proxy, such as Tor's (usually 127.0.0.1:9050), and how this client authenticates to it.
public struct SOCKSProxy: Sendable, Equatable, CustomStringConvertible {
    /// As SimpleX's `SocksAuth` (simplexmq `src/Simplex/Messaging/Transport/Client.hs` 244-249,
    /// 276-287): isolation by authentication is the default, `@` before the address turns it off.
    /// Explicit credentials (`USER:PASS@`) are not taken: they would be a secret on the command line.
    public enum Authentication: Sendable, Equatable {
        /// A username of this run's own (and an empty password): Tor, which isolates streams by
        /// SOCKS credentials (its IsolateSOCKSAuth, on by default), then gives this run circuits
        /// no other program (the SimpleX apps included) shares.
        case isolateByAuth
        /// No authentication offered (`@HOST:PORT`).
        case none
    }

    public var host: String
    public var port: Int
    public var authentication: Authentication

    public init(host: String, port: Int, authentication: Authentication = .isolateByAuth) {
        self.host = host
        self.port = port
        self.authentication = authentication
    }

    /// `HOST:PORT` (`[::1]:9050` for IPv6), `@HOST:PORT` for no authentication; nil when it is
    /// neither.
    public init?(_ text: String) {
        var text = Substring(text)
        var authentication = Authentication.isolateByAuth
        if text.first == "@" {
            authentication = .none
            text = text.dropFirst()
        }
        guard !text.contains("@"), let colon = text.lastIndex(of: ":"), let port = Int(text[text.index(after: colon)...]),
              (1...65535).contains(port) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard !host.isEmpty else { return nil }
        self.init(host: host, port: port, authentication: authentication)
    }

    public var description: String {
        (authentication == .none ? "@" : "") + (host.contains(":") ? "[\(host)]" : host) + ":\(port)"
    }

    /// What this run sends the proxy: nil without authentication.
    public func credentials(session: [UInt8] = SOCKSProxy.runSession) -> SOCKSCredentials? {
        switch authentication {
        case .none: nil
        case .isolateByAuth: SOCKSCredentials(username: Array(Self.isolationUsername(session: session).utf8), password: [])
        }
    }

    /// The username of a session: base64 of the SHA-256 of its token, with an empty password, the
    /// shape of SimpleX's own (`sessionUsername`, simplexmq `src/Simplex/Messaging/Client.hs`
    /// 446-460, whose default session mode, TSMSession (421), keeps one per client session). sxkit's
    /// session is one run, and its token random rather than a user id and a start time, which would
    /// tell the proxy when the run began.
    public static func isolationUsername(session: [UInt8]) -> String {
        Data(SHA256Digest.of(session)).base64EncodedString()
    }

    /// This run's session token: every connection of one run shares its circuits, no two runs do.
    public static let runSession = SodiumRuntime.randomBytes(count: 32)
}
