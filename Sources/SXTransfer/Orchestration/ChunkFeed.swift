import Dispatch
import Synchronization
import SXCore

/// Hands the chunks that the encryption thread produces to the async upload tasks, holding at most
/// `inFlight` chunks (of up to 4 MiB each) at a time: the producer blocks until an upload finishes.
/// A failed upload stops the producer at its next chunk, so nothing more is encrypted for nothing.
///
/// Chunk buffers are reused: a fresh 4 MiB array per chunk, allocated on one thread and freed on
/// another, leaves glibc's per-thread heap arenas each holding a few of them (peak RSS 130-160 MB
/// for a 1 GiB send); recycled, only `inFlight + 1` buffers ever exist.
final class ChunkFeed: Sendable {
    struct Item: Sendable {
        let index: Int
        let bytes: [UInt8]
        let digest: [UInt8]
    }

    let items: AsyncStream<Item>
    private let continuation: AsyncStream<Item>.Continuation
    private let slots: DispatchSemaphore
    private let stopped = Atomic<Bool>(false)
    private let spare = Mutex<[[UInt8]]>([])

    init(inFlight: Int) {
        (items, continuation) = AsyncStream.makeStream(of: Item.self)
        slots = DispatchSemaphore.slots(max(1, inFlight))
    }

    /// From the producer thread: waits for room, then queues the chunk. Throws once stopped.
    func offer(_ item: Item) throws {
        slots.wait()
        guard !stopped.load(ordering: .acquiring) else {
            slots.signal()  // wakes the next waiter, if any, to see the stop too
            throw CancellationError()
        }
        continuation.yield(item)
    }

    /// An empty buffer for the next chunk, with room for `capacity` bytes (a recycled one when there is one).
    func buffer(capacity: Int) -> [UInt8] {
        var bytes = spare.withLock { $0.popLast() } ?? []
        bytes.removeAll(keepingCapacity: true)
        bytes.reserveCapacity(capacity)
        return bytes
    }

    /// An upload is done with its chunk (successfully or not); its buffer goes back for reuse.
    func release(_ bytes: [UInt8]) {
        spare.withLock { $0.append(bytes) }
        slots.signal()
    }

    /// A chunk that needs no upload (sent by an earlier run): its buffer goes straight back.
    func recycle(_ bytes: [UInt8]) { spare.withLock { $0.append(bytes) } }

    /// Makes the producer give up at its next chunk (it may be waiting for room right now).
    func stop() {
        stopped.store(true, ordering: .releasing)
        slots.signal()
    }

    /// The producer is done: the consumer's loop ends after the queued chunks.
    func finish() { continuation.finish() }
}

/// Runs blocking work (file I/O, the cipher) on a dispatch thread instead of one of the few threads
/// that run every async task.
func offloaded<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
        DispatchQueue.global().async { continuation.resume(with: Result { try body() }) }
    }
}
