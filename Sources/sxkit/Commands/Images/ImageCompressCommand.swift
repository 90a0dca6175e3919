import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXImages

struct ImageCompressCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compress",
        abstract: "Compress images so each fits the inline limit (255 KiB), with the best quality that fits.",
        discussion: """
        Opaque images become progressive JPEG, images with real transparency palette PNG. Each image is \
        decoded once at a reduced size, upright (EXIF orientation applied), in sRGB, and metadata \
        (EXIF, GPS, XMP, IPTC, ICC) is removed unless --keep-metadata. Scale and quality are chosen \
        together with a handful of encodes. Inputs: JPEG, PNG, WebP, GIF (first frame; an animated GIF \
        that already fits is kept as it is), TIFF, and HEIC/HEIF/AVIF when libvips can read them \
        (see sxkit --version). Outputs are named <stem>.jpg, .png or .txt (--data-uri) below -o DIR, \
        keeping folder inputs' structure (the folder is created when missing). Existing results are \
        refused before anything is compressed unless --force; inputs are never overwritten. An image \
        is never made bigger: a JPEG or PNG already within the budget is kept as it is, its metadata \
        removed without re-encoding (the result column says kept or stripped), unless a re-encode is smaller.
        """
    )

    @Argument(help: "Image files and folders (searched recursively).", completion: .file())
    var paths: [String]

    @Option(name: [.customShort("o"), .customLong("output")], help: "Folder for the results, or - for stdout (one input only).", completion: .directory)
    var output: String

    @Option(name: .customLong("max-size"), help: ArgumentHelp("Budget per image (e.g. 255KiB, 20KiB).", valueName: "size"))
    var maxSize = ByteSizeArgument(argument: "255KiB")!

    @Option(name: .long, help: "Output format: auto (JPEG, or PNG for transparency), jpeg or png.")
    var format: ImageFormatChoice = .auto

    @Flag(name: .customLong("keep-metadata"), help: "Keep EXIF, XMP and ICC metadata (the budget still applies).")
    var keepMetadata = false

    @Flag(name: .customLong("data-uri"), help: "Write a data:image/…;base64 string; the budget applies to the whole string.")
    var dataURI = false

    @Option(name: .customLong("max-pixels"), help: "Refuse images whose header declares more pixels than this.")
    var maxPixels = ImageCompressionOptions.defaultMaxPixels

    @Flag(name: .long, help: "Replace results already in the output folder (inputs are never replaced).")
    var force = false

    @OptionGroup var jobs: JobsOption
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if output == "-" && paths.count != 1 { throw ValidationError("-o - writes one image to stdout; give exactly one input") }
        if maxSize.bytes < 1 || maxSize.bytes > Int64(Int32.max) { throw ValidationError("--max-size must be between 1 byte and 2 GiB") }
        if maxPixels < 1 { throw ValidationError("--max-pixels must be at least 1") }
    }

    var options: ImageCompressionOptions {
        ImageCompressionOptions(budget: Int(maxSize.bytes), format: format, keepMetadata: keepMetadata,
                                dataURI: dataURI, maxPixels: maxPixels)
    }

    func run() throws {
        if output == "-" {
            VipsRuntime.configure(workers: 1)
            let result = try ImageCompressor.compress(Path.absolute(paths[0]), options: options)
            try result.bytes.withUnsafeBytes { try POSIXFile.writeAll(STDOUT_FILENO, $0, path: "stdout") }
            return
        }
        let tracker = ProgressTracker(label: "compress")
        var batch = ImageBatch(options: options, jobs: jobs.jobs, progress: tracker)
        batch.outputPolicy = OutputPolicy(replaceExisting: force)
        try batch.checkOutputs(paths, into: output)
        let ticker = global.startProgress(tracker)
        let (items, seconds) = timed { batch.compress(paths, into: output) }
        ticker?.stop()
        let status = ImageTable.render(items, options: global, seconds: seconds)
        if status != .ok { throw CommandFailure(status: status) }
    }
}

extension ImageFormatChoice: ExpressibleByArgument {}

