import Foundation
import SXCore

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
