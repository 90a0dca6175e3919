import CLibSSL
import NIOCore
import SXXFTP

/// TLS for a NIO channel on OpenSSL, through a BIO of its own (`TLSWire`): OpenSSL reads the
/// ciphertext from the buffers the network gives and writes its records into the buffer that goes to
/// the network; plaintext comes out of SSL_read and goes in through SSL_write. Writes made before the handshake
/// finishes are held and sent after it. The handshake's result (`TLSSession`) completes `established`
/// and is also fired as a user inbound event.
public final class TLSHandler: ChannelDuplexHandler, RemovableChannelHandler {
    public typealias InboundIn = ByteBuffer
    public typealias InboundOut = ByteBuffer
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    private enum State { case idle, handshaking, active, closed }

    private let ssl: OpaquePointer
    private let wire: TLSWire
    private let isServer: Bool
    private var state = State.idle
    private var heldWrites: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var flushHeld = false
    private var pendingPromises: [EventLoopPromise<Void>] = []
    private var producedPlaintext = false
    private var establishedPromise: EventLoopPromise<TLSSession>?

    /// Completes with the session when the handshake succeeds, fails if it does not.
    public var established: EventLoopFuture<TLSSession> {
        guard let establishedPromise else { preconditionFailure("the handler is not in a pipeline yet") }
        return establishedPromise.futureResult
    }

    /// `serverName`, for a client, is sent as SNI (SimpleX's browser client sends it; its native
    /// clients do not, and servers tell the two apart by it).
    public init(context: TLSContext, serverName: String? = nil) throws(OpenSSLFailure) {
        guard let ssl = SSL_new(context.context) else { throw OpenSSLFailure("starting TLS") }
        let wire = TLSWire(allocator: ByteBufferAllocator())
        guard let bio = wire.makeBIO() else {
            SSL_free(ssl)
            throw OpenSSLFailure("starting TLS")
        }
        SSL_set_bio(ssl, bio, bio)  // one BIO both ways: SSL_free frees it once
        self.ssl = ssl
        self.wire = wire
        self.isServer = context.isServer
        if isServer { SSL_set_accept_state(ssl) } else { SSL_set_connect_state(ssl) }
        if let serverName, !isServer, sxkit_SSL_set_host_name(ssl, serverName) != 1 {
            SSL_free(ssl)
            throw OpenSSLFailure("setting the server name")
        }
    }

    deinit { SSL_free(ssl) }

    public func handlerAdded(context: ChannelHandlerContext) {
        establishedPromise = context.eventLoop.makePromise(of: TLSSession.self)
        if context.channel.isActive { startHandshake(context: context) }
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        establishedPromise?.fail(TLSFailure.closedDuringHandshake)
        failHeld(TLSFailure.closedDuringHandshake)
    }

    public func channelActive(context: ChannelHandlerContext) {
        startHandshake(context: context)
        context.fireChannelActive()
    }

    public func channelInactive(context: ChannelHandlerContext) {
        let wasHandshaking = state != .active
        state = .closed
        if wasHandshaking { establishedPromise?.fail(TLSFailure.closedDuringHandshake) }
        failHeld(ChannelError.ioOnClosedChannel)
        context.fireChannelInactive()
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state == .handshaking || state == .active else { return }
        wire.received(unwrapInboundIn(data))
        if state == .handshaking { continueHandshake(context: context) }
        if state == .active { readPlaintext(context: context) }
    }

