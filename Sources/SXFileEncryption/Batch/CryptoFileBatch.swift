import SXCrypto
import Foundation
import Synchronization
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Where batch output goes.
public enum BatchDestination: Sendable, Equatable {
    /// Replace each file (crash-safe through the manifest journal).
    case inPlace
    /// Write below this folder, mirroring the inputs' names; inputs are left untouched.
    case folder(String)
}

/// The outcome of one file of a batch.
public struct BatchItemResult: Sendable, Equatable {
    public enum Status: String, Sendable {
        case done, skipped, failed
    }

    public var source: String
    public var destination: String?
    public var status: Status
    public var bytes: Int64
    /// Why it was skipped or failed.
    public var message: String?
}

/// What a batch did, file by file.
public struct BatchReport: Sendable {
    public var items: [BatchItemResult]
    /// Journal records of an interrupted earlier run that were settled before this one started.
    public var recoveredFromInterruptedRun: Int
    public var failed: Int { items.filter { $0.status == .failed }.count }
    public var done: Int { items.filter { $0.status == .done }.count }
    public var skipped: Int { items.filter { $0.status == .skipped }.count }
    public var bytes: Int64 { items.filter { $0.status == .done }.reduce(0) { $0 + $1.bytes } }

    public init(items: [BatchItemResult], recoveredFromInterruptedRun: Int = 0) {
        self.items = items
        self.recoveredFromInterruptedRun = recoveredFromInterruptedRun
    }
}

/// Many CryptoFiles at once, in parallel, with their keys kept in a manifest.
///
/// Work goes in groups. For each group: the keys are appended to the journal and fsync'd; the
/// files are encrypted into temp files (parallel, bounded by `jobs`); the temp files are flushed;
/// they are renamed into place; the manifest is rewritten; the journal is cleared. A kill at any
/// point leaves every file either as it was or finished with its key in the journal or manifest.
public struct CryptoFileBatch: Sendable {
    public var manifestPath: String
    public var jobs: Int
    public var progress: ProgressTracker?
    /// A group ends at this many files or bytes, whichever comes first. Bigger groups amortise the
    /// serial steps (journal fsync, renames, manifest rewrite); the bounds cap the temp files
    /// alive at once and the work a kill can leave in flight.
    public var groupFiles = 2048
    public var groupBytes: Int64 = 512 << 20
    /// Whether results under a destination folder may replace files already there (checked for
    /// the whole batch before any work: `ExistingOutputError`).
    public var outputPolicy = OutputPolicy.refuse

    public init(manifestPath: String, jobs: Int = ParallelWork.defaultJobs, progress: ProgressTracker? = nil) {
        self.manifestPath = Path.absolute(manifestPath)
        self.jobs = jobs
        self.progress = progress
    }

    private var journal: ManifestJournal { ManifestJournal(manifestPath: manifestPath) }

    /// Settles what an interrupted run left (journal), without doing anything new.
    public func recover() throws -> Int {
        let lock = try ManifestLock(manifestPath: manifestPath)
        defer { withExtendedLifetime(lock) {} }
        var manifest = try CryptoFileManifest.load(manifestPath)
        return try journal.recover(into: &manifest)
    }

    // MARK: encrypt

