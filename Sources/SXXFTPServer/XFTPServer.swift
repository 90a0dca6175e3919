#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import Synchronization
import NIOHTTP2
import NIOPosix
import SXCore
import SXTransfer
import SXXFTP
import SXXFTPTransport

/// An XFTP server any SimpleX client can use: TLS 1.3 with ALPN `xftp/1`, HTTP/2, the XFTP
/// handshake and commands (simplexmq `src/Simplex/FileTransfer/Server.hs`). On first start it makes
/// its identity in the store folder; its address is `xftp://<key hash>@<host>:<port>`.
public final class XFTPServer: Sendable {
    typealias Connection = (channel: any Channel, established: EventLoopFuture<TLSSession>,
                            streams: NIOHTTP2Handler.AsyncStreamMultiplexer<HTTP2StreamChannel>)

    public let configuration: XFTPServerConfiguration
    public let identity: ServerIdentity
    /// Whether this start made the identity (first start in this folder).
    public let identityCreated: Bool
    public let port: Int
    let store: ChunkStore
    private let listener: NIOAsyncChannel<Connection, Never>
    /// Open client connections, closed by `stop` once its grace period is over.
    private let open = Mutex<[ObjectIdentifier: any Channel]>([:])
    /// How long `stop` lets requests in flight finish before it closes the connections.
    public static let stopGrace: Duration = .seconds(3)

    /// `xftp://<key hash>@<public host>:<port>`.
    public var address: XFTPServerAddress {
        let host = configuration.publicHost.contains(":") && !configuration.publicHost.hasPrefix("[") ? "[\(configuration.publicHost)]" : configuration.publicHost
        let text = "xftp://\(Base64URL.encode(identity.keyHash))@\(host):\(port)"
        switch XFTPServerAddress.parse(text) {
        case .success(let address): return address
        case .failure: return XFTPServerAddress(keyHash: identity.keyHash, hosts: [.domain(configuration.publicHost)], port: String(port))
        }
    }

    /// Makes or reads the identity, restores the store from its log, and listens.
    public static func start(_ configuration: XFTPServerConfiguration) async throws -> XFTPServer {
        try Folders.create(configuration.storeFolder, mode: 0o700)
        let filesFolder = Path.join(configuration.storeFolder, "files")
        try Folders.create(filesFolder, mode: 0o700)
        let (identity, created) = try ServerIdentity.loadOrCreate(folder: configuration.storeFolder, commonName: configuration.publicHost,
                                                                  algorithm: configuration.certificateAlgorithm)
        if let webRoot = configuration.webRoot, StaticPage(folder: webRoot) == nil { throw XFTPServerError.webRootMissing(path: webRoot) }
        let store = try ChunkStore(logPath: Path.join(configuration.storeFolder, "store.log"), filesFolder: filesFolder)
        if let key = configuration.webCredentials?.keyFile, let st = try? POSIXFile.status(key), st.st_mode & 0o077 != 0 {
            throw XFTPServerError.webKeyOpen(path: key)
        }
        let tls = try TLSContext.server(identity: identity, web: configuration.webCredentials)
        let http2 = HTTP2Tuning.configuration
        let listener: NIOAsyncChannel<Connection, Never>
        do {
            listener = try await bind(configuration, tls: tls, http2: http2)
        } catch {
            let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
            throw XFTPServerError.cannotListen(address: "\(host):\(configuration.port)", cause: ErrorCause.text(of: error))
        }
        let port = listener.channel.localAddress?.port ?? configuration.port
        return XFTPServer(configuration: configuration, identity: identity, identityCreated: created, port: port, store: store, listener: listener)
    }

