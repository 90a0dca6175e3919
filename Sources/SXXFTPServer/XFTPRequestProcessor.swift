#if canImport(Glibc)
import Glibc
#endif
import NIOCore
import NIOHPACK
import NIOHTTP2
import NIOPosix
import Synchronization
import SXCore
import SXCrypto
import SXXFTP
import SXXFTPTransport

/// Answers one HTTP/2 request of a connection: the handshake's two steps, then commands
/// (simplexmq `src/Simplex/FileTransfer/Server.hs` 151-236 handshake, 398-441 requests, 443-465
/// verification, 467-610 commands).
struct XFTPRequestProcessor: Sendable {
    let configuration: XFTPServerConfiguration
    let identity: ServerIdentity
    let store: ChunkStore
    /// The web page served to browsers, if any.
    let page: StaticPage?

    func handle(_ stream: HTTP2StreamChannel, session: TLSSession, phase: ConnectionPhase) async {
        let channel = stream.channel
        try? await stream.executeThenClose { inbound, outbound in
            var request = HTTP2MessageReader(inbound)
            // SimpleX's browser client comes with SNI. Its requests may come from a page of another
            // origin when the server has a web certificate: its answers then carry CORS headers
            // (`Server.hs` 101-112, 152-154; `Server/Main.hs` 321).
            let web = session.serverName != nil
            let cors = web && configuration.webCredentials != nil
            let responder = Responder(outbound: outbound, channel: channel, cors: cors)
            // The command block must come within `requestHead`: a client that opens requests and
            // sends nothing more has its stream closed.
            let headTimer = channel.eventLoop.scheduleTask(in: configuration.timeouts.requestHead.timeAmount) { channel.close(promise: nil) }
            let headers = try await request.headers()
            // A browser's GET asks for the web page, its OPTIONS is a CORS preflight (`Server.hs`
            // 154-155). Without SNI every request is XFTP's, as there.
            let method = headers.first(name: ":method")
            if web, method == "GET" || method == "HEAD" || (cors && method == "OPTIONS") {
                headTimer.cancel()
                if method == "OPTIONS" {
                    try await outbound.write(.headers(.init(headers: Responder.ok(Responder.corsPreflightHeaders), endStream: true)))
                } else {
                    try await servePage(path: headers.first(name: ":path") ?? "/", headOnly: method == "HEAD", outbound: outbound)
                }
                // These requests have no body: one that has, or does not end, is not waited for.
                if !request.ended { try await endUnread(&request, channel: channel, answered: nil) }
                try await channel.closeFuture.get()
                return
            }
            let head = try await request.read(upTo: XFTPBlock.size)
            headTimer.cancel()
            // The browser client marks its handshake requests by header (`Server.hs` 171-187): a
            // hello may come again on an accepted session, and so may a client handshake.
            let webHello = web && headers.contains(name: "xftp-web-hello")
            let webHandshake = web && headers.contains(name: "xftp-handshake")
            switch phase.current {
            case .new:
                if web && !webHello { return try responder.handshakeError(.session) }
                try await hello(head: head, web: web, session: session, phase: phase, responder: responder)
            case .handshakeSent(let key):
                if webHello { return try await hello(head: head, web: web, session: session, phase: phase, responder: responder) }
                try await clientHandshake(head: head, key: key, phase: phase, responder: responder)
            case .accepted(_, let key):
                if webHello { return try await hello(head: head, web: web, session: session, phase: phase, responder: responder) }
                if webHandshake { return try await clientHandshake(head: head, key: key, phase: phase, responder: responder) }
                try await command(head: head, body: &request, channel: channel, session: session, responder: responder)
            }
            // The answer may still wait for the client's flow-control window: closing the stream
            // now would drop it (RST_STREAM CANCEL). The stream closes by itself once both sides
            // have ended and the last frame is out. A request whose body was left unread (a refused
            // or oversized upload) gets `unreadBodyGrace` to end, then its stream is reset with
            // NO_ERROR (`stopSending`): its bytes are never read on.
            if !request.ended, !configuration.leavesRefusedUploadsUnread {
                try await endUnread(&request, channel: channel, answered: responder.answerEnd.future)
            }
            try await channel.closeFuture.get()
        }
    }