/// The before/after table, or one JSON record a line.
enum ImageTable {
    static func render(_ items: [ImageBatch.Item], options: GlobalOptions, seconds: Double) -> ExitStatus {
        let out = ConsoleOutput.standardOutput
        let done = items.compactMap(\.record)
        let failed = items.filter { $0.error != nil }
        if options.json {
            for item in items { JSONDocument.event(ImageEvent(item)) }
            var counts = ["failed": failed.count]
            for action in [ImageAction.reencoded, .stripped, .kept] { counts[result(action)] = done.filter { $0.action == action }.count }
            JSONDocument.event(Summary(counts: counts, inputBytes: done.reduce(0) { $0 + $1.inputBytes },
                                       outputBytes: Int64(done.reduce(0) { $0 + $1.outputBytes }), seconds: JSONTime.seconds(seconds)))
        } else {
            // Each error is a sentence that names its file.
            for item in failed {
                ConsoleOutput.standardError.writeLine("failed   \(item.error ?? item.source)" + (item.remedy.map { " — " + ErrorText.words($0) } ?? ""))
            }
            if !options.quiet {
                if !done.isEmpty { out.writeLine(header) }
                for item in items { if let record = item.record { out.writeLine(line(name: Path.basename(item.source), record)) } }
                var summary = "compressed \(done.count) image(s), \(ByteCount.format(done.reduce(0) { $0 + $1.inputBytes })) → "
                    + "\(ByteCount.format(Int64(done.reduce(0) { $0 + $1.outputBytes }))) in \(String(format: "%.2f", seconds)) s"
                if !failed.isEmpty { summary += "; \(failed.count) FAILED (listed above)" }
                out.writeLine(summary)
            }
        }
        return ExitRule.items(done: done.count, failed: failed.count)
    }

    static let header = cells(["image", "in", "in px", "out", "out px", "format", "quality", "encodes", "result"])

    /// The result column: a new encoding, or the input kept (as it is, or with its metadata removed losslessly).
    static func result(_ action: ImageAction) -> String {
        switch action {
        case .reencoded: "encoded"
        case .kept: "kept"
        case .stripped: "stripped"
        }
    }

    static func line(name: String, _ r: ImageCompressionRecord) -> String {
        cells([name, ByteCount.format(r.inputBytes), "\(r.inputWidth)x\(r.inputHeight)", ByteCount.format(Int64(r.outputBytes)),
               "\(r.outputWidth)x\(r.outputHeight)", r.outputFormat.rawValue, r.quality.map(String.init) ?? "-", String(r.encodes),
               result(r.action)])
    }

    private static func cells(_ values: [String]) -> String {
        let widths = [24, 10, 11, 10, 11, 6, 7, 7, 9]
        var text = values[0].count > widths[0] ? String(values[0].prefix(widths[0] - 1)) + "…" : values[0].padding(toLength: widths[0], withPad: " ", startingAt: 0)
        for (value, width) in zip(values.dropFirst(), widths.dropFirst()) { text += " " + value.leftPadded(to: width) }
        return text
    }

    /// One image's line under --json: `status` is the result column's word (`encoded`, `stripped`,
    /// `kept`) or `failed`, with `error` and `remedy`.
    struct ImageEvent: Encodable {
        let type = "image"
        var path: String
        var output: String?
        var status: String
        var error: String?
        var remedy: String?
        var inputBytes: Int64?
        var inputWidth: Int?
        var inputHeight: Int?
        var inputFormat: String?
        var outputBytes: Int?
        var outputWidth: Int?
        var outputHeight: Int?
        var outputFormat: String?
        var quality: Int?
        var encodes: Int?
        var fullSizeEncodes: Int?
        var seconds: Double?

        init(_ item: ImageBatch.Item) {
            path = item.source
            output = item.destination
            guard let r = item.record else {
                status = "failed"
                error = item.error ?? "unknown error"
                remedy = item.remedy.map(ErrorText.words)
                return
            }
            status = ImageTable.result(r.action)
            inputBytes = r.inputBytes
            inputWidth = r.inputWidth
            inputHeight = r.inputHeight
            inputFormat = r.inputFormat
            outputBytes = r.outputBytes
            outputWidth = r.outputWidth
            outputHeight = r.outputHeight
            outputFormat = r.outputFormat.rawValue
            quality = r.quality
            encodes = r.encodes
            fullSizeEncodes = r.fullSizeEncodes
            seconds = Double(r.milliseconds) / 1000
        }
    }

    /// The batch's last line under --json.
    struct Summary: Encodable {
        let type = "summary"
        let operation = "compressed"
        var counts: [String: Int]
        var inputBytes: Int64
        var outputBytes: Int64
        var seconds: Double
    }
}
