import Foundation
import Synchronization
import SXCore
import SXCrypto
import SXDatabase

/// Encrypts and decrypts the files of a data directory's files folder, keeping the chat DB's
/// `files.file_crypto_key` / `file_crypto_nonce` in step with the disk (FORMATS §2, §6).
///
/// The rule both ways: a file is never a CryptoFile on disk while the DB lacks its key. Work goes
/// in groups; for each group the keys are first written to the journal (fsync'd), then:
///  - encrypt: temp CryptoFiles (durable) → keys committed to the DB → temps renamed over the
///    plaintexts → journal removed;
///  - decrypt in place: temp plaintexts (tag checked, durable) → renamed over the CryptoFiles →
///    keys cleared in the DB → journal removed.
/// A kill anywhere leaves the journal, and the next run settles each of its files by whether the
/// journal key decrypts it (see `ChatFilesRecovery`).
public struct ChatFilesWork: Sendable {
    public var directory: DataDirectory
    public var jobs: Int
    public var progress: ProgressTracker?
    /// A group ends at this many files or bytes. Each group costs a journal write, a DB
    /// transaction and a file-system flush (which on a busy shared disk costs far more than the
    /// files themselves), so groups are as big as the manifest batch's; the bounds cap the temp
    /// files alive at once and the work a kill leaves in flight.
    public var groupFiles = 2048
    public var groupBytes: Int64 = 512 << 20
    /// Rows of the `files` table read at a time (memory stays flat however big the table is).
    public var pageRows = FilesFolderEntries.pageRows
    /// Test seam: runs with a file's path after it was transformed into its temp file and before
    /// it is checked for changes (tests modify the file here).
    public var afterTransform: (@Sendable (String) -> Void)?
    /// Takes each outcome as it happens (the CLI prints it then); the report keeps only counts.
    /// Without it the report keeps every outcome too.
    public var onOutcome: (@Sendable (ChatFileOutcome) -> Void)?

    /// The `CrashPoint` names on the way, in order (`SXKIT_CRASH_AT` kills the process there).
    /// From the second group on, a group is finished while the next one is staged (`StagedAhead`):
    /// `journal-written-ahead` (journal covers both) comes before the finishing steps and
    /// `group-done-ahead` after them; `group-done` is the last group, journal cleared.
    public static let encryptCrashPoints = ["files-encrypt.journal-written", "files-encrypt.staged", "files-encrypt.journal-written-ahead",
                                            "files-encrypt.db-committed", "files-encrypt.first-renamed", "files-encrypt.renamed",
                                            "files-encrypt.group-done-ahead", "files-encrypt.group-done"]
    public static let decryptCrashPoints = ["files-decrypt.journal-written", "files-decrypt.staged", "files-decrypt.journal-written-ahead",
                                            "files-decrypt.first-renamed", "files-decrypt.renamed", "files-decrypt.db-committed",
                                            "files-decrypt.group-done-ahead", "files-decrypt.group-done"]

    public init(directory: DataDirectory, jobs: Int = ParallelWork.defaultJobs, progress: ProgressTracker? = nil) {
        self.directory = directory
        self.jobs = jobs
        self.progress = progress
    }

    var journal: FilesJournal { FilesJournal(chatDatabase: directory.chatDatabase) }

    /// The files folder, which must exist.
    func filesFolder() throws -> String {
        let folder = directory.filesFolder ?? Path.join(directory.root, "files")
        guard let st = POSIXFile.linkStatus(folder), (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ChatFilesError.filesFolderMissing(path: folder)
        }
        return folder
    }

    /// Only settles what an interrupted run left.
    public func recover(passphrase: SecretBytes) throws -> ChatFilesReport {
        let folder = try filesFolder()
        let db = try ChatDatabaseWriter(path: directory.chatDatabase, passphrase: passphrase)
        let (settled, notes) = try ChatFilesRecovery(journal: journal, folder: folder).settle(db)
        return ChatFilesReport(operation: "recover", filesFolder: folder, recovered: settled, recoveryNotes: notes)
    }

    // MARK: encrypt