    /// A client ends its request right after the block: wait that long for its end, no longer, and
    /// read no body byte more than the piece that shows there is one; then the stream is reset.
    ///
    /// The reset waits for the answer's end to be out (`answered`): a RST_STREAM passes the
    /// flow-control queue in which the answer's DATA may wait for the client's window, and a reset
    /// stream drops what is queued; SimpleX's clients take NO_ERROR calmly only after the answer's
    /// end. The grace bounds that wait too.
    private func endUnread(_ request: inout HTTP2MessageReader, channel: any Channel, answered: EventLoopFuture<Void>?) async throws {
        let grace = channel.eventLoop.scheduleTask(in: configuration.timeouts.unreadBodyGrace.timeAmount) { Self.stopSending(channel) }
        let extra = (try? await request.drain(limit: 0)) ?? 0
        store.uploadBytesRead.add(Int64(extra), ordering: .relaxed)
        guard !request.ended else { return grace.cancel() }
        guard let answered else {
            grace.cancel()
            return Self.stopSending(channel)
        }
        answered.whenComplete { _ in
            grace.cancel()
            Self.stopSending(channel)
        }
    }

    /// Asks the client to stop sending a request whose answer is complete: RST_STREAM with
    /// NO_ERROR, as RFC 9113 §8.1 has it. Any other code breaks SimpleX's apps: their HTTP/2 library
    /// (http2 4.2.2, which simplexmq pins, `simplexmq.cabal` 362) takes a stream reset with another
    /// code, even after a complete answer, as the whole connection failing and ends it with GOAWAY
    /// (`Network/HTTP2/Arch/Receiver.hs` 454-475, 85-88), the requests in flight with it.
    private static func stopSending(_ channel: any Channel) {
        channel.writeAndFlush(HTTP2Frame.FramePayload.rstStream(.noError), promise: nil)
    }

    // MARK: - Web page

