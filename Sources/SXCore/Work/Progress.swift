import Foundation
import Synchronization

/// One reading of a long operation's progress.
public struct ProgressSnapshot: Sendable, Equatable {
    public var label: String
    public var itemsDone: Int
    public var itemsTotal: Int?
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    public var elapsedSeconds: Double

    /// Bytes per second since the start.
    public var bytesPerSecond: Double { elapsedSeconds > 0 ? Double(bytesDone) / elapsedSeconds : 0 }

    /// An ETA is shown only once this much time has passed…
    public static let etaMinimumSeconds = 1.0
    /// …and this much of the work is done: a first tiny sample (a slow first chunk, a pause while a
    /// database opens) would otherwise promise hours for a job of seconds.
    public static let etaMinimumFraction = 0.01

    /// Seconds left at the average rate so far; nil until there is a total and enough of a sample
    /// (`etaMinimumSeconds` elapsed and `etaMinimumFraction` done).
    public var etaSeconds: Double? {
        guard elapsedSeconds >= Self.etaMinimumSeconds, let done = fraction, done >= Self.etaMinimumFraction else { return nil }
        if let total = bytesTotal, total > 0, bytesDone > 0 {
            return Double(total - bytesDone) / bytesPerSecond
        }
        if let total = itemsTotal, total > 0, itemsDone > 0 {
            return Double(total - itemsDone) * elapsedSeconds / Double(itemsDone)
        }
        return nil
    }

    /// Fraction done in 0...1, by bytes when known, else by items.
    public var fraction: Double? {
        if let total = bytesTotal, total > 0 { return min(1, Double(bytesDone) / Double(total)) }
        if let total = itemsTotal, total > 0 { return min(1, Double(itemsDone) / Double(total)) }
        return nil
    }
}

/// Thread-safe counters that library code bumps while it works. Libraries only count; showing the
/// counts is the CLI's business (SXTerminal's renderers read snapshots of them).
public final class ProgressTracker: Sendable {
    private struct State {
        var itemsDone = 0
        var itemsTotal: Int?
        var bytesDone: Int64 = 0
        var bytesTotal: Int64?
        var start = ContinuousClock.now
    }

    public let label: String
    private let state: Mutex<State>

    public init(label: String, itemsTotal: Int? = nil, bytesTotal: Int64? = nil) {
        self.label = label
        state = Mutex(State(itemsTotal: itemsTotal, bytesTotal: bytesTotal))
    }

    public func setTotals(items: Int?, bytes: Int64?) {
        state.withLock { $0.itemsTotal = items; $0.bytesTotal = bytes }
    }

    public func addBytes(_ count: Int64) { state.withLock { $0.bytesDone += count } }
    public func itemDone() { state.withLock { $0.itemsDone += 1 } }

    /// Counts time from now: for a phase whose tracker was made before the phase began.
    public func restartClock() { state.withLock { $0.start = .now } }

    public func snapshot() -> ProgressSnapshot {
        return state.withLock {
            let elapsed = $0.start.duration(to: .now)
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            return ProgressSnapshot(label: label, itemsDone: $0.itemsDone, itemsTotal: $0.itemsTotal,
                             bytesDone: $0.bytesDone, bytesTotal: $0.bytesTotal, elapsedSeconds: seconds)
        }
    }
}