    /// Encrypts every plaintext file that the chat DB references, recording each key and nonce.
    ///
    /// Files the DB already holds a key for are checked too: one an earlier sxkit encrypted with its
    /// non-SimpleX key schedule (which the apps cannot open) is re-encrypted with SimpleX's schedule
    /// and a fresh key, through the same journal; one SimpleX's tag matches is left alone.
    public func encrypt(passphrase: SecretBytes) throws -> ChatFilesReport {
        let folder = try filesFolder()
        let db = try ChatDatabaseWriter(path: directory.chatDatabase, passphrase: passphrase)
        var report = ChatFilesReport(operation: "encrypt", filesFolder: folder)
        (report.recovered, report.recoveryNotes) = try ChatFilesRecovery(journal: journal, folder: folder).settle(db)
        // Plaintexts are encrypted and CryptoFiles read through once (their tags checked).
        let plain = try ChatFilesTable.pendingTotals(in: db.connection, encrypted: false)
        let encrypted = try ChatFilesTable.pendingTotals(in: db.connection, encrypted: true)
        progress?.setTotals(items: plain.rows + encrypted.rows, bytes: plain.bytes + encrypted.bytes)
        let journal = self.journal
        let pipeline = StagedAhead(self, operation: .encrypt, crashPrefix: "files-encrypt", check: { item, progress in
            // A CryptoFile already: read through once, before any temp file exists (almost every one
            // is SimpleX's, and the folder may not even be writable).
            guard let previous = item.previousArgs else { return }
            if (try? CryptoFile.tagMatches(file: item.source, args: previous, schedule: .simplex, progress: progress)) == true {
                throw StagedWrites.NothingToDo("already encrypted")
            }
        }, transform: { item, writer, progress in
            guard let previous = item.previousArgs else {
                return StagedWrites.Transformed(bytes: try CryptoFile.encrypt(file: item.source, to: writer, args: item.args, progress: progress))
            }
            // Not SimpleX's tag (checked above): an earlier sxkit's file, or a damaged one. The old tag
            // is checked at the end of this pass: a damaged file fails here, untouched.
            let bytes = try CryptoFile.reencrypt(file: item.source, to: writer, from: previous, to: item.args)
            return StagedWrites.Transformed(bytes: bytes, note: "re-encrypted with SimpleX's key schedule (an earlier sxkit had encrypted it with a non-SimpleX one, which the apps cannot open)")
        }, finish: { try finishEncrypt($0, $1, db: db) }, afterFailure: { error in
            // Keys not committed: nothing of the group was replaced, the journal can go. Any later
            // failure keeps it (the DB may claim keys for files left plaintext).
            guard let notCommitted = error as? KeysNotCommitted else { return error }
            try journal.clear()
            return notCommitted.cause
        })
        try run(db.connection, into: &report, plan: { entry in
            Self.plan(entry, in: folder) {
                WorkItem(entry: entry, fingerprint: $0, args: .random(), source: Path.join(folder, entry.path), previousArgs: entry.args)
            }
        }, group: { try pipeline.submit($0) }, drain: { try pipeline.drain() })
        return report
    }

    /// Commits a staged group's keys, renames its temps over the plaintexts, and takes back the keys
    /// of files that were not replaced after all. The journal (covering the group) stays.
    private func finishEncrypt(_ group: [WorkItem], _ staged: [StagedWrite], db: ChatDatabaseWriter) throws -> [ChatFileOutcome] {
        var keys: [ChatDatabaseWriter.KeyChange] = []
        for (item, s) in zip(group, staged) where s.writer != nil {
            keys += item.entry.fileIds.map { .init(fileId: $0, args: item.args, expected: item.previousArgs) }
        }
        do {
            try db.apply(keys)
        } catch {
            // Nothing was replaced: drop the temps, the DB is as it was (the journal goes once
            // the group staged ahead is dropped too).
            for s in staged { s.writer?.abort() }
            throw KeysNotCommitted(cause: error)
        }
        CrashPoint.reach("files-encrypt.db-committed")
        let results = publish(staged, group, crashPrefix: "files-encrypt")
        // Keys recorded for files that were not replaced after all (changed at the last moment,
        // or the rename failed) come out again; until then the journal covers them.
        var undo: [ChatDatabaseWriter.KeyChange] = []
        for (i, item) in group.enumerated() where staged[i].writer != nil && results[i].status != .done {
            undo += item.entry.fileIds.map { .init(fileId: $0, args: item.previousArgs, expected: item.args) }
        }
        try db.apply(undo)
        return outcomes(group, results)
    }

    // MARK: shared machinery

    /// Walks the DB's files page by page, turns each into a work item or an outcome, and runs the
    /// work a group at a time as groups fill: at most one group of work items is alive at once, and
    /// outcomes go to `onOutcome` (or the report) as they happen.
    func run(_ db: DatabaseConnection, into report: inout ChatFilesReport,
             plan: (FilesFolderEntry) -> Planned,
             group runGroup: ([WorkItem]) throws -> [ChatFileOutcome],
             drain: () throws -> [ChatFileOutcome] = { [] }) throws {
        var result = report
        defer { report = result }
        var pending: [WorkItem] = []
        var pendingBytes: Int64 = 0
        let sink = onOutcome
        func record(_ outcome: ChatFileOutcome) {
            sink?(outcome)
            result.add(outcome, keep: sink == nil)
        }
        func flush() throws {
            guard !pending.isEmpty else { return }
            let outcomes = try runGroup(pending)
            pending.removeAll(keepingCapacity: true)
            pendingBytes = 0
            for o in outcomes { record(o) }
        }
        try FilesFolderEntries.walk(db, pageRows: pageRows) { item in
            switch item {
            case .problem(let outcome):
                record(outcome)
            case .entry(let entry):
                switch plan(entry) {
                case .outcome(let outcome):
                    record(outcome)
                case .work(let work):
                    if !pending.isEmpty, pending.count >= groupFiles || pendingBytes + work.fingerprint.size > groupBytes { try flush() }
                    pending.append(work)
                    pendingBytes += work.fingerprint.size
                }
            }
        }
        try flush()
        for o in try drain() { record(o) }
    }