    /// A file of the web root, or 404 (also when no web root is served). Files are read in 64 KiB
    /// pieces, each sent as it is read.
    private func servePage(path: String, headOnly: Bool, outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>) async throws {
        let found = page?.file(forPath: path)
        let descriptor = found.map { open($0.path, O_RDONLY | O_CLOEXEC) } ?? -1
        guard let found, descriptor >= 0 else {
            return try await outbound.write(.headers(.init(headers: HTTP2Headers.response(status: 404), endStream: true)))
        }
        defer { close(descriptor) }
        var headers = HTTP2Headers.response()
        headers.add(name: "content-type", value: found.contentType)
        guard !headOnly else { return try await outbound.write(.headers(.init(headers: headers, endStream: true))) }
        try await outbound.write(.headers(.init(headers: headers, endStream: false)))
        while true {
            var buffer = ByteBufferAllocator().buffer(capacity: 64 << 10)
            var count = 0
            buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 << 10) {
                count = read(descriptor, $0.baseAddress, $0.count)
                return max(count, 0)
            }
            // A read error resets the stream: the browser sees a failed load, never a cut file as whole.
            guard count >= 0 else { throw FileSystemError("read", path: found.path) }
            try await outbound.write(.data(.init(data: .byteBuffer(buffer), endStream: count == 0)))
            if count == 0 { return }
        }
    }

    // MARK: - Handshake

    /// The first request of a native client has no body; the server answers with its handshake.
    /// A browser's (with SNI) carries a padded `XFTPClientHello` whose 32-byte challenge the server
    /// signs, with the session id after it, by its TLS certificate's key: the browser cannot see the
    /// TLS certificate, so this proves the identity (`Server.hs` 188-210).
    private func hello(head: [UInt8], web: Bool, session: TLSSession, phase: ConnectionPhase, responder: Responder) async throws {
        var challenge: [UInt8]?
        if !head.isEmpty {
            guard web, let content = try? XFTPBlock.unpad(head), let hello = try? XFTPClientHello.parse(content) else {
                return try responder.handshakeError(.handshake)
            }
            challenge = hello.webChallenge
        }
        let key = phase.keyForHello()
        let dhKey = XFTPPublicKey.x25519(key.publicKey)
        let signature = try identity.key.sign(SignedDHKey.objectToSign(dhKey))
        let signed = SignedDHKey.encode(dhKey: dhKey, algorithm: identity.key.algorithm.signedKeyAlgorithm, signature: signature)
        let proof = try challenge.map { try identity.key.sign($0 + session.tlsUnique) }
        let handshake = XFTPServerHandshake(versionRange: .supported, sessionId: session.tlsUnique,
                                           certificateChain: identity.chain.map(\.der), signedKey: signed, webIdentityProof: proof)
        try responder.send(block: handshake.block())
    }

    /// The client's handshake: a full block with the version it chose and the key hash it expects.
    private func clientHandshake(head: [UInt8], key: X25519.KeyPair, phase: ConnectionPhase, responder: Responder) async throws {
        guard head.count == XFTPBlock.size, let handshake = try? XFTPClientHandshake.parse(block: head),
              handshake.keyHash == identity.keyHash, XFTPVersionRange.supported.contains(handshake.version) else {
            return try responder.handshakeError(.handshake)
        }
        phase.accept(version: handshake.version, key: key)
        responder.sendEmpty()
    }

    // MARK: - Commands

    private func command(head: [UInt8], body: inout HTTP2MessageReader, channel: any Channel, session: TLSSession, responder: Responder) async throws {
        guard head.count == XFTPBlock.size, let transmission = try? XFTPTransmission.parse(block: head) else {
            return try responder.respond(.error(.block), corrId: [], entityId: [], session: session)
        }
        let corrId = transmission.corrId, entityId = transmission.entityId
        func answer(_ response: XFTPResponse) async throws {
            try responder.respond(response, corrId: corrId, entityId: entityId, session: session)
        }
        guard transmission.sessionId == session.tlsUnique else { return try await answer(.error(.session)) }
        let command: XFTPCommand
        do {
            command = try XFTPCommand.parse(transmission.command)
        } catch .unknownTag {
            return try await answer(.error(.command(.unknown)))
        } catch {
            return try await answer(.error(.command(.syntax)))
        }
        // `checkCredentials`, `Protocol.hs` 220-232.
        let signed = !transmission.authenticator.isEmpty
        switch command {
        case .new:
            if !signed { return try await answer(.error(.command(.noAuth))) }
            if !entityId.isEmpty { return try await answer(.error(.command(.hasAuth))) }
        case .ping:
            if signed || !entityId.isEmpty { return try await answer(.error(.command(.hasAuth))) }
            return try await answer(.pong)
        default:
            if !signed || entityId.isEmpty { return try await answer(.error(.command(.noAuth))) }
        }
        let signedPart = try transmission.signedPart()
        if case .new(let info, let recipientKeys, let basicAuth) = command {
            guard info.senderKey.verify(transmission.authenticator, of: signedPart) else { return try await answer(.error(.auth)) }
            return try await answer(create(info: info, recipientKeys: recipientKeys, basicAuth: basicAuth))
        }
        guard let (chunk, key) = store.lookup(command.party, id: entityId), key.verify(transmission.authenticator, of: signedPart) else {
            return try await answer(.error(.auth))
        }
        switch command {
        case .addRecipients(let keys):
            guard let ids = try store.addRecipients(senderId: entityId, keys: keys) else { return try await answer(.error(.auth)) }
            try await answer(.recipientIds(ids))
        case .put:
            try await answer(receive(chunk, body: &body, channel: channel))
        case .delete:
            try store.delete(senderId: entityId)
            try await answer(.ok)
        case .get(let dhKey):
            try await send(chunk, to: dhKey, corrId: corrId, entityId: entityId, session: session, responder: responder)
        case .ack:
            try store.acknowledge(recipientId: entityId)
            try await answer(.ok)
        case .new, .ping:
            try await answer(.error(.internal))
        }
    }

    private func create(info: XFTPFileInfo, recipientKeys: [XFTPPublicKey], basicAuth: [UInt8]?) throws -> XFTPResponse {
        if let password = configuration.password, basicAuth != password { return .error(.auth) }
        guard configuration.allowedChunkSizes.contains(info.size) else { return .error(.size) }
        let ids = try store.create(info: info, recipientKeys: recipientKeys, now: configuration.now())
        return .senderIds(senderId: ids.senderId, recipientIds: ids.recipientIds)
    }

    /// FPUT: the body after the block is the chunk. Written to a temporary file, checked for its
    /// exact size and SHA-256, flushed to disk, renamed into place and logged, only then answered OK:
    /// a crash at any point leaves either no file or a complete one.
    private func receive(_ chunk: StoredChunk, body: inout HTTP2MessageReader, channel: any Channel) async throws -> XFTPResponse {
        let size = Int64(chunk.info.size)
        if chunk.fileName != nil {
            // Already stored: a resumed upload; the bytes must still be read, but no more than the
            // chunk's size (`Server.hs` 536-546 `skipCommitted`).
            let sent = try await body.drain(limit: Int(size))
            store.uploadBytesRead.add(Int64(sent), ordering: .relaxed)
            return sent == size ? .ok : .error(.size)
        }
        // One upload of a chunk at a time: another one meanwhile is told to try again later
        // (TIMEOUT, which clients retry), when this one will have stored it.
        guard store.beginUpload(senderId: chunk.senderId) else { return .error(.timeout) }
        defer { store.endUpload(senderId: chunk.senderId) }
        // Reserved before any byte is read: bytes in flight count against the store's limit. The
        // body is not read at all when the quota says no (`Server.hs` 537).
        guard store.reserve(size, quota: configuration.maxStoreBytes) else { return .error(.quota) }
        // The whole chunk must arrive within `upload`; then the stream is closed, the temp file
        // aborted and the reservation released (the read below fails).
        let uploadTimer = channel.eventLoop.scheduleTask(in: configuration.timeouts.upload.timeAmount) { channel.close(promise: nil) }
        defer { uploadTimer.cancel() }
        let name = Base64URL.encode(chunk.senderId)
        let destination = Path.join(store.filesFolder, name)
        let writer = try AtomicFileWriter(destination: destination, mode: 0o600)
        // Around the page cache (O_DIRECT, in 1 MiB writes): a stored chunk is read back once, by
        // FGET, much later or never, and on this kind of VM every fresh page-cache page costs a host
        // fault (`DirectIO.swift`); the commit's fsync then has nothing left to write.
        writer.bypassPageCache = true
        var digest = SHA256Digest()
        var received: Int64 = 0
        var failure: XFTPErrorCode?
        do {
            while let piece = try await body.nextData() {
                received += Int64(piece.readableBytes)
                store.uploadBytesRead.add(Int64(piece.readableBytes), ordering: .relaxed)
                if received > size {
                    // Longer than declared: not read on (the stream is reset after the answer).
                    failure = .size
                    break
                }
                try piece.withUnsafeReadableBytes { bytes in
                    digest.update(bytes)
                    try writer.write(bytes)
                }
            }
        } catch {
            writer.abort()
            store.release(size)
            throw error
        }
        if failure == nil, received != size { failure = .size }
        if failure == nil, digest.finish() != chunk.info.digest { failure = .digest }
        if let failure {
            writer.abort()
            store.release(size)
            return .error(failure)
        }
        do {
            try await NIOThreadPool.singleton.runIfActive { try writer.commit() }
            guard try store.markUploaded(senderId: chunk.senderId, name: name) else {
                _ = unlink(destination)
                store.release(size)
                return .error(.auth)
            }
        } catch {
            _ = unlink(destination)
            store.release(size)
            return .error(.fileIO)
        }
        return .ok
    }

    /// FGET: a fresh X25519 key and nonce; the chunk follows the block encrypted with the secret-box
    /// stream keyed by the DH secret, its tag last (`Server.hs` 566-584; `Transport.hs` 162-172).
    private func send(_ chunk: StoredChunk, to recipientKey: XFTPPublicKey, corrId: [UInt8], entityId: [UInt8], session: TLSSession,
                      responder: Responder) async throws {
        guard let name = chunk.fileName else {
            return try responder.respond(.error(.noFile), corrId: corrId, entityId: entityId, session: session)
        }
        let path = Path.join(store.filesFolder, name)
        guard let descriptor = try? POSIXFile.open(path, flags: O_RDONLY | O_CLOEXEC) else {
            return try responder.respond(.error(.auth), corrId: corrId, entityId: entityId, session: session)
        }
        defer { close(descriptor) }
        let key = X25519.generate()
        guard let secret = X25519.sharedSecret(privateKey: key.privateKey, peerPublicKey: recipientKey.raw) else {
            return try responder.respond(.error(.crypto), corrId: corrId, entityId: entityId, session: session)
        }
        var nonce = [UInt8](repeating: 0, count: SecretBoxStream.nonceLength)
        nonce.withUnsafeMutableBytes { SodiumRuntime.randomBytes($0) }
        var box = SecretBoxStream(key: secret, nonce: nonce)
        let block = try XFTPTransmission(sessionId: session.tlsUnique, corrId: corrId, entityId: entityId,
                                         command: XFTPResponse.file(dhKey: .x25519(key.publicKey), nonce: nonce).encoded()).block()
        try await responder.start(first: block)
        var remaining = Int(chunk.info.size)
        let pieceSize = 256 << 10
        while remaining > 0 {
            var buffer = ByteBufferAllocator().buffer(capacity: min(pieceSize, remaining))
            let wanted = min(pieceSize, remaining)
            let read = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: wanted) { bytes in
                let count = try POSIXFile.read(descriptor, into: UnsafeMutableRawBufferPointer(rebasing: bytes[0..<wanted]), path: path)
                box.seal(UnsafeMutableRawBufferPointer(rebasing: bytes[0..<count]))
                return count
            }
            guard read > 0 else { throw FileSystemError("read", path: path, code: EIO) }
            remaining -= read
            try await responder.continueBody(buffer)
        }
        try await responder.finish(last: box.tag())
    }
}

