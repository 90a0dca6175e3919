import Foundation
import Testing

/// Runs each test of a suite on threads of the test run's own (`TestThreads.shared`) instead of
/// Swift's cooperative pool.
///
/// Why: the cooperative pool has one thread per core, two here. The end-to-end tests wait for the
/// `sxkit` processes they start (`Process.waitUntilExit`), and a waiting test holds its thread: with
/// two tests waiting on two single-threaded children, or on a timeout, a core stood idle. `make test`
/// used 69 % of the machine (stop 29, `notes/test-time.md`). Swift Testing still decides how many test
/// cases run at once (twice the cores unless `SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH` says
/// otherwise); these threads only keep a waiting test from holding a core.
public struct OwnThreadsTrait: SuiteTrait, TestTrait, TestScoping {
    public var isRecursive: Bool { true }

    /// Only the test cases themselves move; a suite's scope and a function's outer scope stay where
    /// Swift Testing runs them.
    public func scopeProvider(for test: Test, testCase: Test.Case?) -> OwnThreadsTrait? {
        testCase == nil ? nil : self
    }

    public func provideScope(for test: Test, testCase: Test.Case?,
                             performing function: @Sendable () async throws -> Void) async throws {
        try await withTaskExecutorPreference(TestThreads.shared) {
            try await function()
        }
    }
}

extension Trait where Self == OwnThreadsTrait {
    /// Run this suite's tests on the test run's own threads (`OwnThreadsTrait`).
    public static var ownThreads: OwnThreadsTrait { OwnThreadsTrait() }
}

/// A fixed set of plain threads that run Swift tasks (a `TaskExecutor`), first come, first served.
public final class TestThreads: TaskExecutor, @unchecked Sendable {
    /// More threads than Swift Testing's default width (twice the cores), so that width is what limits.
    public static let shared = TestThreads(count: max(8, 4 * ProcessInfo.processInfo.activeProcessorCount))

    private let condition = NSCondition()
    private var queue: [UnownedJob] = []
    private var head = 0

    init(count: Int) {
        for index in 0..<count {
            let thread = Thread { [unowned self] in self.work() }
            thread.name = "sxkit-test-\(index)"
            // Debug builds use deep stacks; match the main thread's default.
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        condition.lock()
        queue.append(job)
        condition.signal()
        condition.unlock()
    }

    /// True on one of these threads.
    public static var isCurrent: Bool { Thread.current.threadDictionary[marker] != nil }
    private static let marker = "sxkit-test-thread"

    private func work() {
        Thread.current.threadDictionary[Self.marker] = true
        while true {
            condition.lock()
            while head == queue.count { condition.wait() }
            let job = queue[head]
            head += 1
            if head > 1024, head * 2 > queue.count {
                queue.removeFirst(head)
                head = 0
            }
            condition.unlock()
            job.runSynchronously(on: asUnownedTaskExecutor())
        }
    }
}
