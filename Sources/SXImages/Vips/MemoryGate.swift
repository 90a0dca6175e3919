import Foundation

/// Admits work by its estimated memory, so the sum in flight stays under a cap.
///
/// A batch runs one worker per core, but images differ a hundredfold in size: two 18 MP paintings
/// decoding at once need far more than two phone photos. A worker asks for its image's estimate
/// before decoding and waits while the images already admitted would push the total over `capacity`.
/// One image is always admitted when nothing else is in flight, however big, so nothing waits forever.
///
/// `@unchecked Sendable`: the counters are only read or written while holding `condition`
/// (NSCondition: a lock plus wait/broadcast, which Synchronization's Mutex does not offer).
final class MemoryGate: @unchecked Sendable {
    let capacity: Int
    private let condition = NSCondition()
    private var inFlight = 0
    private var admitted = 0
    private var highest = 0

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Runs `body` once `bytes` fit under the cap next to what is already admitted.
    func with<T>(bytes: Int, _ body: () throws -> T) rethrows -> T {
        let wanted = max(0, bytes)
        condition.lock()
        while admitted > 0 && inFlight + wanted > capacity { condition.wait() }
        inFlight += wanted
        admitted += 1
        highest = max(highest, inFlight)
        condition.unlock()
        defer {
            condition.lock()
            inFlight -= wanted
            admitted -= 1
            condition.broadcast()
            condition.unlock()
        }
        return try body()
    }

    /// The most bytes that were admitted at once.
    var peak: Int {
        condition.lock()
        defer { condition.unlock() }
        return highest
    }
}
