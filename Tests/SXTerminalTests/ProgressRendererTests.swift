import Foundation
@testable import SXCore
import SXTerminal
import Synchronization
import Testing

private func snapshot(items: Int = 0, of itemsTotal: Int? = nil, bytes: Int64 = 0, ofBytes bytesTotal: Int64? = nil,
                      elapsed: Double = 0, label: String = "work") -> ProgressSnapshot {
    ProgressSnapshot(label: label, itemsDone: items, itemsTotal: itemsTotal, bytesDone: bytes, bytesTotal: bytesTotal,
                     elapsedSeconds: elapsed)
}

/// Records what a ticker hands it.
private final class RecordingRenderer: ProgressRenderer {
    let updates = Mutex<[ProgressSnapshot]>([])
    let finishes = Mutex<[ProgressSnapshot]>([])
    func update(_ snapshot: ProgressSnapshot) { updates.withLock { $0.append(snapshot) } }
    func finish(_ snapshot: ProgressSnapshot) { finishes.withLock { $0.append(snapshot) } }
}

@Suite("ProgressTicker")
struct ProgressTickerTests {
    @Test func pollsAndFinishesOnceWithTheFinalState() {
        let tracker = ProgressTracker(label: "tick", itemsTotal: 3)
        let renderer = RecordingRenderer()
        let ticker = ProgressTicker(tracker: tracker, renderer: renderer, interval: .milliseconds(5))
        tracker.itemDone()
        usleep(50_000)
        tracker.itemDone()
        tracker.itemDone()
        ticker.stop()
        ticker.stop()
        #expect(!renderer.updates.withLock { $0 }.isEmpty)
        let finishes = renderer.finishes.withLock { $0 }
        #expect(finishes.count == 1)
        #expect(finishes.first?.itemsDone == 3)
    }

    @Test func aTickerFollowsThePhases() {
        let first = ProgressTracker(label: "a", bytesTotal: 1), second = ProgressTracker(label: "b")
        let phases = ProgressPhases([first, second])
        let renderer = RecordingRenderer()
        let ticker = ProgressTicker(snapshot: { phases.snapshot() }, renderer: renderer, interval: .milliseconds(5))
        usleep(30_000)
        second.setTotals(items: 1, bytes: nil)
        usleep(30_000)
        ticker.stop()
        let labels = renderer.updates.withLock { $0 }.map(\.label)
        #expect(labels.contains("a") && labels.contains("b"))
        #expect(renderer.finishes.withLock { $0 }.first?.label == "b")
    }
}

@Suite("TerminalProgressBar")
struct TerminalProgressBarTests {
    @Test func lineShowsLabelBarPercentCountsRateAndETA() {
        let line = TerminalProgressBar.line(snapshot(items: 3, of: 10, bytes: 512 * 1024, ofBytes: 1024 * 1024, elapsed: 2, label: "encrypt"),
                                            width: 120)
        #expect(line.hasPrefix("encrypt ["))
        #expect(line.contains(" 50%"))
        #expect(line.contains("3/10"))
        #expect(line.contains("512.0 KiB/1.00 MiB"))
        #expect(line.contains("256.0 KiB/s"))
        #expect(line.contains("ETA 0:02"))
        #expect(line.count <= 119)
    }

    @Test func barFillsInProportion() throws {
        let line = TerminalProgressBar.line(snapshot(items: 1, of: 4, label: "x"), width: 80)
        let open = try #require(line.firstIndex(of: "["))
        let close = try #require(line.firstIndex(of: "]"))
        let inside = line[line.index(after: open)..<close]
        let filled = inside.filter { $0 == "=" }.count
        #expect(inside.count >= 10 && inside.count <= 40)
        #expect(filled == inside.count / 4)
        #expect(line.contains(" 25%"))
    }

    @Test func aSingleItemIsNotCounted() {
        let line = TerminalProgressBar.line(snapshot(items: 0, of: 1, label: "copy"), width: 80)
        #expect(!line.contains("0/1"))
        #expect(line.contains("  0%"))
    }

    @Test func unknownTotalsShowNoBarOrPercent() {
        let line = TerminalProgressBar.line(snapshot(items: 3, bytes: 2048, elapsed: 1, label: "copy"), width: 80)
        #expect(!line.contains("%"))
        #expect(!line.contains("["))
        #expect(!line.contains("3"), "items without a total are not shown")
        #expect(line.contains("2.00 KiB  2.00 KiB/s"))
        #expect(!line.contains("ETA"))
    }

