import NIOCore

/// Closes the connection when `IdleStateHandler` says nothing arrived for its read timeout: the
/// server's limit on silent clients, the client's on a server that stopped answering.
public final class IdleConnectionCloser: ChannelInboundHandler, Sendable {
    public typealias InboundIn = NIOAny

    public init() {}

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
