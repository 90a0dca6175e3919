import Foundation
import SXCore

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