    public func encrypt(_ paths: [String], to destination: BatchDestination) throws -> BatchReport {
        let lock = try ManifestLock(manifestPath: manifestPath)
        defer { withExtendedLifetime(lock) {} }
        var (manifest, recovered, files, results) = try start(paths)

        var work: [Job] = []
        for f in files {
            if manifest.entry(for: f.path) != nil {
                let why = destination == .inPlace ? "already encrypted (listed in the manifest)" : "is an encrypted file listed in the manifest"
                results.append(BatchItemResult(source: f.path, status: .skipped, bytes: 0, message: why))
                continue
            }
            let target = Self.target(of: f, destination)
            if target != f.path, manifest.entry(for: target) != nil, POSIXFile.linkStatus(target) != nil {
                // Written by an earlier run into this manifest: done already (a rerun finishes a batch).
                results.append(BatchItemResult(source: f.path, destination: target, status: .skipped, bytes: 0,
                                               message: "already encrypted (listed in the manifest)"))
                continue
            }
            work.append(Job(file: f, target: target, args: .random()))
        }
        try Self.checkOutputs(work, destination, policy: outputPolicy)
        if destination == .inPlace {
            // In place, a group's encrypted copies all exist beside their originals until the group
            // is published: the largest group must fit, refused before any file is touched.
            for group in groups(work) {
                try FreeSpace.require(group.map { ($0.file.size + Int64(CryptoFile.tagLength), $0.target) }, for: "encrypting in place")
            }
        }
        progress?.setTotals(items: work.count, bytes: work.reduce(0) { $0 + $1.file.size })

        for group in groups(work) {
            try journal.append(group.map {
                ManifestJournal.Record(op: .encrypt, filePath: $0.target, cryptoArgs: Self.raw($0.args), sourceSize: $0.file.size)
            })
            let outcomes = runGroup(group, destination: destination) { job, writer in
                try CryptoFile.encrypt(file: job.file.path, to: writer, args: job.args, progress: progress)
                return StagedWrites.Transformed(bytes: job.file.size)
            }
            for (job, outcome) in zip(group, outcomes) {
                if outcome.status == .done { manifest.set(job.target, args: job.args) }
                results.append(outcome)
            }
            try manifest.save()
            try journal.clear()
        }
        return BatchReport(items: results, recoveredFromInterruptedRun: recovered)
    }

    // MARK: decrypt

    public func decrypt(_ paths: [String], to destination: BatchDestination) throws -> BatchReport {
        let lock = try ManifestLock(manifestPath: manifestPath)
        defer { withExtendedLifetime(lock) {} }
        var (manifest, recovered, files, results) = try start(paths)
        var work: [Job] = []
        for f in files {
            guard let args = manifest.args(for: f.path) else {
                results.append(BatchItemResult(source: f.path, status: .failed, bytes: 0, message: "not listed in the manifest \(manifestPath)"))
                continue
            }
            work.append(Job(file: f, target: Self.target(of: f, destination), args: args))
        }
        try Self.checkOutputs(work, destination, policy: outputPolicy)
        progress?.setTotals(items: work.count, bytes: work.reduce(0) { $0 + $1.file.size })

        for group in groups(work) {
            if destination == .inPlace {
                try journal.append(group.map {
                    ManifestJournal.Record(op: .decrypt, filePath: $0.target, cryptoArgs: Self.raw($0.args), sourceSize: $0.file.size)
                })
            }
            let outcomes = runGroup(group, destination: destination) { job, writer in
                try CryptoFile.decrypt(file: job.file.path, to: writer, args: job.args, progress: progress).transformed
            }
            if destination == .inPlace {
                for (job, outcome) in zip(group, outcomes) where outcome.status == .done { manifest.remove(job.target) }
                try manifest.save()
                try journal.clear()
            }
            results += outcomes
        }
        return BatchReport(items: results, recoveredFromInterruptedRun: recovered)
    }

    /// Decrypts one file whose arguments are given directly (no manifest involved).
    public static func decryptOne(_ path: String, args: CryptoFileArgs, to destination: BatchDestination,
                                  outputPolicy: OutputPolicy = .refuse, progress: ProgressTracker? = nil) throws -> BatchItemResult {
        let (files, problems) = InputFiles.expand([path])
        if let p = problems.first { return BatchItemResult(source: p.path, status: .failed, bytes: 0, message: p.reason) }
        guard let file = files.first, files.count == 1 else {
            throw ManifestError.oneFileExpected(path: path)
        }
        let batch = CryptoFileBatch(manifestPath: "/", jobs: 1, progress: progress)
        let job = Job(file: file, target: target(of: file, destination), args: args)
        try checkOutputs([job], destination, policy: outputPolicy)
        return batch.runGroup([job], destination: destination) { job, writer in
            try CryptoFile.decrypt(file: job.file.path, to: writer, args: job.args, progress: progress).transformed
        }[0]
    }

    // MARK: verify

