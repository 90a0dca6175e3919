import Testing
import SXTestSupport
@testable import SXChats

/// How an export's chats are shared between threads and cut into batches read side by side.
@Suite(.ownThreads) struct ExportBatchTests {
    @Test("chats shared by item count, largest first to the lightest thread; batches capped; every chat exactly once")
    func batches() {
        let items: [Int64] = [10, 500, 40, 300, 300, 1, 0, 250]
        let two = ExportWork.batches(items, workers: 2, maxChats: 64)
        #expect(two.count == 2)
        #expect(two.flatMap { $0 }.sorted() == Array(items.indices))
        let loads = two.map { $0.reduce(Int64(0)) { $0 + items[$1] } }
        #expect(loads == [750, 651], "greedy: 500, then 300 and 300 to the other, 250 back to the first, the rest to the lighter")
        #expect(ExportWork.batches(items, workers: 1, maxChats: 64) == [[1, 3, 4, 7, 2, 0, 5, 6]], "one thread: one batch, largest first")
        let capped = ExportWork.batches(items, workers: 1, maxChats: 3)
        #expect(capped.map(\.count) == [3, 3, 2] && capped.flatMap { $0 }.sorted() == Array(items.indices))
        #expect(ExportWork.batches([], workers: 2, maxChats: 64).isEmpty)
    }
}
