import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXArchive
import SXDatabase
import Synchronization
import SXProfileMove
import SXTransfer

struct MigrateSendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Export the data directory as a chat archive, send it to XFTP servers, and print the link the SimpleX apps migrate from.",
        discussion: """
        The archive is written to a private work folder in the data directory's temp folder and \
        deleted once every chunk is on the relay. A send that is interrupted (killed, relay gone) \
        resumes when the same command runs again: the archive exported the first time is sent, and \
        chunks already on the relay are not sent again; --fresh exports a new archive instead. The \
        recipient description (mode 0600) is what the other machine needs: hand it over privately. \
        Sent to XFTP servers, it also prints the link the SimpleX apps' "Migrate from another device" \
        accepts (simplex:/file#/?desc=…&data=…, through a redirect when the archive is more than one \
        chunk), as text, in <archive>.link.txt (0600), and as a QR code when stdout is a terminal (or \
        with --qr). The apps import only databases with a passphrase: databases without one are \
        refused unless --allow-unencrypted.
        """
    )

    @OptionGroup var relays: SendRelayOptions

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "Folder for the sender and recipient descriptions (default: the current folder).", valueName: "dir"), completion: .directory)
    var output: String?

    @Flag(name: .long, help: "Print the link's QR code even when stdout is not a terminal.")
    var qr = false

    @Flag(name: .customLong("allow-unencrypted"), help: "Send databases that have no passphrase (the SimpleX apps will not import them).")
    var allowUnencrypted = false

    @Flag(name: .long, help: "Export a new archive even when an interrupted send left one waiting.")
    var fresh = false

    @Flag(name: .long, help: "Send an archive above the 1 GiB soft limit, up to the 5 GiB hard limit.")
    var aboveSoftLimit = false

    /// The old name of --above-soft-limit: --force only ever means replacing outputs.
    @Flag(name: .customLong("force"), help: .hidden)
    var deprecatedForce = false

    @OptionGroup var chunks: ParallelChunksOptions

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        DeprecatedFlag.note("--force", given: deprecatedForce, use: "--above-soft-limit")
        let data = try dataDirectory.resolveExisting()
        _ = try LeftoverPolicy.check(RekeyRecovery.pending(for: DatabaseSet(dataDirectory: data)), writes: true)
        // Before anything is created: a wrong or missing passphrase leaves the data directory as it was.
        let secret = try passphrase.resolve()
        let tempRoot = try MigrationTemp.folder(data)
        let sender = DeviceMigrationSender(
            dataDirectory: data, passphrase: secret, relays: try relays.resolve(),
            options: options(tempRoot: tempRoot))
        let exportTracker = ProgressTracker(label: "export")
        let exportTicker = MigrationTemp.ExportTicker(global.json ? nil : global.startProgress(exportTracker))
        let display = TransferEventDisplay(options: global, label: "send")
        let (result, seconds) = try timed {
            try waitFor {
                try await sender.send(exportProgress: exportTracker) { event in
                    exportTicker.stop()
                    display.show(event)
                }
            }
        }
        exportTicker.stop()
        display.stop()
        let archiveErrors = result.export?.archiveErrors ?? []
        if global.json {
            // The stream's last line: the events came before it, one a line.
            JSONDocument.event(Summary(archiveErrors: archiveErrors, exportedAt: JSONTime.iso8601(result.exportedAt),
                                       archiveBytes: result.archiveBytes, chunks: result.transfer.chunks,
                                       output: result.transfer.senderDescription,
                                       recipientDescriptions: result.transfer.recipientDescriptions, link: result.link, linkFile: result.linkFile,
                                       redirectSenderDescription: result.redirectSenderDescription, seconds: JSONTime.seconds(seconds)))
        } else {
            for error in archiveErrors { ConsoleOutput.standardError.writeLine("sxkit: not archived: \(error.sentence)") }
        }
        if !global.json, !global.quiet {
            let out = ConsoleOutput.standardOutput
            if let link = result.link {
                out.writeLine("link for the SimpleX app's \"Migrate from another device\" (it holds the archive's key: show it only to your other device):")
                out.writeLine(link)
                if qr || isatty(STDOUT_FILENO) == 1 { TerminalQRCode.lines(link).map { $0.forEach(out.writeLine) } }
                out.writeLine("the link is also in \(result.linkFile!) (0600)")
            }
            let exported = result.export.map { "exported \($0.entries) entries" } ?? "resumed the archive exported at \(MigrationTemp.format(result.exportedAt))"
            out.writeLine("\(exported); sent \(ByteCount.format(result.archiveBytes)) as \(result.transfer.chunks) encrypted chunk(s) "
                + "in \(String(format: "%.2f", seconds)) s")
            out.writeLine("recipient description: \(result.transfer.recipientDescriptions[0])")
            out.writeLine("sender description (keep it; `sxkit transfer cancel` deletes the chunks): \(result.transfer.senderDescription)")
            out.writeLine("on the other machine, with the same database passphrase:")
            out.writeLine("  " + ShellWord.command(["sxkit", "migrate", "receive", Path.basename(result.transfer.recipientDescriptions[0])]) + " --data-dir <new data dir>"
                + (relays.relay == nil ? "" : " --relay <where this relay folder is mounted there>"))
        }
        if !archiveErrors.isEmpty { throw CommandFailure(status: ExitRule.done(withErrors: archiveErrors.count)) }
    }

    private func options(tempRoot: String) -> DeviceMigrationSender.Options {
        var options = DeviceMigrationSender.Options(descriptionFolder: Path.absolute(output ?? Path.currentDirectory), tempRoot: tempRoot,
                                                    fresh: fresh, aboveSoftLimit: aboveSoftLimit || deprecatedForce, policy: chunks.policy)
        options.appLink = relays.relay == nil
        // Sent through a SOCKS proxy: the link tells the receiving app to reach the servers through one too.
        options.linkData = MigrationLink.data(socksProxy: relays.proxy.proxy.map { ($0.host.contains(":") ? "[\($0.host)]" : $0.host) + ":\($0.port)" })
        options.allowUnencrypted = allowUnencrypted
        return options
    }

    /// The last line of the `--json` stream, after the transfer events.
    struct Summary: Encodable {
        let type = "migrationSent"
        /// Files that could not be archived (SimpleX's `fileError`), the export completed without them.
        var archiveErrors: [ArchiveError]
        /// When the archive sent was exported (earlier, when this run resumed a send).
        var exportedAt: String
        var archiveBytes: Int64
        var chunks: Int
        /// The sender description written (keep it: it cancels the transfer).
        var output: String
        var recipientDescriptions: [String]
        /// The SimpleX apps' migration link (XFTP servers only), and the file that holds it.
        var link: String?
        var linkFile: String?
        /// Cancels the redirect the link points to, when it needed one.
        var redirectSenderDescription: String?
        var seconds: Double
    }
}

/// Shared by `migrate send` and `migrate receive`.
enum MigrationTemp {
    /// The data directory's temp folder (or --temp-dir), created 0700: the archive waits there.
    static func folder(_ data: DataDirectory) throws -> String {
        let folder = data.primaryTempFolder
        try Folders.create(folder, permissions: 0o700)
        return folder
    }

    static func format(_ date: Date) -> String {
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return format.string(from: date)
    }

    /// The export's progress bar, stopped (once) when the first transfer event arrives.
    final class ExportTicker: Sendable {
        private let ticker: Mutex<ProgressTicker?>
        init(_ ticker: ProgressTicker?) { self.ticker = Mutex(ticker) }
        func stop() {
            let current = ticker.withLock { t in defer { t = nil }; return t }
            current?.stop()
        }
    }
}
