import Foundation
import SXCore

/// Progress as JSON objects, one a line, encoded as every `--json` line is (`JSONDocument.line`: compact,
/// keys sorted): `{"bytesDone":…,"bytesTotal":…,"itemsDone":…,"itemsTotal":…,"label":…,"seconds":…,"type":"progress"}`.
/// An unknown total is left out.
public final class JSONProgressLines: ProgressRenderer {
    private let output: ConsoleOutput

    public init(output: ConsoleOutput) { self.output = output }

    // Strings, integers and a clock's finite seconds: encoding cannot fail, and a line that did would
    // be left out rather than break the stream's one-object-a-line rule.
    public func update(_ snapshot: ProgressSnapshot) { if let line = try? Self.json(snapshot) { output.writeLine(line) } }
    public func finish(_ snapshot: ProgressSnapshot) { update(snapshot) }

    public static func json(_ snapshot: ProgressSnapshot) throws -> String {
        try JSONDocument.line(ProgressLine(snapshot))
    }

    /// One progress line's fields.
    private struct ProgressLine: Encodable {
        let type = "progress"
        var label: String
        var itemsDone: Int
        var bytesDone: Int64
        var itemsTotal: Int?
        var bytesTotal: Int64?
        /// Seconds since the work started, to the millisecond (`JSONTime.seconds`).
        var seconds: Double

        init(_ s: ProgressSnapshot) {
            label = s.label
            itemsDone = s.itemsDone
            bytesDone = s.bytesDone
            itemsTotal = s.itemsTotal
            bytesTotal = s.bytesTotal
            seconds = JSONTime.seconds(s.elapsedSeconds)
        }
    }
}
