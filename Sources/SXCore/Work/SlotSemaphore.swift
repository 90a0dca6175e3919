import Dispatch

extension DispatchSemaphore {
    /// A semaphore counting `count` free slots (buffers, chunks in flight) that may be freed while
    /// some slots are still taken.
    ///
    /// libdispatch traps ("Semaphore object deallocated while in use", SIGILL) when a semaphore made
    /// with `DispatchSemaphore(value: n)` is freed while its count is below `n` — exactly the state
    /// an error path leaves when it stops a pipeline with buffers still out (a full disk during a
    /// receive's decryption). Made at 0 and signalled `count` times, it hands out the same slots and
    /// has no starting value to trap on.
    public static func slots(_ count: Int) -> DispatchSemaphore {
        let semaphore = DispatchSemaphore(value: 0)
        for _ in 0..<count { semaphore.signal() }
        return semaphore
    }
}
