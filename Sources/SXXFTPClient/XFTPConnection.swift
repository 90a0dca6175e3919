import NIOCore
import NIOHTTP2
import NIOPosix
import SXCore
import SXCrypto
import SXTransfer
import SXXFTP
import SXXFTPTransport

/// One TLS + HTTP/2 connection to an XFTP server, past the handshake (simplexmq
/// `src/Simplex/FileTransfer/Client.hs` 132-193): the TLS chain checked against the address's key
/// hash before anything is sent, the server handshake read (its session id must be the connection's
/// tls-unique, its chain [leaf, ca] the identity, its session key signed by the leaf), and the
/// client handshake sent with the highest common version. Requests then run concurrently, one
/// HTTP/2 stream each.
public final class XFTPConnection: Sendable {
    public let server: XFTPServerAddress
    public let session: TLSSession
    public let version: UInt16
    let channel: any Channel
    let streams: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>
    let authority: String
    let silenceLimit: Duration
    let silenceCloser: IdleConnectionCloser

    /// The server's name in messages: its first host and port.
    public var serverName: String { Self.name(server) }

    static func name(_ server: XFTPServerAddress) -> String {
        (server.hosts.first?.connectName ?? "?") + (server.port.isEmpty ? "" : ":" + server.port)
    }

    private init(server: XFTPServerAddress, session: TLSSession, version: UInt16, channel: any Channel,
                 streams: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>, authority: String,
                 silenceLimit: Duration, silenceCloser: IdleConnectionCloser) {
        self.server = server
        self.silenceLimit = silenceLimit
        self.silenceCloser = silenceCloser
        self.session = session
        self.version = version
        self.channel = channel
        self.streams = streams
        self.authority = authority
    }

    deinit { channel.close(promise: nil) }

    public func close() async { try? await channel.close() }

    public var isActive: Bool { channel.isActive }

    static let tlsContext: Result<TLSContext, OpenSSLFailure> = Result { () throws(OpenSSLFailure) in try TLSContext.client() }
    /// As SimpleX's browser client connects: ALPN h2 and SNI.
    static let webTLSContext: Result<TLSContext, OpenSSLFailure> = Result { () throws(OpenSSLFailure) in try TLSContext.client(alpn: ["h2"], browser: true) }
    /// As SimpleX's apps reach their preset operators' servers by default: ALPN `http/1.1`, as any
    /// HTTPS site would offer, which such a server answers with the same handshake (simplexmq
    /// `FileTransfer/Client.hs` 136; `Server.hs` 165).
    static let webPortTLSContext: Result<TLSContext, OpenSSLFailure> = Result { () throws(OpenSSLFailure) in try TLSContext.client(alpn: ["http/1.1"]) }

    /// The preset operators' domains as the apps match them, by suffix with the dot (simplex-chat
    /// `src/Simplex/Chat.hs` `defaultChatConfig` `presetDomains`, at ec2e2ce9).
    static let presetDomains = [".simplex.im", ".simplexonflux.com"]

    /// Whether the apps would reach `server` as a web site (`http/1.1`): by default, when its first
    /// host is a domain name ending in a preset operator's domain (simplexmq `Messaging/Client.hs`
    /// 721-730 `useWebPort`, `isPresetDomain`; `smpWebPortServers = SWPPreset` 424), whichever of its
    /// hosts is then connected to.
    static func reachedAsWebSite(_ server: XFTPServerAddress) -> Bool {
        guard case .domain(let name) = server.hosts.first else { return false }
        return presetDomains.contains { name.hasSuffix($0) }
    }

