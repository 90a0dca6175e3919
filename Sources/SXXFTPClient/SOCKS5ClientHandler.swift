import NIOCore

/// Asks a SOCKS5 proxy to connect to `host:port`, authenticating with `credentials` when given,
/// then steps out of the pipeline: what follows (TLS) runs through the proxy end to end. Writes made
/// before the proxy has connected are held and sent after. `connected` completes when it has, or
/// fails with a `SOCKSFailure`.
///
/// NIOSOCKS's client handler offers no authentication method but "none", and SimpleX's clients
/// authenticate to isolate Tor circuits (simplexmq `Transport/Client.hs` 221-290): hence this one.
final class SOCKS5ClientHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Step { case idle, choosingMethod, authenticating, connecting, connected, failed }

    private let host: String
    private let port: Int
    private let credentials: SOCKSCredentials?
    private var step = Step.idle
    private var received: [UInt8] = []
    private var held: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    private var flushHeld = false
    private var connectedPromise: EventLoopPromise<Void>?

    init(host: String, port: Int, credentials: SOCKSCredentials?) {
        self.host = host
        self.port = port
        self.credentials = credentials
    }

    var connected: EventLoopFuture<Void> {
        guard let connectedPromise else { preconditionFailure("the handler is not in a pipeline yet") }
        return connectedPromise.futureResult
    }

    func handlerAdded(context: ChannelHandlerContext) {
        connectedPromise = context.eventLoop.makePromise(of: Void.self)
        if context.channel.isActive { begin(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        if step != .connected { fail(.malformed("nothing before the connection closed"), context: nil) }
    }

    func channelActive(context: ChannelHandlerContext) {
        begin(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if step != .connected { fail(.malformed("nothing before the connection closed"), context: nil) }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard step != .connected else { return context.fireChannelRead(data) }
        let buffer = unwrapInboundIn(data)
        received += buffer.readableBytesView
        do throws(SOCKSFailure) {
            try advance(context: context)
        } catch {
            fail(error, context: context)
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch step {
        case .connected: context.write(data, promise: promise)
        case .failed: promise?.fail(ChannelError.ioOnClosedChannel)
        default: held.append((unwrapOutboundIn(data), promise))
        }
    }

    func flush(context: ChannelHandlerContext) {
        if step == .connected { context.flush() } else { flushHeld = true }
    }

    private func begin(context: ChannelHandlerContext) {
        guard step == .idle else { return }
        step = .choosingMethod
        send(SOCKS5Messages.greeting(credentials: credentials), context: context)
    }

    /// Takes each complete answer off `received`, and answers it.
    private func advance(context: ChannelHandlerContext) throws(SOCKSFailure) {
        while true {
            switch step {
            case .choosingMethod:
                guard case .complete(let length, let method) = try SOCKS5Messages.methodReply(received[...]) else { return }
                received.removeFirst(length)
                let offered = SOCKS5Messages.greeting(credentials: credentials)[2]
                guard method == offered else { throw .noAcceptableMethod(offered: offered) }
                if let credentials {
                    step = .authenticating
                    send(SOCKS5Messages.authentication(credentials), context: context)
                } else {
                    step = .connecting
                    send(try SOCKS5Messages.connect(host: host, port: port), context: context)
                }
            case .authenticating:
                guard case .complete(let length, let status) = try SOCKS5Messages.authenticationReply(received[...]) else { return }
                received.removeFirst(length)
                guard status == 0 else { throw .credentialsRefused }
                step = .connecting
                send(try SOCKS5Messages.connect(host: host, port: port), context: context)
            case .connecting:
                guard case .complete(let length, let code) = try SOCKS5Messages.connectReply(received[...]) else { return }
                received.removeFirst(length)
                guard code == 0 else { throw .connectRefused(code: code) }
                finish(context: context)
                return
            case .idle, .connected, .failed:
                return
            }
        }
    }

    /// Connected: the held writes go out, then any bytes that came after the reply (the server
    /// speaking first), then the handler leaves the pipeline.
    private func finish(context: ChannelHandlerContext) {
        step = .connected
        connectedPromise?.succeed()
        let writes = held
        held = []
        for (buffer, promise) in writes { context.write(wrapOutboundOut(buffer), promise: promise) }
        if flushHeld || !writes.isEmpty { context.flush() }
        if !received.isEmpty {
            let rest = context.channel.allocator.buffer(bytes: received)
            received = []
            context.fireChannelRead(wrapInboundOut(rest))
            context.fireChannelReadComplete()
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func send(_ bytes: [UInt8], context: ChannelHandlerContext) {
        context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(bytes: bytes)), promise: nil)
    }

    private func fail(_ failure: SOCKSFailure, context: ChannelHandlerContext?) {
        guard step != .failed, step != .connected else { return }
        step = .failed
        connectedPromise?.fail(failure)
        let writes = held
        held = []
        writes.forEach { $0.1?.fail(failure) }
        context?.close(promise: nil)
    }
}
