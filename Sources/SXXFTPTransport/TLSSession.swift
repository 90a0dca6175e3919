/// What a finished TLS handshake established.
public struct TLSSession: Sendable, Equatable {
    /// The tls-unique channel binding as SimpleX computes it, under TLS 1.3 too: the verify_data of
    /// the client's Finished message (simplexmq `src/Simplex/Messaging/Transport.hs` 374-381: the
    /// server takes `getPeerFinished`, the client `getFinished`; Haskell tls `Handshake/Common13.hs`
    /// `makeFinished`/`checkFinished` store the Finished each side sent and received). XFTP's session id.
    public var tlsUnique: [UInt8]
    /// The negotiated application protocol, if any.
    public var alpn: String?
    /// The peer's certificates, DER, leaf first (empty for a client as the server sees it).
    public var peerChain: [[UInt8]]
    /// The host name a client asked for (SNI): SimpleX's browser client sends one, its native clients do not.
    public var serverName: String?
}

/// Why a TLS connection failed.
public enum TLSFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case handshake(String)
    case closedDuringHandshake
    case protocolError(String)

    public var description: String {
        switch self {
        case .handshake(let reason): "the TLS handshake failed: \(reason)"
        case .closedDuringHandshake: "the connection closed during the TLS handshake"
        case .protocolError(let reason): "TLS failed: \(reason)"
        }
    }
}
