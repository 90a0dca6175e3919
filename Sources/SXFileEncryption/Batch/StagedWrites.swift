import SXCrypto
import Dispatch
import Foundation
import Synchronization
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// One file transformed into a temp file beside its destination, not yet published.
public struct StagedWrite: Sendable {
    /// The finished temp file; nil when the transform failed.
    public var writer: AtomicFileWriter?
    public var result: BatchItemResult

    public init(writer: AtomicFileWriter?, result: BatchItemResult) {
        self.writer = writer
        self.result = result
    }
}

/// The two halves of a crash-safe group write, shared by the manifest batch and the data-dir
/// files work: `stage` transforms files into temp files in parallel and makes them durable;
/// `publish` renames them over their destinations. A caller that must record something durable
/// between the two (a journal, a database transaction) does it in between.
public enum StagedWrites {
    /// What a transform did: the byte count it reports, and a note worth telling the user about a
    /// file that was done all the same (one an earlier sxkit encrypted with its own key schedule).
    public struct Transformed: Sendable {
        public var bytes: Int64
        public var note: String?
        public init(bytes: Int64, note: String? = nil) {
            self.bytes = bytes
            self.note = note
        }
    }

    /// Thrown by a transform that finds nothing to do for its file (already in the wanted form): the
    /// item is reported skipped with `reason`, and nothing is published for it.
    public struct NothingToDo: Error {
        public var reason: String
        public init(_ reason: String) { self.reason = reason }
    }

    /// A transform writes one source into the writer.
    public typealias Transform<Job> = @Sendable (Job, AtomicFileWriter) throws -> Transformed

    /// What to do for one file: read `source`, write `destination` (created with `mode`).
    public struct Target: Sendable {
        public var source: String
        public var destination: String
        public var mode: mode_t
        public init(source: String, destination: String, mode: mode_t) {
            self.source = source
            self.destination = destination
            self.mode = mode
        }
    }

    /// Sources from this size on are written with `AtomicFileWriter.bypassPageCache`; smaller ones
    /// through the page cache, which one file-system flush per group makes durable more cheaply.
    public static let bypassPageCacheFrom: Int64 = 8 << 20

    /// Transforms every job into its temp file (parallel, at most `jobs` at once) and makes them
    /// durable: file by file when `flushEach`, else one file-system flush for the whole group
    /// (cheaper for many small files). `check` runs first, before any temp file exists: it may throw
    /// `NothingToDo` (the job is skipped) or any error (the job fails).
    public static func stage<Job: Sendable>(_ group: [Job], jobs: Int, flushEach: Bool, progress: ProgressTracker?,
                                            target: @Sendable (Job) -> Target,
                                            check: (@Sendable (Job) throws -> Void)? = nil,
                                            transform: @escaping Transform<Job>) -> [StagedWrite] {
        let staged: [StagedWrite] = ParallelWork.map(count: group.count, jobs: jobs) { i in
            let job = group[i]
            let t = target(job)
            defer { progress?.itemDone() }
            do {
                try check?(job)
                let writer = try AtomicFileWriter(destination: t.destination, mode: t.mode)
                // A big file goes around the page cache: it is written once and not read back soon,
                // and fresh page-cache pages cost a host fault each on a VM (see DirectIO).
                if let st = POSIXFile.linkStatus(t.source), Int64(st.st_size) >= bypassPageCacheFrom { writer.bypassPageCache = true }
                do {
                    let done = try transform(job, writer)
                    try writer.finishWriting(flush: flushEach)
                    return StagedWrite(writer: writer, result: BatchItemResult(source: t.source, destination: t.destination, status: .done,
                                                                               bytes: done.bytes, message: done.note))
                } catch {
                    writer.abort()
                    throw error
                }
            } catch let skip as NothingToDo {
                return StagedWrite(writer: nil, result: BatchItemResult(source: t.source, destination: t.destination, status: .skipped, bytes: 0, message: skip.reason))
            } catch {
                return StagedWrite(writer: nil, result: BatchItemResult(source: t.source, destination: t.destination, status: .failed, bytes: 0, message: ErrorCause.text(of: error)))
            }
        }
        guard !flushEach, let first = staged.first(where: { $0.writer != nil })?.writer else { return staged }
        do {
            try POSIXFile.syncFileSystem(containing: Path.parent(first.destination))
            return staged
        } catch {
            return staged.map { s in
                guard let w = s.writer else { return s }
                w.abort()
                var r = s.result
                r.status = .failed
                r.message = ErrorCause.text(of: error)
                return StagedWrite(writer: nil, result: r)
            }
        }
    }

    /// Renames at once. A rename over an existing file waits in the kernel while the replaced
    /// file is freed (on a disk mounted with `discard`, synchronously), not on the CPU: 1,000
    /// renames over old files took 3 s one by one and 0.3 s four at a time on the test machine.
    public static let renameJobs = 8

    /// Renames each staged temp file over its destination (several at once, see `renameJobs`),
    /// then flushes each folder once. `beforeEach` may veto a file (returning a reason): its temp
    /// file is discarded instead. Both hooks may run on several threads at once.
    public static func publish(_ staged: [StagedWrite], beforeEach: @escaping @Sendable (Int) -> String? = { _ in nil },
                               afterEach: @escaping @Sendable (Int) -> Void = { _ in }) -> [BatchItemResult] {
        let outcomes: [(BatchItemResult, String?)] = BlockingWork.map(count: staged.count, threads: renameJobs) { i in
            var result = staged[i].result
            guard let writer = staged[i].writer, result.status == .done else { return (result, nil) }
            if let veto = beforeEach(i) {
                writer.abort()
                result.status = .failed
                result.message = veto
                return (result, nil)
            }
            do {
                try writer.publish(flushFolder: false)
                afterEach(i)
                return (result, Path.parent(writer.destination))
            } catch {
                result.status = .failed
                result.message = ErrorCause.text(of: error)
                return (result, nil)
            }
        }
        for folder in Set(outcomes.compactMap(\.1)) { try? POSIXFile.fsyncDirectory(folder) }
        return outcomes.map(\.0)
    }
}

extension StagedWrites {
    /// Removes files several at once, then flushes each folder once. Unlinks in one folder overlap
    /// in the kernel while it frees the files' blocks (renames over existing files do not: about
    /// 0.55 ms each one by one or eight at a time, against 0.22 ms per unlink eight at a time, on
    /// the test machine's ext4 mounted with `discard`).
    public static func remove(_ paths: [String]) {
        _ = BlockingWork.map(count: paths.count, threads: renameJobs) { i in unlink(paths[i]) }
        for folder in Set(paths.map(Path.parent)) { try? POSIXFile.fsyncDirectory(folder) }
    }
}

/// Like `ParallelWork.map`, on threads of its own: for calls that block in the kernel rather than
/// use a core (GCD's concurrentPerform would run no more of them at once than there are cores).
enum BlockingWork {
    /// Shared between the threads; they all end before `map` returns.
    private final class State<T: Sendable>: Sendable {
        let results: Mutex<[T?]>
        let next = Atomic<Int>(0)
        init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }
    }

    static func map<T: Sendable>(count: Int, threads: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        let state = State<T>(count: count)
        let done = DispatchGroup()
        for _ in 0..<max(1, min(threads, count)) {
            done.enter()
            Thread.detachNewThread {
                while true {
                    let i = state.next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard i < count else { break }
                    let value = body(i)
                    state.results.withLock { $0[i] = value }
                }
                done.leave()
            }
        }
        done.wait()
        return state.results.withLock { $0.map { $0! } }
    }
}
