import Foundation
import SXCore
import Synchronization

/// Shows progress somewhere. `finish` is called once, last.
public protocol ProgressRenderer: Sendable {
    func update(_ snapshot: ProgressSnapshot)
    func finish(_ snapshot: ProgressSnapshot)
}

/// Polls a tracker on a background thread and hands snapshots to a renderer, a few times a second.
public final class ProgressTicker: Sendable {
    private let snapshot: @Sendable () -> ProgressSnapshot
    private let renderer: any ProgressRenderer
    private let stopped = Mutex(false)
    private let done = DispatchSemaphore(value: 0)

    public convenience init(tracker: ProgressTracker, renderer: any ProgressRenderer, interval: Duration = .milliseconds(200)) {
        self.init(snapshot: { tracker.snapshot() }, renderer: renderer, interval: interval)
    }

    /// Polls `snapshot` instead of one tracker: for work in phases (download, decrypt, import), each
    /// with its own tracker, shown one after the other on the same line.
    public init(snapshot: @escaping @Sendable () -> ProgressSnapshot, renderer: any ProgressRenderer, interval: Duration = .milliseconds(200)) {
        self.snapshot = snapshot
        self.renderer = renderer
        let nanos = UInt32(interval.components.attoseconds / 1_000_000_000) + UInt32(interval.components.seconds) * 1_000_000_000
        Thread.detachNewThread { [self] in
            while !stopped.withLock({ $0 }) {
                renderer.update(snapshot())
                var remaining = nanos
                // Sleep in small steps so stop() returns promptly.
                while remaining > 0, !stopped.withLock({ $0 }) {
                    let step = min(remaining, 20_000_000)
                    usleep(step / 1000)
                    remaining -= step
                }
            }
            done.signal()
        }
    }

    /// Stops polling and renders the final state.
    public func stop() {
        let already = stopped.withLock { old in defer { old = true }; return old }
        guard !already else { return }
        done.wait()
        renderer.finish(snapshot())
    }
}
