import Foundation
import Synchronization
import Hummingbird
import Logging
import SXCore
import SXTransfer

/// The HTTP relay: a Hummingbird application over a ChunkStore, plus the periodic expiry sweep.
public final class RelayServer: Sendable {
    public let configuration: RelayServerConfiguration
    let store: ChunkStore

    /// Opens (or creates, 0700) the store and indexes what it already holds.
    public init(configuration: RelayServerConfiguration) throws {
        self.configuration = configuration
        store = try ChunkStore(configuration: configuration)
    }

    /// The store folder, absolute.
    public var storePath: String { store.root }

    /// Serves until the task is cancelled (an abrupt stop: open connections are dropped) or, with
    /// `stopOnSignals`, until SIGINT or SIGTERM (a graceful one: requests in flight are finished).
    /// `onListening` receives the base URL once the socket is bound, e.g. `http://127.0.0.1:43117`.
    public func run(stopOnSignals: Bool = false, onListening: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let router = Router()
        RelayRoutes(store: store).register(on: router)
        let host = configuration.host.hasPrefix("[") ? String(configuration.host.dropFirst().dropLast()) : configuration.host
        let shownHost = host.contains(":") ? "[\(host)]" : host
        let bound = Mutex<Bool>(false), requestedPort = configuration.port
        let app = Application(
            router: router,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                bound.withLock { $0 = true }
                onListening("http://\(shownHost):\(channel.localAddress?.port ?? requestedPort)")
            },
            // Hummingbird logs to stdout by default; the relay's stdout is its address line only.
            logger: Logger(label: "sxkit.relay", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let store = self.store, interval = configuration.sweepInterval
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    // Hummingbird's default signals are SIGTERM and SIGINT.
                    if stopOnSignals { try await app.runService() } else { try await app.runService(gracefulShutdownSignals: []) }
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: interval)
                        if Task.isCancelled { break }
                        store.sweep()
                    }
                }
                // Whichever ends first (the server, on a signal or cancellation) ends the other.
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            // Before the socket was bound, any failure is a failure to listen (port taken, bad host).
            if bound.withLock({ $0 }) { throw error }
            throw RelayServerError.cannotListen(address: "\(shownHost):\(configuration.port)", cause: ErrorCause.text(of: error))
        }
    }

    /// Removes expired chunks now (the server also does this every `sweepInterval`).
    @discardableResult
    public func sweepExpired() -> Int { store.sweep() }
}
