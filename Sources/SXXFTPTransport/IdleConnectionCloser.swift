import NIOCore
import Synchronization

/// Closes the connection when `IdleStateHandler` says nothing arrived for its read timeout: the
/// server's limit on silent clients, the client's on a server that stopped answering.
public final class IdleConnectionCloser: ChannelInboundHandler, Sendable {
    public typealias InboundIn = NIOAny

    private let closed = Atomic<Bool>(false)

    public init() {}

    /// Whether this handler closed the connection: what the requests cut short by it were told,
    /// in place of the bare "closed channel" they see.
    public var closedForSilence: Bool { closed.load(ordering: .acquiring) }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let idle = event as? IdleStateHandler.IdleStateEvent, idle == .read {
            closed.store(true, ordering: .releasing)
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }
}
