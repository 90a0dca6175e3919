import Dispatch
import Foundation
import Synchronization

/// Runs `count` independent items on at most `jobs` threads; each thread pulls the next index, so
/// a few large items do not leave the others idle.
public enum ParallelWork {
    /// The default bound: the number of active cores.
    public static var defaultJobs: Int { max(1, ProcessInfo.processInfo.activeProcessorCount) }

    public static func forEach(count: Int, jobs: Int, _ body: @Sendable (Int) -> Void) {
        guard count > 0 else { return }
        let workers = max(1, min(jobs, count))
        if workers == 1 {
            for i in 0..<count { body(i) }
            return
        }
        let next = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: workers) { _ in
            while true {
                let i = next.wrappingAdd(1, ordering: .relaxed).oldValue
                guard i < count else { return }
                body(i)
            }
        }
    }

    /// Maps in parallel, keeping the order of the input.
    public static func map<T: Sendable>(count: Int, jobs: Int, _ body: @Sendable (Int) -> T) -> [T] {
        let results = Mutex<[Int: T]>([:])
        forEach(count: count, jobs: jobs) { i in
            let value = body(i)
            results.withLock { $0[i] = value }
        }
        return results.withLock { r in (0..<count).map { r[$0]! } }
    }
}