    /// Connects and completes the handshake within `timeoutSeconds`: 45 by default, the time
    /// SimpleX's clients give a file server's connection (`tcpConnectTimeout`, background:
    /// simplexmq `Messaging/Client.hs` 425, used for XFTP in `FileTransfer/Client.hs` 138), which
    /// a circuit to an onion address over Tor may need. `web` makes the handshake SimpleX's browser
    /// client makes (SNI, ALPN h2, the `xftp-web-hello` challenge the server must sign: xftp-web
    /// `src/client.ts` 246-296).
    ///
    /// A connection from which nothing arrives for `silenceLimit` once it is up is closed: its
    /// requests then fail as the network failing and are tried again on a new one. SimpleX's clients
    /// time each request instead (30 s and 5 ms a KiB, in the background: simplexmq
    /// `Messaging/Client.hs` 426-427); here one limit for the connection, since a chunk's request
    /// shares it with the others in flight (`--parallel`, up to 32) and its own time depends on them.
    /// During a transfer a server always sends: the answers, a download's data, an upload's window
    /// updates.
    public static func open(_ server: XFTPServerAddress, timeoutSeconds: Int = 45, silenceLimit: Duration = .seconds(60), web: Bool = false,
                            proxy: SOCKSProxy? = nil) async throws -> XFTPConnection {
        let name = name(server)
        // Through a SOCKS proxy (Tor), an onion host is preferred, as SimpleX's clients do with
        // onion hosts enabled; without one, only public hosts can be reached.
        let onion = server.hosts.first { if case .onion = $0 { return true } else { return false } }
        let publicHost = server.hosts.first { if case .onion = $0 { return false } else { return true } }
        guard let host = proxy != nil ? (onion ?? publicHost) : publicHost else {
            throw XFTPClientError.needsProxy(server: name)
        }
        let context: TLSContext
        switch web ? webTLSContext : reachedAsWebSite(server) ? webPortTLSContext : tlsContext {
        case .success(let made): context = made
        case .failure(let failure): throw XFTPClientError.unreachable(server: name, reason: failure.description)
        }
        return try await withDeadline(seconds: timeoutSeconds, onTimeout: { XFTPClientError.timedOut(server: name, seconds: timeoutSeconds) }) {
            try await connect(server, host: host, context: context, name: name, web: web, proxy: proxy, silenceLimit: silenceLimit)
        }
    }

