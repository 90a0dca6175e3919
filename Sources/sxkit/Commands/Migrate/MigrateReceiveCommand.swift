import ArgumentParser
import Foundation
import SXArchive
import SXCore
import SXTerminal
import SXProfileMove
import SXXFTPClient
import SXTransfer

struct MigrateReceiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Receive a migrated profile from its recipient description and import it into a data directory.",
        discussion: """
        Every chunk's digest, the archive's digest and its tag are checked before the archive is \
        decrypted; the archive's databases must open with the passphrase given before anything in \
        the data directory is touched. The data directory must not hold a profile yet, unless \
        --force is given (the current databases are then kept as .bak). An interrupted receive or \
        import is finished by running the same command again.
        """
    )

    @Argument(help: "The recipient description written by `migrate send`: its .yaml file, a file holding its link, or - for stdin.", completion: .file())
    var description: String

    @Option(name: .long, help: ArgumentHelp("Use this folder for the description's folder relay (mounted elsewhere here).", valueName: "dir"), completion: .directory)
    var relay: String?

    @OptionGroup var proxy: ProxyOptions

    @Flag(name: .long, help: "Connect to the servers directly even when the link says its sender reaches them through Tor (a SOCKS proxy or .onion hosts).")
    var direct = false

    @Flag(name: .long, help: "Import over a profile already in the data directory (its databases are kept as .bak).")
    var force = false

    /// The old name of --force, from before one flag meant replacing everywhere.
    @Flag(name: .customLong("replace"), help: .hidden)
    var deprecatedReplace = false

    @OptionGroup var chunks: ParallelChunksOptions

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        DeprecatedFlag.note("--replace", given: deprecatedReplace, use: "--force")
        let data = dataDirectory.resolve()
        let (parsed, linkData) = try DescriptionArgument.load(description)
        let secret = try passphrase.resolve()
        var options = DeviceMigrationReceiver.Options(tempRoot: try MigrationTemp.folder(data), replaceExisting: force || deprecatedReplace,
                                                      policy: chunks.policy)
        // As the Android app asks before downloading (its "Migrate from another device" onion
        // screen): a sender that reaches its servers through Tor would not have this machine reach
        // them from its own address unasked. Only a run that downloads is refused.
        if proxy.proxy == nil, !direct, let config = linkData.flatMap(MigrationLink.networkConfig(inData:)), config.asksForTor {
            options.beforeDownloading = { throw LinkAsksForTor(proxy: config.proxyAddress) }
        }
        let receiver = DeviceMigrationReceiver(dataDirectory: data, passphrase: secret, options: options,
                                               relays: RelayFactory(override: relay, proxy: proxy.proxy).resolver)
        let decryptTracker = ProgressTracker(label: "decrypt")
        let importTracker = ProgressTracker(label: "import")
        let display = TransferEventDisplay(options: global, label: "receive", following: [decryptTracker, importTracker], afterCompletion: true)
        defer { display.stop() }  // also when the import or the receive fails
        let path = description
        let (result, seconds) = try timed {
            try waitFor {
                try await receiver.receive(parsed, path: path, decryptProgress: decryptTracker, importProgress: importTracker, events: display.handler)
            }
        }
        display.stop()
        let report = result.importReport
        if global.json {
            // The stream's last line: the events came before it, one a line.
            JSONDocument.event(Summary(fileName: result.archiveName, archiveBytes: result.archiveBytes,
                                       downloadedChunks: result.chunksDownloaded, output: data.root, alreadyImported: result.alreadyImported,
                                       importReport: report, seconds: JSONTime.seconds(seconds)))
        } else {
            for error in report.archiveErrors { ConsoleOutput.standardError.writeLine("sxkit: \(error.sentence)") }
        }
        if !global.json, !global.quiet {
            let out = ConsoleOutput.standardOutput
            if result.alreadyImported {
                out.writeLine("\(result.archiveName) (\(ByteCount.format(result.archiveBytes))) was imported into \(data.root) by an earlier run, "
                              + "and its databases are as that import left them; nothing was imported twice")
            } else {
                out.writeLine("received \(result.archiveName) (\(ByteCount.format(result.archiveBytes))); digests and tag verified")
                if let recovery = report.recovery { out.writeLine("found: \(recovery.found); recovered: \(recovery.done)") }
                if result.finishedInterruptedImport {
                    out.writeLine("the import an interrupted run had begun is complete in \(data.root); nothing was imported twice")
                } else {
                    out.writeLine("imported \(report.entries) entries (\(ByteCount.format(report.bytes))) into \(data.root) in \(String(format: "%.2f", seconds)) s")
                }
            }
            if !report.backups.isEmpty { out.writeLine("the previous databases are kept as \(report.backups.joined(separator: ", "))") }
            if !report.previousFolders.isEmpty {
                out.writeLine("the previous files and wallpapers were moved to \(report.previousFolders.joined(separator: " and "))")
            }
            if !report.archiveErrors.isEmpty { out.writeLine("\(report.archiveErrors.count) problem(s), listed above") }
        }
        if !report.archiveErrors.isEmpty { throw CommandFailure(status: ExitRule.done(withErrors: report.archiveErrors.count)) }
    }

    /// The last line of the `--json` stream, after the transfer events.
    struct Summary: Encodable {
        let type = "migrationReceived"
        /// The archive's name, as the sender named it.
        var fileName: String
        var archiveBytes: Int64
        var downloadedChunks: Int
        /// The data directory imported into.
        var output: String
        /// An earlier run had imported this migration there, and nothing has changed the databases since.
        var alreadyImported: Bool
        var importReport: ArchiveImportReport
        var seconds: Double
    }
}

/// A migration link whose sender reaches its servers through Tor, received without a proxy (exit 1).
struct LinkAsksForTor: SXError {
    let proxy: String?
    var description: String {
        // The address comes from the link: shown only when it is one (no terminal control bytes).
        let shown = proxy.flatMap { text in
            !text.isEmpty && text.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".:[]-".contains($0)) } ? text : nil
        }
        let how = proxy == nil ? ".onion hosts" : shown.map { "SOCKS proxy \($0)" } ?? "a SOCKS proxy"
        return "the link says its sender reaches the servers through Tor (" + how
            + "), and this receive would connect to them directly, from this machine's address; nothing was downloaded — "
            + "pass --socks-proxy 127.0.0.1:9050 (Tor's usual port) to receive through Tor, or --direct to connect directly anyway"
    }
}
