import Foundation
import SXCore
import Synchronization

/// Compresses many images on a bounded pool of workers, writing each result atomically below a folder.
public struct ImageBatch: Sendable {
    /// One input's outcome: the record, or why it failed.
    public struct Item: Sendable {
        public var source: String
        /// Where the result was written (nil when it failed or went to the caller).
        public var destination: String?
        public var record: ImageCompressionRecord?
        public var error: String?
        /// What the user can do about `error`, when there is one thing to say.
        public var remedy: Remedy?
    }

    public var options: ImageCompressionOptions
    /// Images in flight at once; each holds one decoded working image, which bounds memory.
    public var jobs: Int
    public var progress: ProgressTracker?
    /// Estimated bytes of images in flight at once (see `ImageCompressor.estimatedMemory`): with the
    /// process's own ≈ 60 MB, a batch stays under 300 MB peak however many jobs it runs.
    public var memoryCap: Int

    public static let defaultMemoryCap = 160_000_000

    /// Whether results may replace files already in the output folder (inputs never are).
    public var outputPolicy = OutputPolicy.refuse

    public init(options: ImageCompressionOptions, jobs: Int = ParallelWork.defaultJobs, progress: ProgressTracker? = nil,
                memoryCap: Int = defaultMemoryCap) {
        self.options = options
        self.jobs = max(1, jobs)
        self.progress = progress
        self.memoryCap = memoryCap
    }

    /// The output file name for an input's relative path: the stem plus `.jpg`, `.png`, `.gif`, or `.txt`.
    public func outputName(for relativePath: String, format: ImageFormat) -> String {
        let folder = Path.parent(relativePath)
        var stem = Path.basename(relativePath)
        if let dot = stem.lastIndex(of: "."), dot != stem.startIndex { stem = String(stem[..<dot]) }
        let name = stem + "." + (options.dataURI ? "txt" : format.fileExtension)
        return folder.isEmpty || folder == "." ? name : Path.join(folder, name)
    }

    /// The output names an input may get: its format is chosen while compressing, so with `auto`
    /// both the JPEG and the PNG name (and the GIF name for a GIF kept as it is).
    public func possibleOutputNames(for relativePath: String) -> [String] {
        if options.dataURI { return [outputName(for: relativePath, format: .jpeg)] }
        var formats: [ImageFormat]
        switch options.format {
        case .jpeg: formats = [.jpeg]
        case .png: formats = [.png]
        case .auto: formats = [.jpeg, .png]
        }
        if relativePath.lowercased().hasSuffix(".gif") { formats.append(.gif) }
        return formats.map { outputName(for: relativePath, format: $0) }
    }

    /// Checks, before anything is compressed, that `folder` is (or can become) a folder and that no
    /// result would replace an existing file unless `outputPolicy` allows it: `OutputFolderError`,
    /// `ExistingOutputError`.
    public func checkOutputs(_ paths: [String], into folder: String) throws {
        try OutputFolder.check(folder)
        let files = InputFiles.expand(paths).files
        let inputs = Set(files.map(\.path))
        let root = Path.absolute(folder)
        let outputs = files.flatMap { file in possibleOutputNames(for: file.relativePath).map { Path.join(root, $0) } }
        try outputPolicy.check(outputs.filter { !inputs.contains($0) })
    }

    /// Compresses every image found under `paths` into `folder`, keeping folder inputs' structure.
    /// Failures are collected per file; the batch goes on past them.
    public func compress(_ paths: [String], into folder: String) -> [Item] {
        let expanded = InputFiles.expand(paths)
        var items = expanded.problems.map { Item(source: $0.path, error: "'\($0.path)' \($0.reason)") }
        let files = expanded.files
        progress?.setTotals(items: files.count, bytes: files.reduce(0) { $0 + $1.size })
        let inputs = Set(files.map(\.path))
        let claimed = Mutex<Set<String>>([])
        VipsRuntime.configure(workers: min(jobs, max(1, files.count)))
        let root = Path.absolute(folder)
        let gate = MemoryGate(capacity: memoryCap)
        items += ParallelWork.map(count: files.count, jobs: jobs) { index in
            let file = files[index]
            defer {
                VipsRuntime.releaseFreedMemory()
                progress?.addBytes(file.size)
                progress?.itemDone()
            }
            do {
                let result = try ImageCompressor.compress(file.path, options: options, gate: gate)
                let destination = Path.join(root, outputName(for: file.relativePath, format: result.record.outputFormat))
                if inputs.contains(destination) {
                    return Item(source: file.path, error: "'\(file.path)': the output '\(destination)' is one of the inputs; it is not overwritten")
                }
                let isNew = claimed.withLock { $0.insert(destination).inserted }
                guard isNew else {
                    return Item(source: file.path, error: "'\(file.path)': another input already writes '\(destination)'")
                }
                // Checked before the batch too (`checkOutputs`); this catches a file that appeared since.
                try outputPolicy.check([destination])
                try OutputFolder.create(Path.parent(destination))
                try AtomicFileWriter.write(result.bytes, to: destination)
                return Item(source: file.path, destination: destination, record: result.record)
            } catch {
                return Item(source: file.path, error: ErrorCause.text(of: error), remedy: (error as? any SXError)?.remedy)
            }
        }
        return items
    }
}
