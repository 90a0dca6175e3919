import SXCore
import Synchronization

/// A fixed number of chunk-sized aligned buffers, handed out in the order they are asked for: a
/// receive holds each downloaded chunk in one until the whole-file digest has taken it in order, so
/// memory stays at `count` chunks however the downloads interleave.
///
/// Buffers are made on first need (a small file never allocates the whole pool). Whoever takes a
/// buffer gives it back exactly once, also on failure; as long as buffers are taken in chunk order,
/// the oldest chunk not yet hashed always holds one, so a waiting `take` always ends.
final class ChunkBufferPool: Sendable {
    private struct State {
        var free: [AlignedBuffer] = []
        var made = 0
        var waiting: [CheckedContinuation<AlignedBuffer, Never>] = []
    }

    let count: Int
    let capacity: Int
    private let state = Mutex(State())

    init(count: Int, capacity: Int) {
        self.count = max(1, count)
        self.capacity = capacity
    }

    /// A buffer, emptied; waits (first come, first served) while all `count` are out.
    func take() async -> AlignedBuffer {
        let ready: AlignedBuffer? = state.withLock { s in
            if let buffer = s.free.popLast() { return buffer }
            if s.made < count {
                s.made += 1
                return AlignedBuffer(capacity: capacity)
            }
            return nil
        }
        if let ready {
            ready.removeAll()
            return ready
        }
        let buffer = await withCheckedContinuation { continuation in
            // Checked again under the lock: a buffer may have come back since.
            let now: AlignedBuffer? = state.withLock { s in
                if let buffer = s.free.popLast() { return buffer }
                s.waiting.append(continuation)
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        buffer.removeAll()
        return buffer
    }

    /// Returns a buffer taken from this pool; the longest waiter gets it.
    func give(_ buffer: AlignedBuffer) {
        let waiter: CheckedContinuation<AlignedBuffer, Never>? = state.withLock { s in
            if s.waiting.isEmpty {
                s.free.append(buffer)
                return nil
            }
            return s.waiting.removeFirst()
        }
        waiter?.resume(returning: buffer)
    }
}
