import Foundation
@testable import SXCore
import Synchronization
import Testing

private func snapshot(items: Int = 0, of itemsTotal: Int? = nil, bytes: Int64 = 0, ofBytes bytesTotal: Int64? = nil,
                      elapsed: Double = 0, label: String = "work") -> ProgressSnapshot {
    ProgressSnapshot(label: label, itemsDone: items, itemsTotal: itemsTotal, bytesDone: bytes, bytesTotal: bytesTotal,
                     elapsedSeconds: elapsed)
}

@Suite("ProgressSnapshot")
struct ProgressSnapshotTests {
    @Test func fractionPrefersBytesOverItems() {
        #expect(snapshot(items: 1, of: 10, bytes: 750, ofBytes: 1000).fraction == 0.75)
        #expect(snapshot(items: 1, of: 4).fraction == 0.25)
        #expect(snapshot(items: 1, of: 4, bytes: 10, ofBytes: 0).fraction == 0.25, "a zero byte total falls back to items")
    }

    @Test func fractionIsClampedAndNilWithoutTotals() {
        #expect(snapshot(bytes: 2000, ofBytes: 1000).fraction == 1)
        #expect(snapshot(items: 3, of: 2).fraction == 1)
        #expect(snapshot(items: 3, bytes: 10).fraction == nil)
        #expect(snapshot(items: 0, of: 0).fraction == nil)
    }

    @Test func rateIsBytesOverElapsedTime() {
        #expect(snapshot(bytes: 500, elapsed: 2).bytesPerSecond == 250)
        #expect(snapshot(bytes: 500, elapsed: 0).bytesPerSecond == 0)
    }

    @Test func etaFromBytes() {
        // 25 of 100 bytes in 10 s: 2.5 B/s, 75 bytes left.
        #expect(snapshot(bytes: 25, ofBytes: 100, elapsed: 10).etaSeconds == 30)
    }

    @Test func etaFromItemsWhenNoBytesAreCounted() {
        // 2 of 10 items in 4 s: 2 s each, 8 left.
        #expect(snapshot(items: 2, of: 10, elapsed: 4).etaSeconds == 16)
    }

    @Test func etaIsNilWithoutARateOrTotal() {
        #expect(snapshot(bytes: 0, ofBytes: 100, elapsed: 10).etaSeconds == nil)
        #expect(snapshot(bytes: 10, ofBytes: 100, elapsed: 0).etaSeconds == nil)
        #expect(snapshot(bytes: 10, elapsed: 5).etaSeconds == nil)
        #expect(snapshot(items: 0, of: 10, elapsed: 5).etaSeconds == nil)
        #expect(snapshot(bytes: 100, ofBytes: 100, elapsed: 5).etaSeconds == 0)
    }
}

@Suite("ProgressTracker")
struct ProgressTrackerTests {
    @Test func countsFromManyThreads() {
        let tracker = ProgressTracker(label: "batch", itemsTotal: 1000, bytesTotal: 3000)
        ParallelWork.forEach(count: 1000, jobs: 8) { _ in
            tracker.addBytes(3)
            tracker.itemDone()
        }
        let s = tracker.snapshot()
        #expect(s.label == "batch")
        #expect(s.itemsDone == 1000)
        #expect(s.bytesDone == 3000)
        #expect(s.itemsTotal == 1000)
        #expect(s.bytesTotal == 3000)
        #expect(s.fraction == 1)
    }

    @Test func startsEmptyAndTotalsCanChange() {
        let tracker = ProgressTracker(label: "scan")
        let first = tracker.snapshot()
        #expect(first.itemsDone == 0 && first.bytesDone == 0)
        #expect(first.itemsTotal == nil && first.bytesTotal == nil)
        tracker.setTotals(items: 5, bytes: 50)
        tracker.addBytes(10)
        #expect(tracker.snapshot().fraction == 0.2)
        tracker.setTotals(items: 5, bytes: nil)
        tracker.itemDone()
        #expect(tracker.snapshot().fraction == 0.2)
        #expect(tracker.snapshot().bytesTotal == nil)
    }

    @Test func elapsedTimeGrows() throws {
        let tracker = ProgressTracker(label: "t")
        let before = tracker.snapshot().elapsedSeconds
        #expect(before >= 0)
        usleep(20_000)
        let after = tracker.snapshot().elapsedSeconds
        #expect(after >= before + 0.015)
        #expect(after < 10)
    }
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
        // The first frame of a 1 GiB receive, 200 ms in, one 64 KiB chunk down: the average rate
        // would promise nearly an hour. No ETA until a second has passed and 1 % is done.
        let first = snapshot(bytes: 64 << 10, ofBytes: 1 << 30, elapsed: 0.2)
        #expect(first.etaSeconds == nil)
        #expect(!TerminalProgressBar.line(first, width: 120).contains("ETA"))
        #expect(snapshot(bytes: 64 << 10, ofBytes: 1 << 30, elapsed: 5).etaSeconds == nil, "under 1 % done")
        #expect(snapshot(bytes: 600 << 20, ofBytes: 1 << 30, elapsed: 0.5).etaSeconds == nil, "under a second")
        #expect(snapshot(bytes: 512 << 20, ofBytes: 1 << 30, elapsed: 2).etaSeconds == 2)
        #expect(snapshot(items: 1, of: 200, elapsed: 3).etaSeconds == nil)
        #expect(snapshot(items: 2, of: 200, elapsed: 3).etaSeconds == 297)
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
        let json = try object(JSONProgressLines.json(s))
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
        let json = try object(JSONProgressLines.json(snapshot(items: 7, bytes: 8)))
        #expect(Set(json.keys) == ["type", "label", "itemsDone", "bytesDone", "seconds"])
        #expect(!JSONProgressLines.json(snapshot()).contains("\n"))
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

@Suite("ProgressPhases")
struct ProgressPhasesTests {
    @Test func followsThePhaseThatStartedLast() {
        let download = ProgressTracker(label: "receive"), decrypt = ProgressTracker(label: "decrypt"), load = ProgressTracker(label: "import")
        let phases = ProgressPhases([download, decrypt, load])
        #expect(phases.snapshot().label == "receive", "nothing started: the first phase")
        download.setTotals(items: nil, bytes: 100)
        download.addBytes(100)
        #expect(phases.snapshot().label == "receive")
        decrypt.setTotals(items: nil, bytes: 80)
        decrypt.addBytes(20)
        let second = phases.snapshot()
        #expect(second.label == "decrypt" && second.fraction == 0.25)
        load.setTotals(items: 3, bytes: 300)
        #expect(phases.snapshot().label == "import")
    }

    @Test func aLaterPhaseCountsItsOwnTime() {
        let first = ProgressTracker(label: "receive"), second = ProgressTracker(label: "decrypt")
        let phases = ProgressPhases([first, second])
        first.setTotals(items: nil, bytes: 10)
        usleep(300_000)
        second.setTotals(items: nil, bytes: 10)
        #expect(phases.snapshot().elapsedSeconds < 0.2, "the decrypt phase's clock starts when it does, not with the download")
        #expect(first.snapshot().elapsedSeconds >= 0.3)
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
