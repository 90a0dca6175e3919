#if canImport(Glibc)
import Glibc
#endif
import SXXFTP
import SXXFTPTransport

/// How `XFTPServer` runs. Defaults follow simplexmq's XFTP server (`Server/Main.hs` 280-300,
/// `Server/Env.hs` 160-171): chunks of 64 KiB, 256 KiB, 1 MiB or 4 MiB, files expire after 48 hours
/// (checked every 2 hours), Ed448 certificates. Unlike it, the default address is loopback only.
public struct XFTPServerConfiguration: Sendable {
    /// Holds the identity (ca/server keys and certificates), `store.log` and `files/`.
    public var storeFolder: String
    public var host: String
    /// 0 picks a free port.
    public var port: Int
    /// The host name or address written in the server's address and certificate.
    public var publicHost: String
    /// The upload password (basic auth for FNEW), if uploads need one.
    public var password: [UInt8]?
    /// The most bytes of chunks stored at once, if limited.
    public var maxStoreBytes: Int64?
    public var expirySeconds: Int64
    public var expiryCheckSeconds: Int64
    public var allowedChunkSizes: [UInt32]
    public var certificateAlgorithm: SigningKey.Algorithm
    /// The clock, seconds since 1970 (tests move it).
    public var now: @Sendable () -> Int64
    public var timeouts = Timeouts()
    /// A folder of files served to browsers (SimpleX's xftp-web page, so that web links to this
    /// server open in a browser): GET requests that come with SNI, as simplexmq's server serves its
    /// `static_path` (`Server.hs` 150-155). Nil: none served.
    public var webRoot: String?
    /// The certificate chain and key presented to clients that send SNI (browsers), one a browser
    /// trusts; their requests then also get CORS headers. Nil: every client gets the identity's.
    public var webCredentials: WebCredentials?
    /// After answering an upload before its end (a refusal), leave the rest of its body unread and
    /// the stream open until the client ends or resets it, as simplexmq's server does (its HTTP/2
    /// library then grants the client no more window: `http2` 4.2.2 credits a body as it is read).
    /// For testing clients against that behaviour; off, the rest is cut short (`unreadBodyGrace`).
    public var leavesRefusedUploadsUnread = false

    /// How long a client may take, so that slow or silent connections cannot hold the server's
    /// resources (connections, reserved space) for ever.
    public struct Timeouts: Sendable {
        /// To finish the TLS handshake: simplexmq's `tlsSetupTimeout`, 60 s (`Transport/Server.hs` 97),
        /// which a client over Tor may need (SimpleX's clients wait 45 s to connect in the
        /// background: `Messaging/Client.hs` 425).
        public var handshake: Duration = .seconds(60)
        /// To send a request's first block (the command) once the request has started.
        public var requestHead: Duration = .seconds(30)
        /// To upload a whole chunk: simplexmq's `fileTimeout`, 5 minutes for a 4 MiB chunk (`Server/Main.hs` 294).
        public var upload: Duration = .seconds(300)
        /// A connection from which nothing arrives for this long is closed (a transfer in progress
        /// always sends: data, or window updates while it downloads).
        public var idle: Duration = .seconds(120)
        /// After an answer that left part of the request's body unread (a refused or oversized
        /// upload), how long the client has to end its request before the stream is reset.
        public var unreadBodyGrace: Duration = .seconds(5)

        public init() {}
    }

    public init(storeFolder: String, host: String = "127.0.0.1", port: Int = 443, publicHost: String? = nil, password: [UInt8]? = nil,
                maxStoreBytes: Int64? = nil, expirySeconds: Int64 = 48 * 3600, expiryCheckSeconds: Int64 = 2 * 3600,
                allowedChunkSizes: [UInt32] = [64 << 10, 256 << 10, 1 << 20, 4 << 20], certificateAlgorithm: SigningKey.Algorithm = .ed448,
                now: @escaping @Sendable () -> Int64 = { Int64(time(nil)) }) {
        self.storeFolder = storeFolder
        self.host = host
        self.port = port
        self.publicHost = publicHost ?? host
        self.password = password
        self.maxStoreBytes = maxStoreBytes
        self.expirySeconds = expirySeconds
        self.expiryCheckSeconds = expiryCheckSeconds
        self.allowedChunkSizes = allowedChunkSizes
        self.certificateAlgorithm = certificateAlgorithm
        self.now = now
    }
}
