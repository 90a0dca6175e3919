import SXCore
import Synchronization
import Testing
import SXTestSupport
@testable import SXTransfer

@Suite("Chunk buffer pool", .ownThreads)
struct ChunkBufferPoolTests {
    @Test("buffers are made on demand up to the count; a take beyond it waits for a give, first come first served")
    func waitsForAGiveInOrder() async throws {
        let pool = ChunkBufferPool(count: 2, capacity: 64 << 10)
        let a = await pool.take(), b = await pool.take()
        #expect(a !== b && a.capacity == 64 << 10)
        let served = ServedOrder()
        let first = Task { let buffer = await pool.take(); served.add(1); return buffer }
        try await Task.sleep(for: .milliseconds(50))
        let second = Task { let buffer = await pool.take(); served.add(2); return buffer }
        try await Task.sleep(for: .milliseconds(50))
        #expect(served.all.isEmpty)  // both wait: no third buffer is ever made
        _ = a.withUnusedCapacity { _ in 10 }  // a returned buffer comes back emptied
        pool.give(a)
        let gotFirst = await first.value
        #expect(gotFirst === a && gotFirst.count == 0)
        pool.give(b)
        #expect(await second.value === b)
        #expect(served.all == [1, 2])
    }
}

private final class ServedOrder: Sendable {
    private let order = Mutex<[Int]>([])
    func add(_ n: Int) { order.withLock { $0.append(n) } }
    var all: [Int] { order.withLock { $0 } }
}
