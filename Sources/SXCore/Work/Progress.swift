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

/// Thread-safe counters that library code bumps while it works. Libraries only count; rendering is
/// the caller's business (a `ProgressRenderer` driven by a `ProgressTicker`).
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

/// A one-line bar on a terminal: label, bar, percent, items, bytes, rate, ETA. Redrawn in place.
public final class TerminalProgressBar: ProgressRenderer {
    private let output: ConsoleOutput

    public init(output: ConsoleOutput) { self.output = output }

    public func update(_ snapshot: ProgressSnapshot) {
        output.write("\r" + Self.line(snapshot, width: output.terminalWidth()) + "\u{1B}[K")
    }

    public func finish(_ snapshot: ProgressSnapshot) {
        output.write("\r\u{1B}[K")
    }

    public static func line(_ s: ProgressSnapshot, width: Int) -> String {
        var parts: [String] = []
        if let total = s.itemsTotal, total > 1 { parts.append("\(s.itemsDone)/\(total)") }
        if let total = s.bytesTotal {
            parts.append("\(ByteCount.format(s.bytesDone))/\(ByteCount.format(total))")
        } else if s.bytesDone > 0 {
            parts.append(ByteCount.format(s.bytesDone))
        }
        if s.bytesDone > 0 { parts.append(ByteCount.format(Int64(s.bytesPerSecond)) + "/s") }
        if let eta = s.etaSeconds, eta.isFinite { parts.append("ETA " + Duration.clock(eta)) }
        let tail = parts.joined(separator: "  ")
        let percent = s.fraction.map { String(format: "%3d%%", Int($0 * 100)) } ?? ""
        let barWidth = max(10, min(40, width - s.label.count - tail.count - percent.count - 8))
        var bar = ""
        if let f = s.fraction {
            let filled = Int(Double(barWidth) * f)
            bar = "[" + String(repeating: "=", count: filled) + String(repeating: " ", count: barWidth - filled) + "]"
        }
        return String("\(s.label) \(bar) \(percent)  \(tail)".prefix(max(width - 1, 20)))
    }

    enum Duration {
        static func clock(_ seconds: Double) -> String {
            let total = Int(seconds.rounded())
            let (h, m, s) = (total / 3600, (total % 3600) / 60, total % 60)
            return h > 0 ? String(format: "%d:%02d:%02d", h, m, s) : String(format: "%d:%02d", m, s)
        }
    }
}

/// Progress as JSON objects, one a line: `{"type":"progress","label":…,"itemsDone":…,…,"seconds":…}`.
public final class JSONProgressLines: ProgressRenderer {
    private let output: ConsoleOutput

    public init(output: ConsoleOutput) { self.output = output }

    public func update(_ snapshot: ProgressSnapshot) { output.writeLine(Self.json(snapshot)) }
    public func finish(_ snapshot: ProgressSnapshot) { output.writeLine(Self.json(snapshot)) }

    public static func json(_ s: ProgressSnapshot) -> String {
        var fields = ["\"type\":\"progress\"", "\"label\":\(JSONText.quote(s.label))",
                      "\"itemsDone\":\(s.itemsDone)", "\"bytesDone\":\(s.bytesDone)"]
        if let t = s.itemsTotal { fields.append("\"itemsTotal\":\(t)") }
        if let t = s.bytesTotal { fields.append("\"bytesTotal\":\(t)") }
        fields.append(String(format: "\"seconds\":%.3f", s.elapsedSeconds))
        return "{" + fields.joined(separator: ",") + "}"
    }
}