    private static func bind(_ configuration: XFTPServerConfiguration, tls: TLSContext, http2: NIOHTTP2Handler.Configuration) async throws
        -> NIOAsyncChannel<Connection, Never> {
        try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .serverChannelOption(.backlog, value: 256)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture { () -> Connection in
                    // A connection that sends nothing for `idle` is closed, before TLS: a silent or
                    // stalled client (slow headers, a body that stopped) holds nothing for ever.
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: configuration.timeouts.idle.timeAmount))
                    try channel.pipeline.syncOperations.addHandler(IdleConnectionCloser())
                    let handler = try TLSHandler(context: tls)
                    try channel.pipeline.syncOperations.addHandler(handler)
                    // The TLS handshake gets `handshake` to finish; a client that dawdles is closed.
                    let handshakeTimer = channel.eventLoop.scheduleTask(in: configuration.timeouts.handshake.timeAmount) { channel.close(promise: nil) }
                    handler.established.whenComplete { _ in handshakeTimer.cancel() }
                    let streams = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(mode: .server, configuration: http2) { stream in
                        stream.eventLoop.makeCompletedFuture {
                            try stream.pipeline.syncOperations.addHandler(DataFrameCompactor())
                            return try HTTP2StreamChannel(wrappingChannelSynchronously: stream)
                        }
                    }
                    return (channel, handler.established, streams)
                }
            }
    }

    private init(configuration: XFTPServerConfiguration, identity: ServerIdentity, identityCreated: Bool, port: Int, store: ChunkStore,
                 listener: NIOAsyncChannel<Connection, Never>) {
        self.configuration = configuration
        self.identity = identity
        self.identityCreated = identityCreated
        self.port = port
        self.store = store
        self.listener = listener
    }

    /// Serves until `stop()`. Expired chunks are swept at start and then periodically.
    public func run() async throws {
        let processor = XFTPRequestProcessor(configuration: configuration, identity: identity, store: store,
                                             page: configuration.webRoot.flatMap(StaticPage.init(folder:)))
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { [self] in
                while !Task.isCancelled {
                    sweepExpired()
                    try? await Task.sleep(for: .seconds(max(configuration.expiryCheckSeconds, 1)))
                }
            }
            try await listener.executeThenClose { connections in
                for try await connection in connections {
                    let id = ObjectIdentifier(connection.channel)
                    open.withLock { $0[id] = connection.channel }
                    group.addTask { [self] in
                        await Self.serve(connection, processor: processor)
                        _ = open.withLock { $0.removeValue(forKey: id) }
                    }
                }
            }
            group.cancelAll()
        }
    }

    /// Stops accepting connections, gives requests in flight `stopGrace` to finish, then closes the
    /// connections still open (an idle client would otherwise keep the server running).
    public func stop() async {
        try? await listener.channel.close()
        let deadline = ContinuousClock.now + Self.stopGrace
        while ContinuousClock.now < deadline, !open.withLock({ $0.isEmpty }) {
            try? await Task.sleep(for: .milliseconds(50))
        }
        for channel in open.withLock({ Array($0.values) }) { try? await channel.close() }
    }

    /// Deletes chunks older than the expiry; returns how many.
    @discardableResult
    public func sweepExpired() -> Int {
        let cutoff = configuration.now() - configuration.expirySeconds
        var count = 0
        for sid in store.expired(before: cutoff) where (try? store.delete(senderId: sid)) != nil { count += 1 }
        return count
    }

    /// The number of chunks held and their stored bytes.
    public var storeUsage: (chunks: Int, bytes: Int64) { (store.count, store.usedBytes) }

    /// Client connections open now.
    public var connectionCount: Int { open.withLock { $0.count } }

    /// Bytes of upload bodies read so far (stored, refused, or read to find a body's end).
    public var uploadBytesRead: Int64 { store.uploadBytesRead.load(ordering: .relaxed) }

    private static func serve(_ connection: Connection, processor: XFTPRequestProcessor) async {
        guard let session = try? await connection.established.get() else { return }
        let phase = ConnectionPhase()
        await withDiscardingTaskGroup { group in
            do {
                for try await stream in connection.streams.inbound {
                    group.addTask { await processor.handle(stream, session: session, phase: phase) }
                }
            } catch {
                // The connection ended (closed by the client, reset, or TLS failed): its streams end with it.
            }
        }
    }
}