    static func connect(_ server: XFTPServerAddress, host: TransportHost, context: TLSContext, name: String, web: Bool,
                        proxy: SOCKSProxy?, silenceLimit: Duration) async throws -> XFTPConnection {
        let connected: (any Channel, EventLoopFuture<Void>?, EventLoopFuture<TLSSession>, NIOHTTP2Handler.AsyncStreamMultiplexer<Void>)
        let silenceCloser = IdleConnectionCloser()
        do {
            connected = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connectTimeout(.seconds(15))
                .channelOption(.socketOption(.tcp_nodelay), value: 1)
                // A peer that vanishes without a word (a dropped route, a sleeping NAT) is found
                // out, and the request in flight fails and is tried again, instead of waiting for
                // ever: TCP keep-alive as SimpleX's clients set it (simplexmq
                // `Transport/KeepAlive.hs` 26-31, on for every client: `Messaging/Client.hs` 429).
                .channelOption(.socketOption(.so_keepalive), value: 1)
                .channelOption(KeepAlive.idle, value: KeepAlive.idleSeconds)
                .channelOption(KeepAlive.interval, value: KeepAlive.intervalSeconds)
                .channelOption(KeepAlive.count, value: KeepAlive.probes)
                .connect(host: proxy?.host ?? host.description, port: proxy?.port ?? server.portNumber) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        var socks: EventLoopFuture<Void>?
                        if let proxy {
                            // The proxy connects to the server; TLS runs through it, end to end.
                            let handler = SOCKS5ClientHandler(host: host.description, port: server.portNumber, credentials: proxy.credentials())
                            try channel.pipeline.syncOperations.addHandler(handler)
                            socks = handler.connected
                        }
                        let tls = try TLSHandler(context: context, serverName: web ? host.description : nil)
                        try channel.pipeline.syncOperations.addHandler(tls)
                        // Servers open no streams; any they try are closed at once.
                        let streams = try channel.pipeline.syncOperations.configureAsyncHTTP2Pipeline(
                            mode: .client, configuration: HTTP2Tuning.configuration
                        ) { stream in stream.close() }
                        return (channel, socks, tls.established, streams)
                    }
                }
        } catch {
            let reason = ConnectFailureText.words(error)
            throw XFTPClientError.unreachable(server: name, reason: proxy.map { "the SOCKS proxy \($0): \(reason)" } ?? reason)
        }
        let (channel, socks, established, streams) = connected
        do {
            if let socks, let proxy {
                do { try await socks.get() } catch {
                    throw XFTPClientError.unreachable(server: name, reason: "the SOCKS proxy \(proxy): \(error)")
                }
            }
            let session: TLSSession
            do { session = try await established.get() } catch { throw XFTPClientError.unreachable(server: name, reason: String(describing: error)) }
            // The TLS chain first: a server that is not the address's sees no request at all. A
            // browser cannot see the chain, and a server may present a web certificate to it: the
            // web handshake proves the identity instead, by the server signing our challenge and
            // this connection's tls-unique with the identity's certificate (xftp-web `client.ts`).
            if !web {
                do { _ = try ServerChainCheck.validate(chain: session.peerChain, keyHash: server.keyHash) } catch {
                    throw XFTPClientError.wrongIdentity(server: name, error)
                }
            }
            let authority = host.connectName + (server.port.isEmpty ? "" : ":" + server.port)
            let version: UInt16
            do {
                version = try await handshake(server, session: session, streams: streams, authority: authority, name: name, web: web)
            } catch let error as XFTPClientError {
                throw error
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                // The server closing the connection (a restart) is the network failing; anything
                // else on a live connection is the server not doing the handshake.
                let said = String(describing: error)
                if !channel.isActive { throw XFTPClientError.unreachable(server: name, reason: "the connection closed during the handshake (\(said))") }
                throw XFTPClientError.handshake(server: name, reason: said)
            }
            // The silence limit starts once the connection is up: until then the connect's own
            // deadline holds. It sees the bytes as they arrive, before TLS.
            do {
                try await channel.eventLoop.submit {
                    let operations = channel.pipeline.syncOperations
                    try operations.addHandler(silenceCloser, position: .first)
                    try operations.addHandler(IdleStateHandler(readTimeout: silenceLimit.timeAmount), position: .first)
                }.get()
            } catch {
                // Only a connection closed since the handshake has a pipeline that takes no handler.
                throw XFTPClientError.unreachable(server: name, reason: "the connection closed after the handshake (\(error))")
            }
            return XFTPConnection(server: server, session: session, version: version, channel: channel, streams: streams, authority: authority,
                                  silenceLimit: silenceLimit, silenceCloser: silenceCloser)
        } catch {
            try? await channel.close()
            throw error
        }
    }

    private static func handshake(_ server: XFTPServerAddress, session: TLSSession, streams: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>,
                                  authority: String, name: String, web: Bool) async throws -> UInt16 {
        // The hello: a POST with no body (`Client.hs` 170), or a browser's padded challenge.
        var challenge = [UInt8](repeating: 0, count: 32)
        challenge.withUnsafeMutableBytes { SodiumRuntime.randomBytes($0) }
        let helloBody = web ? try XFTPBlock.pad(XFTPClientHello(webChallenge: challenge).encoded()) : nil
        let helloBlock = try await exchange(streams: streams, authority: authority, block: helloBody,
                                            headers: web ? [("xftp-web-hello", "1")] : []) { reader in
            try await reader.read(upTo: XFTPBlock.size)
        }
        let handshake: XFTPServerHandshake
        do { handshake = try XFTPServerHandshake.parse(block: helloBlock) } catch {
            let text = (try? XFTPBlock.unpad(helloBlock)).map { String(decoding: $0, as: UTF8.self) } ?? ""
            throw XFTPClientError.handshake(server: name, reason: text.isEmpty || text.count > 20 ? error.description : "the server answered \(text)")
        }
        guard handshake.sessionId == session.tlsUnique else {
            throw XFTPClientError.handshake(server: name, reason: "its session id is not this TLS connection's (tls-unique)")
        }
        guard let common = handshake.versionRange.intersection(.supported) else {
            throw XFTPClientError.handshake(server: name, reason: "it speaks XFTP \(handshake.versionRange.min)-\(handshake.versionRange.max), sxkit speaks 1-3")
        }
        // The handshake's chain must be exactly [leaf, ca] with the address's key hash (`Client.hs` 181-186).
        guard handshake.certificateChain.count == 2 else {
            throw XFTPClientError.wrongIdentity(server: name, .chainTooLong(handshake.certificateChain.count))
        }
        do {
            let leaf = try ServerChainCheck.validate(chain: handshake.certificateChain, keyHash: server.keyHash)
            _ = try ServerChainCheck.verifySignedKey(handshake.signedKey, leaf: leaf)
            if web {
                guard let proof = handshake.webIdentityProof, leaf.verify(proof, of: challenge + handshake.sessionId) else {
                    throw ServerIdentityProblem.badSignedKey("the challenge is not signed by the server's certificate")
                }
            }
        } catch let problem as ServerIdentityProblem {
            throw XFTPClientError.wrongIdentity(server: name, problem)
        }
        let reply = try XFTPClientHandshake(version: common.max, keyHash: server.keyHash).block()
        let answer = try await exchange(streams: streams, authority: authority, block: reply,
                                        headers: web ? [("xftp-handshake", "1")] : []) { reader in
            try await reader.read(upTo: XFTPBlock.size)
        }
        guard answer.isEmpty else {
            let text = (try? XFTPBlock.unpad(answer)).map { String(decoding: $0, as: UTF8.self) } ?? "a non-empty answer"
            throw XFTPClientError.handshake(server: name, reason: "the server refused the client handshake: \(text)")
        }
        return common.max
    }

    /// What follows a command's block in the request body: a chunk's bytes (FPUT, `Client.hs` 244-251).
    public enum Attachment: Sendable {
        case bytes([UInt8])
        /// `length` bytes of a file from `offset`, streamed.
        case file(path: String, offset: Int64, length: Int64)
    }

    /// Sends one request (`POST /`, its body `block` then `attachment`; no body when there is no
    /// block) and reads its answer with `response`.
    static func exchange<R: Sendable>(streams: NIOHTTP2Handler.AsyncStreamMultiplexer<Void>, authority: String, block: [UInt8]?,
                                      attachment: Attachment? = nil, headers extraHeaders: [(String, String)] = [],
                                      response: @escaping @Sendable (inout HTTP2MessageReader) async throws -> R) async throws -> R {
        let stream = try await streams.openStream { channel in
            channel.eventLoop.makeCompletedFuture { try HTTP2StreamChannel(wrappingChannelSynchronously: channel) }
        }
        return try await stream.executeThenClose { inbound, outbound in
            var headers = HTTP2Headers.request(authority: authority)
            for (name, value) in extraHeaders { headers.add(name: name, value: value) }
            guard let block else {
                try await outbound.write(.headers(.init(headers: headers, endStream: true)))
                return try await read(inbound, response)
            }
            try await outbound.write(.headers(.init(headers: headers, endStream: false)))
            try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer(bytes: block)), endStream: attachment.map { _ in false } ?? true)))
            guard let attachment else { return try await read(inbound, response) }
            return try await sendWhileListening(attachment, outbound: outbound, inbound: inbound, response)
        }
    }

    private enum Part<R: Sendable>: Sendable {
        case written
        case writeFailed(any Error)
        case answered(Result<R, any Error>)
    }

    /// Sends an upload's chunk while listening for the answer, as SimpleX's client does (its body
    /// goes from a thread of its own: `http2` `Client/Run.hs`). A server answers before the end only
    /// to refuse the chunk (AUTH, QUOTA, TIMEOUT: simplexmq `Server.hs` 405-407, 538, 580-582), and
    /// simplexmq's then reads no more of it, so its HTTP/2 library grants no more window (`http2`
    /// 4.2.2 credits a body only as it is read): a sender that wrote the whole chunk before
    /// listening would wait for ever. The answer stops the sending; the stream is then reset, which
    /// that library takes for the end of the connection (its other requests fail as the connection
    /// closing, and are tried again on a new one).
    private static func sendWhileListening<R: Sendable>(
        _ attachment: Attachment, outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>,
        inbound: NIOAsyncChannelInboundStream<HTTP2Frame.FramePayload>,
        _ response: @escaping @Sendable (inout HTTP2MessageReader) async throws -> R
    ) async throws -> R {
        try await withThrowingTaskGroup(of: Part<R>.self) { group in
            group.addTask {
                do {
                    switch attachment {
                    case .bytes(let bytes): try await BytesWriter.write(bytes, to: outbound)
                    case .file(let path, let offset, let length): try await FileRangeWriter.write(path: path, offset: offset, length: length, to: outbound)
                    }
                    return .written
                } catch {
                    return .writeFailed(error)
                }
            }
            group.addTask {
                do { return .answered(.success(try await read(inbound, response))) } catch { return .answered(.failure(error)) }
            }
            var writeError: (any Error)?
            while let part = try await group.next() {
                switch part {
                case .written:
                    continue
                case .writeFailed(let error):
                    // The chunk could not be sent (a file that cannot be read, the stream reset):
                    // an answer already on its way says why the server stopped it, if it did;
                    // otherwise there is none to wait for.
                    writeError = error
                    group.cancelAll()
                case .answered(let answer):
                    group.cancelAll()
                    // Without an answer of its own (it was stopped, or the stream ended), the
                    // write's failure is what happened.
                    if let writeError, case .failure(let error) = answer, error is CancellationError || error is HTTP2ExchangeFailure {
                        throw writeError
                    }
                    return try answer.get()
                }
            }
            throw writeError ?? HTTP2ExchangeFailure.closedEarly
        }
    }

    private static func read<R: Sendable>(_ inbound: NIOAsyncChannelInboundStream<HTTP2Frame.FramePayload>,
                                          _ response: @Sendable (inout HTTP2MessageReader) async throws -> R) async throws -> R {
        var reader = HTTP2MessageReader(inbound)
        let answerHeaders = try await reader.headers()
        guard answerHeaders.first(name: ":status") == "200" else {
            throw HTTP2ExchangeFailure.status(answerHeaders.first(name: ":status") ?? "none")
        }
        return try await response(&reader)
    }

    /// A command's request, its response block parsed and checked (`Client.hs` 230-242).
    func command<R: Sendable>(block: [UInt8], attachment: Attachment? = nil,
                              response: @escaping @Sendable (XFTPResponse, inout HTTP2MessageReader) async throws -> R) async throws -> R {
        let name = serverName, sessionId = session.tlsUnique
        do {
            return try await Self.exchange(streams: streams, authority: authority, block: block, attachment: attachment) { reader in
                let head = try await reader.read(upTo: XFTPBlock.size)
                guard head.count == XFTPBlock.size else { throw XFTPClientError.badResponse(server: name, reason: "a \(head.count)-byte block") }
                let transmission: XFTPTransmission
                let parsed: XFTPResponse
                do {
                    transmission = try XFTPTransmission.parse(block: head)
                    parsed = try XFTPResponse.parse(transmission.command)
                } catch {
                    throw XFTPClientError.badResponse(server: name, reason: String(describing: error))
                }
                guard transmission.sessionId == sessionId else { throw XFTPClientError.badResponse(server: name, reason: "another session's id") }
                if case .error(let code) = parsed { throw XFTPClientError.refused(server: name, code) }
                return try await response(parsed, &reader)
            }
        } catch let error as XFTPClientError {
            throw error
        } catch let error as HTTP2ExchangeFailure {
            // A stream cut short because the connection went (a server restarting, one closing the
            // connection after a reset stream: see `sendWhileListening`) is the network failing,
            // tried again on a new connection, as SimpleX's client takes it (`Client.hs` 287-291);
            // on a live connection it is the server answering wrongly.
            if !channel.isActive { throw XFTPClientError.unreachable(server: name, reason: closedReason(error.description)) }
            throw XFTPClientError.badResponse(server: name, reason: error.description)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            // Which error a request cut short by the connection going sees depends on where it was
            // (a stream failing, or a write on the closed channel): the reason is the same.
            let said = String(describing: error)
            throw XFTPClientError.unreachable(server: name, reason: channel.isActive ? said : closedReason(said))
        }
    }

    /// Why a request was cut short by the connection closing: the silence limit when it was that,
    /// else what the request saw.
    private func closedReason(_ seen: String) -> String {
        if silenceCloser.closedForSilence {
            return "the connection closed (nothing arrived from the server for \(silenceLimit.components.seconds) s)"
        }
        return "the connection closed (\(seen))"
    }
}