/// Writes one response: headers, then the body in DATA frames, the stream ending with the last.
struct Responder {
    let outbound: NIOAsyncChannelOutboundWriter<HTTP2Frame.FramePayload>
    /// The stream's channel: a one-block answer is written to it directly, so that its end's write
    /// (done once the frame has left flow control) can be waited for (`answerEnd`).
    let channel: any Channel
    let answerEnd = AnswerEnd()
    /// Answers carry CORS headers (`Server.hs` 101-104 `corsHeaders`).
    let cors: Bool

    static let corsHeaders = [("access-control-allow-origin", "*"), ("access-control-expose-headers", "*")]
    /// `Server.hs` 106-112 `corsPreflightHeaders`.
    static let corsPreflightHeaders = [
        ("access-control-allow-origin", "*"), ("access-control-allow-methods", "POST, OPTIONS"),
        ("access-control-allow-headers", "*"), ("access-control-max-age", "86400"),
    ]

    /// A 200's headers, with `extra` after the status.
    static func ok(_ extra: [(String, String)]) -> HPACKHeaders {
        var headers = HTTP2Headers.response()
        headers.add(contentsOf: extra)
        return headers
    }

    private var responseHeaders: HPACKHeaders { Self.ok(cors ? Self.corsHeaders : []) }