    /// Checks the tags of the named files, or of every manifest entry when `paths` is empty.
    public func verify(_ paths: [String]) throws -> BatchReport {
        let manifest = try CryptoFileManifest.load(manifestPath)
        var results: [BatchItemResult] = []
        var work: [(String, CryptoFileArgs?)] = []
        if paths.isEmpty {
            work = manifest.allEntries.map { ($0.path, $0.args) }
        } else {
            let (files, problems) = InputFiles.expand(paths, skipping: [manifestPath, journal.path])
            results = problems.map { BatchItemResult(source: $0.path, status: .failed, bytes: 0, message: $0.reason) }
            work = files.map { ($0.path, manifest.args(for: $0.path)) }
        }
        progress?.setTotals(items: work.count, bytes: nil)
        let progress = self.progress
        let items = work
        results += ParallelWork.map(count: items.count, jobs: jobs) { i in
            let (path, args) = items[i]
            defer { progress?.itemDone() }
            guard let args else {
                return BatchItemResult(source: path, status: .failed, bytes: 0, message: "not listed in the manifest with a key")
            }
            return Self.verifyOne(path, args: args, progress: progress)
        }
        return BatchReport(items: results, recoveredFromInterruptedRun: 0)
    }

    public static func verifyOne(_ path: String, args: CryptoFileArgs, progress: ProgressTracker? = nil) -> BatchItemResult {
        do {
            let size = try CryptoFile.verify(file: path, args: args, progress: progress)
            return BatchItemResult(source: path, status: .done, bytes: size)
        } catch {
            return BatchItemResult(source: path, status: .failed, bytes: 0, message: ErrorCause.text(of: error))
        }
    }

    // MARK: machinery

    /// The common start of a batch (called under the manifest lock): load the manifest, settle an
    /// interrupted run, expand the inputs; problems with inputs become failed items.
    private func start(_ paths: [String]) throws -> (CryptoFileManifest, Int, [InputFiles.File], [BatchItemResult]) {
        var manifest = try CryptoFileManifest.load(manifestPath)
        let recovered = try journal.recover(into: &manifest)
        let (files, problems) = InputFiles.expand(paths, skipping: [manifestPath, journal.path])
        let results = problems.map { BatchItemResult(source: $0.path, status: .failed, bytes: 0, message: $0.reason) }
        return (manifest, recovered, files, results)
    }

    func groups(_ work: [Job]) -> [[Job]] {
        var result: [[Job]] = []
        var current: [Job] = []
        var bytes: Int64 = 0
        for job in work {
            if !current.isEmpty, current.count >= groupFiles || bytes + job.file.size > groupBytes {
                result.append(current)
                current = []
                bytes = 0
            }
            current.append(job)
            bytes += job.file.size
        }
        if !current.isEmpty { result.append(current) }
        return result
    }

    struct Job: Sendable {
        var file: InputFiles.File
        var target: String
        var args: CryptoFileArgs
    }

    static func target(of file: InputFiles.File, _ destination: BatchDestination) -> String {
        switch destination {
        case .inPlace: return file.path
        case .folder(let folder): return Path.join(Path.absolute(folder), file.relativePath)
        }
    }

    /// Into a folder: the folder must be one (or be creatable), and no result may land on an existing
    /// file unless the policy allows it. In place, the files are the inputs: nothing to check.
    static func checkOutputs(_ work: [Job], _ destination: BatchDestination, policy: OutputPolicy) throws {
        guard case .folder(let folder) = destination else { return }
        try OutputFolder.check(folder)
        try policy.check(work.map(\.target))
    }

    static func raw(_ args: CryptoFileArgs) -> CryptoFileManifest.RawArgs {
        CryptoFileManifest.RawArgs(fileKey: args.key.withUnsafeBytes { Base64URL.encode($0) }, fileNonce: Base64URL.encode(args.nonce))
    }

    /// Transforms a group into temp files in parallel, flushes them, then publishes them.
    /// In place, each temp is fsync'd before its rename (the original is about to go away); into a
    /// folder, one file-system flush covers a large group before anything is published (a small
    /// group is cheaper to fsync file by file than to flush the whole file system).
    func runGroup(_ group: [Job], destination: BatchDestination,
                  transform: @escaping StagedWrites.Transform<Job>) -> [BatchItemResult] {
        let inPlace = destination == .inPlace
        if !inPlace {
            // Folders first, once each, rather than a createDirectory call per file.
            for folder in Set(group.map { Path.parent($0.target) }) {
                try? Folders.create(folder, mode: 0o700)  // decrypted files may go in: owner-only whatever the umask
            }
        }
        let staged = StagedWrites.stage(group, jobs: jobs, flushEach: inPlace || group.count <= 16, progress: progress,
                                        target: { StagedWrites.Target(source: $0.file.path, destination: $0.target, mode: inPlace ? $0.file.mode : 0o600) },
                                        transform: transform)
        return StagedWrites.publish(staged)
    }
}
