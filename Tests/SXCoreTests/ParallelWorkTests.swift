import Foundation
import SXCore
import Synchronization
import Testing
import SXTestSupport

@Suite("ParallelWork", .ownThreads)
struct ParallelWorkTests {
    @Test func forEachVisitsEveryIndexExactlyOnce() {
        let counts = Mutex([Int](repeating: 0, count: 1000))
        ParallelWork.forEach(count: 1000, jobs: 8) { i in counts.withLock { $0[i] += 1 } }
        #expect(counts.withLock { $0 } == [Int](repeating: 1, count: 1000))
    }

    @Test func forEachWithOneJobRunsInOrder() {
        let order = Mutex<[Int]>([])
        ParallelWork.forEach(count: 20, jobs: 1) { i in order.withLock { $0.append(i) } }
        #expect(order.withLock { $0 } == Array(0..<20))
    }

    @Test func forEachWithNothingToDoNeverCallsTheBody() {
        let calls = Atomic(0)
        ParallelWork.forEach(count: 0, jobs: 4) { _ in calls.add(1, ordering: .relaxed) }
        ParallelWork.forEach(count: -3, jobs: 4) { _ in calls.add(1, ordering: .relaxed) }
        #expect(calls.load(ordering: .relaxed) == 0)
    }

    @Test func nonPositiveJobCountStillDoesTheWork() {
        let calls = Atomic(0)
        ParallelWork.forEach(count: 10, jobs: 0) { _ in calls.add(1, ordering: .relaxed) }
        #expect(calls.load(ordering: .relaxed) == 10)
    }

    @Test func neverRunsMoreThanJobsAtOnce() {
        let running = Atomic(0)
        let peak = Atomic(0)
        ParallelWork.forEach(count: 64, jobs: 3) { _ in
            let now = running.add(1, ordering: .sequentiallyConsistent).newValue
            _ = peak.max(now, ordering: .sequentiallyConsistent)
            usleep(1000)
            running.subtract(1, ordering: .sequentiallyConsistent)
        }
        #expect(peak.load(ordering: .sequentiallyConsistent) <= 3)
        #expect(peak.load(ordering: .sequentiallyConsistent) >= 1)
    }

    @Test func mapKeepsTheInputOrder() {
        // Earlier items take longer, so they finish last; the result must still be in index order.
        let result = ParallelWork.map(count: 200, jobs: 8) { i -> String in
            if i < 8 { usleep(UInt32(2000 * (8 - i))) }
            return "item-\(i)"
        }
        #expect(result == (0..<200).map { "item-\($0)" })
    }

    @Test func mapOfNothingIsEmpty() {
        #expect(ParallelWork.map(count: 0, jobs: 4) { $0 }.isEmpty)
    }

    @Test func defaultJobsIsAtLeastOne() {
        #expect(ParallelWork.defaultJobs >= 1)
        #expect(ParallelWork.defaultJobs == max(1, ProcessInfo.processInfo.activeProcessorCount))
    }
}
