import Foundation
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
    /// A transform writes one source into the writer and returns the byte count it reports.
    public typealias Transform<Job> = @Sendable (Job, AtomicFileWriter) throws -> Int64

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

    /// Transforms every job into its temp file (parallel, at most `jobs` at once) and makes them
    /// durable: file by file when `flushEach`, else one file-system flush for the whole group
    /// (cheaper for many small files).
    public static func stage<Job: Sendable>(_ group: [Job], jobs: Int, flushEach: Bool, progress: ProgressTracker?,
                                            target: @Sendable (Job) -> Target,
                                            transform: @escaping Transform<Job>) -> [StagedWrite] {
        let staged: [StagedWrite] = ParallelWork.map(count: group.count, jobs: jobs) { i in
            let job = group[i]
            let t = target(job)
            defer { progress?.itemDone() }
            do {
                let writer = try AtomicFileWriter(destination: t.destination, mode: t.mode)
                do {
                    let bytes = try transform(job, writer)
                    try writer.finishWriting(flush: flushEach)
                    return StagedWrite(writer: writer, result: BatchItemResult(source: t.source, destination: t.destination, status: .done, bytes: bytes))
                } catch {
                    writer.abort()
                    throw error
                }
            } catch {
                return StagedWrite(writer: nil, result: BatchItemResult(source: t.source, destination: t.destination, status: .failed, bytes: 0, message: "\(error)"))
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
                r.message = "\(error)"
                return StagedWrite(writer: nil, result: r)
            }
        }
    }

    /// Renames each staged temp file over its destination, then flushes each folder once.
    /// `beforeEach` may veto a file (returning a reason): its temp file is discarded instead.
    public static func publish(_ staged: [StagedWrite], beforeEach: (Int) -> String? = { _ in nil },
                               afterEach: (Int) -> Void = { _ in }) -> [BatchItemResult] {
        var results = staged.map(\.result)
        var folders = Set<String>()
        for (i, s) in staged.enumerated() {
            guard let writer = s.writer, results[i].status == .done else { continue }
            if let veto = beforeEach(i) {
                writer.abort()
                results[i].status = .failed
                results[i].message = veto
                continue
            }
            do {
                try writer.publish(flushFolder: false)
                folders.insert(Path.parent(writer.destination))
                afterEach(i)
            } catch {
                results[i].status = .failed
                results[i].message = "\(error)"
            }
        }
        for folder in folders { try? POSIXFile.fsyncDirectory(folder) }
        return results
    }
}
