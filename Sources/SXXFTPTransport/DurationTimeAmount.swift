import NIOCore

extension Duration {
    /// The same span as SwiftNIO's `TimeAmount` (the server's and the client's limits are `Duration`s).
    public var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
