import Dispatch
import Synchronization
import SXCore
import SXCrypto

/// Runs the journalled groups of `files encrypt|decrypt --data-dir` one group ahead: while a group
/// is finished (keys committed, temps renamed over the files, folders flushed: mostly waits in the
/// kernel), the next group is already being transformed into its temp files on the cores.
///
/// Crash safety is the same as one group at a time: before the next group's first temp file
/// appears, the journal is rewritten to cover both groups (a record whose file was not touched
/// settles to "nothing to do"), and it is cleared only after the last group is finished. A kill
/// anywhere leaves the journal naming every file in flight, so the next run settles them and
/// removes the temp files.
final class StagedAhead {
    typealias Transform = @Sendable (ChatFilesWork.WorkItem, AtomicFileWriter, ProgressTracker?) throws -> StagedWrites.Transformed
    /// Runs before an item's temp file exists; may throw `StagedWrites.NothingToDo`.
    typealias Check = @Sendable (ChatFilesWork.WorkItem, ProgressTracker?) throws -> Void

    private let work: ChatFilesWork
    private let operation: FilesJournal.Operation
    private let crashPrefix: String
    private let transform: Transform
    private let check: Check?
    /// Commits and publishes a staged group (not clearing the journal); returns its outcomes.
    private let finish: ([ChatFilesWork.WorkItem], [StagedWrite]) throws -> [ChatFileOutcome]
    /// Run after a failed `finish`, once every temp file is gone; returns the error to throw
    /// (encrypt clears the journal when nothing of the group was committed).
    private let afterFailure: (Error) throws -> Error
    private var current: (group: [ChatFilesWork.WorkItem], records: [FilesJournal.Record], staged: [StagedWrite])?

    init(_ work: ChatFilesWork, operation: FilesJournal.Operation, crashPrefix: String, check: Check? = nil, transform: @escaping Transform,
         finish: @escaping ([ChatFilesWork.WorkItem], [StagedWrite]) throws -> [ChatFileOutcome],
         afterFailure: @escaping (Error) throws -> Error = { $0 }) {
        self.work = work
        self.operation = operation
        self.crashPrefix = crashPrefix
        self.transform = transform
        self.check = check
        self.finish = finish
        self.afterFailure = afterFailure
    }

    /// Stages `group` (behind the group before it, which is finished meanwhile); returns the
    /// outcomes of the group finished, if any.
    func submit(_ group: [ChatFilesWork.WorkItem]) throws -> [ChatFileOutcome] {
        let records = group.map {
            FilesJournal.Record(op: operation, fileIds: $0.entry.fileIds, path: $0.entry.path, args: $0.args, size: $0.fingerprint.size,
                                previous: $0.previousArgs)
        }
        guard let previous = current else {
            try work.journal.write(records)
            CrashPoint.reach(crashPrefix + ".journal-written")
            current = (group, records, work.stage(group, check: check, transform))
            CrashPoint.reach(crashPrefix + ".staged")
            return []
        }
        try work.journal.write(previous.records + records)
        CrashPoint.reach(crashPrefix + ".journal-written-ahead")
        let ahead = Background { [work, check, transform] in work.stage(group, check: check, transform) }
        let outcomes: [ChatFileOutcome]
        do {
            outcomes = try finish(previous.group, previous.staged)
        } catch {
            current = nil
            for s in ahead.wait() { s.writer?.abort() }
            throw try afterFailure(error)
        }
        CrashPoint.reach(crashPrefix + ".group-done-ahead")
        current = (group, records, ahead.wait())
        CrashPoint.reach(crashPrefix + ".staged")
        return outcomes
    }

    /// Finishes the last group and clears the journal.
    func drain() throws -> [ChatFileOutcome] {
        guard let last = current else { return [] }
        current = nil
        let outcomes: [ChatFileOutcome]
        do {
            outcomes = try finish(last.group, last.staged)
        } catch {
            throw try afterFailure(error)
        }
        try work.journal.clear()
        CrashPoint.reach(crashPrefix + ".group-done")
        return outcomes
    }
}

/// A value computed on another thread; `wait` blocks until it is there.
private final class Background<T: Sendable>: Sendable {
    private let value = Mutex<T?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () -> T) {
        DispatchQueue.global().async { [self] in
            let result = body()
            value.withLock { $0 = result }
            done.signal()
        }
    }

    func wait() -> T {
        done.wait()
        return value.withLock { $0! }
    }
}
