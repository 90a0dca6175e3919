import ArgumentParser
import SXArchive
import SXCore
import SXTerminal

/// `sxkit archive export`: a data directory into one chat archive (FORMATS §8).
struct ArchiveExportCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Write a chat archive (ZIP) of a data directory: both databases, files and wallpapers.",
        discussion: """
        The databases are checkpointed and held still while they are copied, so the archive holds one \
        consistent state of each; they keep their passphrase (the passphrase is needed only to open \
        them). Regular files at the top level of the files folder and the wallpapers are added; links \
        are never followed and subfolders are left out. Entries that cannot shrink (photos, videos, \
        CryptoFiles, encrypted databases) are stored, the rest deflated. The archive is written to a \
        temp file beside OUT and renamed into place when complete. Exit status 3 when some files could \
        not be archived (each is named), 1 when no archive was written.
        """
    )

    @Argument(help: ArgumentHelp("The archive to write (.zip), or a folder ending in / (created when missing) to write simplex-chat.<time>.zip into.", valueName: "out"), completion: .file())
    var output: String

    @OptionGroup var dataDirectory: DataDirectoryOptions

    @Flag(name: .customLong("no-compression"), help: "Store every entry without compression.")
    var noCompression = false

    @Flag(name: .long, help: "Replace OUT if it exists (atomically: the old archive stays until the new one is complete).")
    var force = false

    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    /// The `--json` document.
    struct Document: Encodable {
        /// The archive written.
        var output: String
        var archiveErrors: [ArchiveError]
        var entries: Int
        var bytes: Int64
        var archiveBytes: Int64
        var storedEntries: Int
        var deflatedEntries: Int
        var skipped: [String]
        var seconds: Double
    }

    func run() throws {
        let exporter = ChatArchiveExporter(
            dataDirectory: try dataDirectory.resolveExisting(), passphrase: try passphrase.resolve(),
            options: ChatArchiveExportOptions(compress: !noCompression, replaceExisting: force))
        let tracker = ProgressTracker(label: "export")
        // Under --json stdout carries one document, so no progress lines go there.
        let ticker = options.json ? nil : options.startProgress(tracker)
        let result = Result { try exporter.export(to: output, progress: tracker) }
        ticker?.stop()
        let report = try result.get()
        render(report)
        if !report.archiveErrors.isEmpty { throw CommandFailure(status: ExitRule.done(withErrors: report.archiveErrors.count)) }
    }

    private func render(_ r: ChatArchiveExportReport) {
        if options.json {
            try? JSONDocument.print(Document(
                output: r.archive, archiveErrors: r.archiveErrors, entries: r.entries, bytes: r.bytes, archiveBytes: r.archiveBytes,
                storedEntries: r.storedEntries, deflatedEntries: r.deflatedEntries, skipped: r.skipped,
                seconds: JSONTime.seconds(r.seconds)))
            return
        }
        let err = ConsoleOutput.standardError
        if r.removedLeftovers > 0 { err.writeLine("sxkit: removed \(r.removedLeftovers) temp file(s) of an interrupted export") }
        for error in r.archiveErrors { err.writeLine("failed   \(error.sentence)") }
        if options.verbose { for note in r.skipped { err.writeLine("skipped  \(note)") } }
        guard !options.quiet else { return }
        let ratio = r.bytes > 0 ? String(format: " (%.0f%%)", Double(r.archiveBytes) * 100 / Double(r.bytes)) : ""
        var line = "exported \(r.entries) entries, \(ByteCount.format(r.bytes)) -> \(ByteCount.format(r.archiveBytes))\(ratio)"
            + " to \(r.archive) in \(String(format: "%.2f", r.seconds)) s; \(r.deflatedEntries) deflated, \(r.storedEntries) stored"
        if !r.skipped.isEmpty { line += "; \(r.skipped.count) skipped" + (options.verbose ? "" : " (-v lists them)") }
        if !r.archiveErrors.isEmpty { line += "; \(r.archiveErrors.count) NOT ARCHIVED (listed above)" }
        ConsoleOutput.standardOutput.writeLine(line)
    }
}