    /// Written to the stream channel, not awaited: the answer's end is waited for where a reset
    /// must follow it (`answerEnd`).
    func send(block: [UInt8]) {
        channel.write(HTTP2Frame.FramePayload.headers(.init(headers: responseHeaders, endStream: false)), promise: nil)
        answerEnd.set(channel.writeAndFlush(HTTP2Frame.FramePayload.data(.init(data: .byteBuffer(ByteBuffer(bytes: block)), endStream: true))))
    }

    func sendEmpty() {
        answerEnd.set(channel.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: responseHeaders, endStream: true))))
    }

    /// A handshake error is its name, padded to a block (`Server.hs` 228-236).
    func handshakeError(_ code: XFTPErrorCode) throws {
        send(block: try XFTPBlock.pad(code.encoded))
    }

    func respond(_ response: XFTPResponse, corrId: [UInt8], entityId: [UInt8], session: TLSSession) throws {
        send(block: try XFTPTransmission(sessionId: session.tlsUnique, corrId: corrId, entityId: entityId, command: response.encoded()).block())
    }

    func start(first: [UInt8]) async throws {
        try await outbound.write(.headers(.init(headers: responseHeaders, endStream: false)))
        try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer(bytes: first)), endStream: false)))
    }

    func continueBody(_ buffer: ByteBuffer) async throws {
        try await outbound.write(.data(.init(data: .byteBuffer(buffer), endStream: false)))
    }

    func finish(last: [UInt8]) async throws {
        try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer(bytes: last)), endStream: true)))
    }
}

/// The write of a one-block answer's last frame, once made.
final class AnswerEnd: Sendable {
    private let written = Mutex<EventLoopFuture<Void>?>(nil)

    func set(_ future: EventLoopFuture<Void>) { written.withLock { $0 = future } }

    var future: EventLoopFuture<Void>? { written.withLock { $0 } }
}
