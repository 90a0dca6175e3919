import Foundation
@testable import SXCore
import Testing
import SXTestSupport

private func snapshot(items: Int = 0, of itemsTotal: Int? = nil, bytes: Int64 = 0, ofBytes bytesTotal: Int64? = nil,
                      elapsed: Double = 0, label: String = "work") -> ProgressSnapshot {
    ProgressSnapshot(label: label, itemsDone: items, itemsTotal: itemsTotal, bytesDone: bytes, bytesTotal: bytesTotal,
                     elapsedSeconds: elapsed)
}

@Suite("ProgressSnapshot", .ownThreads)
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

    @Test func noETAFromAFirstTinySample() {
        // The first frame of a 1 GiB receive, 200 ms in, one 64 KiB chunk down: the average rate
        // would promise nearly an hour. No ETA until a second has passed and 1 % is done.
        let first = snapshot(bytes: 64 << 10, ofBytes: 1 << 30, elapsed: 0.2)
        #expect(first.etaSeconds == nil)
        #expect(snapshot(bytes: 64 << 10, ofBytes: 1 << 30, elapsed: 5).etaSeconds == nil, "under 1 % done")
        #expect(snapshot(bytes: 600 << 20, ofBytes: 1 << 30, elapsed: 0.5).etaSeconds == nil, "under a second")
        #expect(snapshot(bytes: 512 << 20, ofBytes: 1 << 30, elapsed: 2).etaSeconds == 2)
        #expect(snapshot(items: 1, of: 200, elapsed: 3).etaSeconds == nil)
        #expect(snapshot(items: 2, of: 200, elapsed: 3).etaSeconds == 297)
    }
}

@Suite("ProgressTracker", .ownThreads)
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

@Suite("ProgressPhases", .ownThreads)
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
}