    public func channelReadComplete(context: ChannelHandlerContext) {
        sendCiphertext(context: context)
        if producedPlaintext {
            producedPlaintext = false
            context.fireChannelReadComplete()
        }
    }

    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let buffer = unwrapOutboundIn(data)
        switch state {
        case .idle, .handshaking:
            heldWrites.append((buffer, promise))
        case .active:
            encrypt(buffer, promise: promise, context: context)
        case .closed:
            promise?.fail(ChannelError.ioOnClosedChannel)
        }
    }

    public func flush(context: ChannelHandlerContext) {
        switch state {
        case .idle, .handshaking: flushHeld = true
        case .active: sendCiphertext(context: context)
        case .closed: break
        }
    }

    public func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if state == .active, mode == .all {
            // close_notify, sent best-effort before the socket closes.
            _ = SSL_shutdown(ssl)
            ERR_clear_error()
            sendCiphertext(context: context)
        }
        context.close(mode: mode, promise: promise)
    }

    // MARK: - Handshake

    private func startHandshake(context: ChannelHandlerContext) {
        guard state == .idle else { return }
        state = .handshaking
        continueHandshake(context: context)
    }

    private func continueHandshake(context: ChannelHandlerContext) {
        let result = SSL_do_handshake(ssl)
        sendCiphertext(context: context)
        guard result == 1 else {
            let error = SSL_get_error(ssl, result)
            if error == SSL_ERROR_WANT_READ || error == SSL_ERROR_WANT_WRITE { return }
            fail(TLSFailure.handshake(OpenSSLFailure("the handshake").description), context: context)
            return
        }
        state = .active
        let session = currentSession()
        establishedPromise?.succeed(session)
        context.fireUserInboundEventTriggered(session)
        let held = heldWrites
        heldWrites = []
        for (buffer, promise) in held { encrypt(buffer, promise: promise, context: context) }
        if flushHeld || !held.isEmpty {
            flushHeld = false
            sendCiphertext(context: context)
        }
    }

    private func currentSession() -> TLSSession {
        var finished = [UInt8](repeating: 0, count: 128)
        let length = isServer ? SSL_get_peer_finished(ssl, &finished, finished.count) : SSL_get_finished(ssl, &finished, finished.count)
        var alpnBytes: UnsafePointer<UInt8>?
        var alpnLength: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &alpnBytes, &alpnLength)
        let alpn = alpnBytes.map { String(decoding: UnsafeBufferPointer(start: $0, count: Int(alpnLength)), as: UTF8.self) }
        var chain: [[UInt8]] = []
        if let stack = SSL_get_peer_cert_chain(ssl) {
            for index in 0..<OPENSSL_sk_num(stack) {
                guard let cert = OPENSSL_sk_value(stack, index) else { continue }
                var out: UnsafeMutablePointer<UInt8>?
                let count = i2d_X509(OpaquePointer(cert), &out)
                if count > 0, let out {
                    chain.append(Array(UnsafeBufferPointer(start: out, count: Int(count))))
                    CRYPTO_free(out, #fileID, #line)
                }
            }
        }
        let name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name).map { String(cString: $0) }
        return TLSSession(tlsUnique: Array(finished.prefix(min(length, finished.count))), alpn: alpn?.isEmpty == true ? nil : alpn,
                          peerChain: chain, serverName: name)
    }

    // MARK: - Data

    /// Plaintext is handed on in pieces of up to this size, a record's worth (a record holds at most
    /// 16 KiB). Larger pieces were measured slower: 256 KiB pieces made the relay's CPU per send 3×
    /// (the HTTP/2 decoder above copies each piece into its buffer, and a piece mostly empty grew it
    /// for nothing), and with 256 KiB socket reads as well they were no faster than these.
    static let plaintextPiece = 16 << 10

    private func readPlaintext(context: ChannelHandlerContext) {
        while state == .active {
            var buffer = context.channel.allocator.buffer(capacity: Self.plaintextPiece)
            var result: Int32 = 1
            while buffer.writableBytes > 0 {
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: 0) { bytes in
                    result = SSL_read(ssl, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))
                    return max(Int(result), 0)
                }
                if result <= 0 { break }
            }
            // Asked before anything else calls into OpenSSL (handing the plaintext on may write).
            let error = result > 0 ? SSL_ERROR_NONE : SSL_get_error(ssl, result)
            if error != SSL_ERROR_NONE && error != SSL_ERROR_WANT_READ && error != SSL_ERROR_WANT_WRITE && error != SSL_ERROR_ZERO_RETURN {
                fail(TLSFailure.protocolError(OpenSSLFailure("reading").description), context: context)
                return
            }
            if buffer.readableBytes > 0 {
                producedPlaintext = true
                context.fireChannelRead(wrapInboundOut(buffer))
            }
            if error == SSL_ERROR_NONE { continue }  // the piece filled up: more may be there
            if error == SSL_ERROR_ZERO_RETURN {
                // The peer's close_notify: no more data will come.
                sendCiphertext(context: context)
                context.close(promise: nil)
                return
            }
            break
        }
        // Reading may have produced records to send (a key update's answer).
        if wire.hasOutbound { sendCiphertext(context: context) }
    }

    /// Plaintext is encrypted this much at a time: four records, whose ciphertext (each record adds
    /// 22 bytes: header, content type, tag) fills one 64 KiB buffer, passed on to the socket before the
    /// next is written. Large writes thus never grow one buffer (by doubling, with a copy each time)
    /// to hold all their ciphertext at once.
    static let plaintextSlice = (64 << 10) - 4 * 22

    private func encrypt(_ buffer: ByteBuffer, promise: EventLoopPromise<Void>?, context: ChannelHandlerContext) {
        var failed = false
        buffer.withUnsafeReadableBytes { bytes in
            guard let base = bytes.baseAddress else { return }
            var offset = 0
            while offset < bytes.count {
                let slice = min(bytes.count - offset, Self.plaintextSlice)
                wire.reserve(slice + (slice / 16_384 + 1) * 22)
                var done = 0
                while done < slice {
                    let written = SSL_write(ssl, base + offset + done, Int32(slice - done))
                    guard written > 0 else {
                        failed = true
                        return
                    }
                    done += Int(written)
                }
                offset += slice
                // Not the last slice: on its way now; the last goes with the flush and its promises.
                if offset < bytes.count, let ciphertext = wire.takeOutbound() {
                    context.write(wrapOutboundOut(ciphertext), promise: nil)
                }
            }
        }
        if failed {
            let failure = TLSFailure.protocolError(OpenSSLFailure("writing").description)
            promise?.fail(failure)
            fail(failure, context: context)
            return
        }
        if let promise { pendingPromises.append(promise) }
    }

    /// Sends the records OpenSSL wrote, completing the writes they came from when they are written.
    private func sendCiphertext(context: ChannelHandlerContext) {
        let promises = pendingPromises
        pendingPromises = []
        guard let buffer = wire.takeOutbound() else {
            promises.forEach { $0.succeed() }
            return
        }
        let writePromise: EventLoopPromise<Void>? = promises.isEmpty ? nil : context.eventLoop.makePromise()
        writePromise?.futureResult.whenComplete { result in
            switch result {
            case .success: promises.forEach { $0.succeed() }
            case .failure(let error): promises.forEach { $0.fail(error) }
            }
        }
        context.writeAndFlush(wrapOutboundOut(buffer), promise: writePromise)
    }

    private func failHeld(_ error: any Error) {
        let held = heldWrites
        heldWrites = []
        held.forEach { $0.1?.fail(error) }
        let promises = pendingPromises
        pendingPromises = []
        promises.forEach { $0.fail(error) }
    }

    private func fail(_ error: TLSFailure, context: ChannelHandlerContext) {
        guard state != .closed else { return }
        state = .closed
        establishedPromise?.fail(error)
        failHeld(error)
        context.fireErrorCaught(error)
        context.close(promise: nil)
    }
}
