import Dispatch
import Synchronization

/// Hands the chunks that the encryption thread produces to the async upload tasks, holding at most
/// `inFlight` chunks (of up to 4 MiB each) at a time: the producer blocks until an upload finishes.
/// A failed upload stops the producer at its next chunk, so nothing more is encrypted for nothing.
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

    init(inFlight: Int) {
        (items, continuation) = AsyncStream.makeStream(of: Item.self)
        slots = DispatchSemaphore(value: max(1, inFlight))
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

    /// An upload is done with its chunk (successfully or not).
    func release() { slots.signal() }

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