    /// What becomes of one entry: work, or an outcome at once.
    enum Planned {
        case work(WorkItem)
        case outcome(ChatFileOutcome)
    }

    /// Work on the entry's file when it is a regular file in the folder, else the outcome that stops it.
    static func plan(_ entry: FilesFolderEntry, in folder: String, _ work: (FileFingerprint) -> WorkItem) -> Planned {
        switch FilesFolderEntries.inspect(entry.path, in: folder) {
        case .failure(let stop): return .outcome(ChatFileOutcome(kind: stop.kind, path: entry.path, fileIds: entry.fileIds, message: stop.message))
        case .success(let fingerprint): return .work(work(fingerprint))
        }
    }

    struct WorkItem: Sendable {
        var entry: FilesFolderEntry
        var fingerprint: FileFingerprint
        var args: CryptoFileArgs
        var source: String
        /// Where the result goes: `source` in place, a named copy under -o.
        var destination: String?
        /// Encrypt: the key the DB holds for a file that is encrypted already (checked, and
        /// re-encrypted when an earlier sxkit wrote it with its own key schedule).
        var previousArgs: CryptoFileArgs?
    }

    /// Transforms each item into a temp file beside its destination; an item whose source changed
    /// meanwhile (size, inode or mtime) fails as changed and its temp file is discarded.
    func stage(_ group: [WorkItem], flushEach: Bool? = nil, check: StagedAhead.Check? = nil,
               _ transform: @escaping @Sendable (WorkItem, AtomicFileWriter, ProgressTracker?) throws -> StagedWrites.Transformed) -> [StagedWrite] {
        let hook = afterTransform
        let progress = self.progress
        return StagedWrites.stage(group, jobs: jobs, flushEach: flushEach ?? (group.count <= 16), progress: progress,
                                  target: { item in
                                      StagedWrites.Target(source: item.source, destination: item.destination ?? item.source,
                                                          mode: item.destination == nil ? item.fingerprint.mode & 0o7777 : 0o600)
                                  },
                                  check: check.map { check in { item in try check(item, progress) } },
                                  transform: { item, writer in
                                      let done = try transform(item, writer, progress)
                                      hook?(item.source)
                                      guard FileFingerprint.of(item.source) == item.fingerprint else {
                                          throw CryptoFileError.changedWhileReading(path: item.source)
                                      }
                                      return done
                                  })
    }

    /// Renames the staged temps over their sources, checking once more just before each rename
    /// that the source is still what was read.
    ///
    /// In place, each replaced file is first hard-linked to a name beside its temp file, so that
    /// the rename frees nothing (renames over existing files are serialised in the kernel while it
    /// frees the old blocks); the links are then removed several at once. They carry the temp
    /// prefix, so a kill before they are gone leaves them to the next run's recovery, which
    /// removes the temp files of every journal record (the journal still covers the group). Where
    /// hard links are not possible the rename simply replaces the file.
    func publish(_ staged: [StagedWrite], _ group: [WorkItem], crashPrefix: String) -> [BatchItemResult] {
        let renamed = RenameCount()
        let replaced = Mutex<[String]>([])
        let results = StagedWrites.publish(staged, beforeEach: { i in
            guard group[i].destination == nil else { return nil }
            guard FileFingerprint.of(group[i].source) == group[i].fingerprint else {
                return CryptoFileError.changedWhileReading(path: group[i].source).description
            }
            if let temp = staged[i].writer?.tempPath, link(group[i].source, temp + ".replaced") == 0 {
                replaced.withLock { $0.append(temp + ".replaced") }
            }
            return nil
        }, afterEach: { _ in
            if renamed.value.wrappingAdd(1, ordering: .relaxed).oldValue == 0 { CrashPoint.reach(crashPrefix + ".first-renamed") }
        })
        CrashPoint.reach(crashPrefix + ".renamed")
        StagedWrites.remove(replaced.withLock { $0 })
        return results
    }

    func outcomes(_ group: [WorkItem], _ results: [BatchItemResult]) -> [ChatFileOutcome] {
        zip(group, results).map { item, r in
            switch r.status {
            case .done:
                return ChatFileOutcome(kind: .done, path: item.entry.path, fileIds: item.entry.fileIds, destination: item.destination,
                                       bytes: r.bytes, message: r.message)
            case .skipped:
                return ChatFileOutcome(kind: .alreadyDone, path: item.entry.path, fileIds: item.entry.fileIds, message: r.message)
            default:
                let changed = r.message == CryptoFileError.changedWhileReading(path: item.source).description
                return ChatFileOutcome(kind: changed ? .changed : .failed, path: item.entry.path, fileIds: item.entry.fileIds,
                                       destination: item.destination,
                                       message: changed ? "changed while it was being worked on; left as it was, run the command again" : r.message)
            }
        }
    }
}

/// A group's keys could not be committed: nothing of it was replaced.
private struct KeysNotCommitted: Error {
    var cause: Error
}

/// How many files of a group were renamed so far (renames run on several threads).
private final class RenameCount: Sendable {
    let value = Atomic<Int>(0)
}
