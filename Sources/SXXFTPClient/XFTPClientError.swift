import SXXFTP

/// Why talking to an XFTP server failed, each a sentence naming the server.
public enum XFTPClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No connection (refused, unreachable, name not found, closed): worth retrying.
    case unreachable(server: String, reason: String)
    /// The server is not the one its address names: never retried, nothing was sent.
    case wrongIdentity(server: String, ServerIdentityProblem)
    /// The handshake failed (versions, session id, a malformed answer).
    case handshake(server: String, reason: String)
    /// The server answered a command with an error.
    case refused(server: String, XFTPErrorCode)
    /// The server's answer did not follow the protocol.
    case badResponse(server: String, reason: String)
    case timedOut(server: String, seconds: Int)
    /// An address this client cannot reach without a proxy (an onion host).
    case needsProxy(server: String)

    public var description: String {
        switch self {
        case .unreachable(let server, let reason): "cannot reach XFTP server \(server): \(reason)"
        case .wrongIdentity(let server, let problem): "XFTP server \(server) is not who its address says: \(problem)"
        case .handshake(let server, let reason): "the XFTP handshake with \(server) failed: \(reason)"
        case .refused(let server, let code): "XFTP server \(server) answered \(code)"
        case .badResponse(let server, let reason): "XFTP server \(server) answered something XFTP does not allow: \(reason)"
        case .timedOut(let server, let seconds): "XFTP server \(server) did not answer within \(seconds) seconds"
        case .needsProxy(let server): "XFTP server \(server) has only onion addresses, which need a SOCKS proxy (Tor)"
        }
    }

    /// Worth trying again after a pause (or on a new connection).
    public var isTransient: Bool {
        switch self {
        case .unreachable, .timedOut: true
        case .refused(_, let code): [.timeout, .internal, .fileIO].contains(code)
        case .wrongIdentity, .handshake, .badResponse, .needsProxy: false
        }
    }
}