    @Test func longETAUsesHours() {
        // 1 % in 101 s: 9999 s to go.
        let line = TerminalProgressBar.line(snapshot(bytes: 100, ofBytes: 10_000, elapsed: 101), width: 120)
        #expect(line.contains("ETA 2:46:39"))
    }

    @Test func noETAFromAFirstTinySample() {
        // The first frame of a 1 GiB receive, 200 ms in, one 64 KiB chunk down (ProgressSnapshot.etaSeconds).
        let first = snapshot(bytes: 64 << 10, ofBytes: 1 << 30, elapsed: 0.2)
        #expect(!TerminalProgressBar.line(first, width: 120).contains("ETA"))
        #expect(TerminalProgressBar.line(snapshot(bytes: 512 << 20, ofBytes: 1 << 30, elapsed: 2), width: 120).contains("ETA 0:02"))
    }

    @Test func lineIsCutToTheTerminalWidth() {
        let label = String(repeating: "L", count: 300)
        #expect(TerminalProgressBar.line(snapshot(items: 1, of: 2, label: label), width: 60).count == 59)
        #expect(TerminalProgressBar.line(snapshot(items: 1, of: 2, label: label), width: 5).count == 20)
    }

    @Test func rendererRedrawsInPlaceAndClearsOnFinish() throws {
        let captured = try CapturedOutput()
        let bar = TerminalProgressBar(output: captured.output)
        let s = snapshot(items: 1, of: 2, label: "job")
        bar.update(s)
        bar.finish(s)
        let expected = "\r" + TerminalProgressBar.line(s, width: 80) + "\u{1B}[K" + "\r\u{1B}[K"
        #expect(captured.text() == expected)
    }
}

@Suite("JSONProgressLines")
struct JSONProgressLinesTests {
    private func object(_ line: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    }

    @Test func allFields() throws {
        let s = snapshot(items: 2, of: 5, bytes: 100, ofBytes: 900, elapsed: 1.23456, label: "send \"a\"\n")
        let json = try object(try JSONProgressLines.json(s))
        #expect(json["type"] as? String == "progress")
        #expect(json["label"] as? String == "send \"a\"\n")
        #expect((json["itemsDone"] as? NSNumber)?.intValue == 2)
        #expect((json["itemsTotal"] as? NSNumber)?.intValue == 5)
        #expect((json["bytesDone"] as? NSNumber)?.int64Value == 100)
        #expect((json["bytesTotal"] as? NSNumber)?.int64Value == 900)
        #expect((json["seconds"] as? NSNumber)?.doubleValue == 1.235)
        #expect(Set(json.keys) == ["type", "label", "itemsDone", "itemsTotal", "bytesDone", "bytesTotal", "seconds"])
    }

    @Test func unknownTotalsAreLeftOut() throws {
        let json = try object(try JSONProgressLines.json(snapshot(items: 7, bytes: 8)))
        #expect(Set(json.keys) == ["type", "label", "itemsDone", "bytesDone", "seconds"])
        #expect(try !JSONProgressLines.json(snapshot()).contains("\n"))
    }

    /// Encoded as every `--json` line is (JSONDocument.line): compact, keys sorted, slashes as they
    /// are, seconds to the millisecond, a name that is not UTF-8 escaped.
    @Test func theLineIsExactlyTheJSONVocabularysEncoding() throws {
        let s = snapshot(items: 2, of: 5, bytes: 100, ofBytes: 900, elapsed: 1.23456, label: "send a/b.bin")
        #expect(try JSONProgressLines.json(s)
            == #"{"bytesDone":100,"bytesTotal":900,"itemsDone":2,"itemsTotal":5,"label":"send a/b.bin","seconds":1.235,"type":"progress"}"#)
        #expect(try JSONProgressLines.json(snapshot(items: 1, bytes: 0, elapsed: 3, label: "copy"))
            == #"{"bytesDone":0,"itemsDone":1,"label":"copy","seconds":3,"type":"progress"}"#)
        let latin1 = FileNameBytes.string(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(try JSONProgressLines.json(snapshot(label: latin1)).contains(#""label":"caf\\xE9.jpg""#))
    }

    @Test func rendererWritesOneObjectPerLine() throws {
        let captured = try CapturedOutput()
        let renderer = JSONProgressLines(output: captured.output)
        renderer.update(snapshot(items: 1, of: 2))
        renderer.finish(snapshot(items: 2, of: 2))
        let lines = captured.text().split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 3 && lines[2].isEmpty)
        #expect((try object(String(lines[0]))["itemsDone"] as? NSNumber)?.intValue == 1)
        #expect((try object(String(lines[1]))["itemsDone"] as? NSNumber)?.intValue == 2)
    }
}
