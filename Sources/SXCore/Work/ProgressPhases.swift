import Synchronization

/// Work in phases, each counted by its own tracker (a receive's download, then its decryption,
/// then an import): the current phase is the last one that has started, that is, has set its
/// totals. One display polls `snapshot()` and so follows the phases on the same line. A phase's
/// clock starts when it is first seen current, so its rate and ETA are its own.
public final class ProgressPhases: Sendable {
    public let trackers: [ProgressTracker]
    private let current = Mutex<Int?>(nil)

    public init(_ trackers: [ProgressTracker]) {
        precondition(!trackers.isEmpty, "ProgressPhases needs a tracker")
        self.trackers = trackers
    }

    public func snapshot() -> ProgressSnapshot {
        let snapshots = trackers.map { $0.snapshot() }
        guard let index = snapshots.lastIndex(where: { $0.bytesTotal != nil || $0.itemsTotal != nil }) else { return snapshots[0] }
        let changed = current.withLock { seen in
            defer { seen = index }
            return seen.map { $0 < index } ?? (index > 0)
        }
        guard changed else { return snapshots[index] }
        trackers[index].restartClock()
        return trackers[index].snapshot()
    }
}