/// Streams bytes already in memory into a request body, 256 KiB at a time, the last piece ending
/// the stream: each write waits while the stream's outbound buffer is full, so a 4 MiB chunk is
/// never copied whole into the connection's buffers.
enum BytesWriter {
    static func write(_ bytes: [UInt8], to outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>) async throws {
        let piece = 256 << 10
        var start = 0
        repeat {
            let end = min(start + piece, bytes.count)
            let buffer = bytes.withUnsafeBytes { ByteBuffer(bytes: UnsafeRawBufferPointer(rebasing: $0[start..<end])) }
            try await outbound.write(.data(.init(data: .byteBuffer(buffer), endStream: end == bytes.count)))
            start = end
        } while start < bytes.count
    }
}

/// Streams a range of a file into a request body, 256 KiB at a time, the last piece ending the stream.
enum FileRangeWriter {
    static func write(path: String, offset: Int64, length: Int64, to outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>) async throws {
        let descriptor = try POSIXFile.open(path, flags: O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        var position = offset
        var remaining = length
        if remaining == 0 {
            try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer()), endStream: true)))
            return
        }
        while remaining > 0 {
            let wanted = Int(min(remaining, 256 << 10))
            var buffer = ByteBufferAllocator().buffer(capacity: wanted)
            let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { bytes in
                let n = pread(descriptor, bytes.baseAddress, wanted, off_t(position))
                guard n > 0 else { throw FileSystemError("read", path: path, code: n == 0 ? EIO : errno) }
                return n
            }
            position += Int64(read)
            remaining -= Int64(read)
            try await outbound.write(.data(.init(data: .byteBuffer(buffer), endStream: remaining == 0)))
        }
    }
}

/// SimpleX's TCP keep-alive (`defaultKeepAliveOpts`): probes after 30 s of silence, every 15 s, and
/// the connection given up after 4 unanswered ones.
enum KeepAlive {
    static let idleSeconds: SocketOptionValue = 30
    static let intervalSeconds: SocketOptionValue = 15
    static let probes: SocketOptionValue = 4
    static let idle = ChannelOptions.Types.SocketOption(level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_KEEPIDLE))
    static let interval = ChannelOptions.Types.SocketOption(level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_KEEPINTVL))
    static let count = ChannelOptions.Types.SocketOption(level: SocketOptionLevel(IPPROTO_TCP), name: SocketOptionName(TCP_KEEPCNT))
}
