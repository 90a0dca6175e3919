import Foundation
import SXTransfer

/// What `sxkit relay serve` was asked for; every limit has a safe default.
public struct RelayServerConfiguration: Sendable {
    /// Address to bind. Loopback unless the operator says otherwise.
    public var host: String
    /// 0 picks a free port; the chosen one is reported through `onListening`.
    public var port: Int
    /// The store folder (created 0700 when missing).
    public var store: String
    /// How long a chunk lives after it was created.
    public var expiry: Duration
    /// How often expired chunks are removed (they are also refused on access in between).
    public var sweepInterval: Duration
    /// The largest chunk accepted: FORMATS §7's largest chunk size.
    public var maxChunkSize: Int64
    /// The total of the declared sizes of all chunks held, reserved at create.
    public var maxStoreSize: Int64
    /// The relay's clock (tests move it forward to expire chunks).
    public var now: @Sendable () -> Date

    public static let defaultExpiry: Duration = .seconds(48 * 3600)
    public static let defaultMaxStoreSize: Int64 = 8 * 1024 * 1024 * 1024

    public init(host: String = "127.0.0.1", port: Int = 0, store: String,
                expiry: Duration = defaultExpiry, sweepInterval: Duration? = nil,
                maxChunkSize: Int64 = HTTPRelayWire.largestChunk, maxStoreSize: Int64 = defaultMaxStoreSize,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.host = host
        self.port = port
        self.store = store
        self.expiry = expiry
        // A quarter of the expiry keeps an expired chunk's bytes around at most 25 % longer, and
        // never less often than every minute.
        self.sweepInterval = sweepInterval ?? min(.seconds(60), expiry / 4)
        self.maxChunkSize = maxChunkSize
        self.maxStoreSize = maxStoreSize
        self.now = now
    }

    /// True for 127.0.0.0/8, ::1 and "localhost": an address only this machine can reach.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host == "[::1]" || host.hasPrefix("127.")
    }
}
