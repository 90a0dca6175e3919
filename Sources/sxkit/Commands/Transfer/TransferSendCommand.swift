import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXTransfer

struct TransferSendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Encrypt a file, upload its chunks to XFTP servers (or a folder relay) and write the sender and recipient descriptions.",
        discussion: """
        Chunks are uploaded a few at a time, over one TLS connection per server, retrying with backoff \
        while a server is unreachable. An interrupted send (killed, server gone) is resumed by running \
        the same command again: chunks already on their server are not sent again. Descriptions are written with mode 0600 as \
        <file>.sender.yaml and <file>.recipient-N.yaml; descriptions already there (an earlier send's) \
        are refused before anything is uploaded, unless --force.
        """
    )

    @Argument(help: "The file to send.", completion: .file())
    var file: String

    @OptionGroup var relays: SendRelayOptions

    @Option(name: .long, help: "How many recipient descriptions to write (each can download the file).")
    var recipients = 1

    @Flag(name: .long, help: """
        Replace descriptions an earlier send of this file left in the output folder (its other recipient \
        descriptions are removed).
        """)
    var force = false

    @Flag(name: .long, help: "Send a file above the 1 GiB soft limit, up to the 5 GiB hard limit.")
    var aboveSoftLimit = false

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp("Folder for the descriptions (default: the current folder).", valueName: "dir"), completion: .directory)
    var output: String?

    @OptionGroup var chunks: ParallelChunksOptions

    @OptionGroup var temp: TransferTempOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if recipients < 1 || recipients > 100 { throw ValidationError("--recipients must be between 1 and 100") }
    }

    func run() throws {
        let chosen = try relays.resolve()
        var options = TransferSender.Options(recipients: recipients, aboveSoftLimit: aboveSoftLimit,
                                             descriptionFolder: Path.absolute(output ?? Path.currentDirectory),
                                             tempRoot: try temp.resolve(), policy: chunks.policy)
        options.outputPolicy = OutputPolicy(replaceExisting: force)
        let sender = TransferSender(relays: chosen, options: options)
        let display = TransferEventDisplay(options: global, label: "send")
        let file = self.file
        let (result, seconds) = try timed { try waitFor { try await sender.send(file: file, events: display.handler) } }
        display.stop()
        guard !global.json, !global.quiet else { return }
        let out = ConsoleOutput.standardOutput
        let skipped = result.chunks - result.chunksUploaded
        out.writeLine("sent \(Path.basename(file)): \(ByteCount.format(result.encryptedSize)) encrypted in \(result.chunks) chunk(s) to \(chosen.map(\.address.description).joined(separator: ", ")) "
            + "in \(String(format: "%.2f", seconds)) s" + (skipped > 0 ? " (\(skipped) already there from an earlier run)" : ""))
        out.writeLine("sender description (keep it; it cancels the transfer): \(result.senderDescription)")
        for path in result.recipientDescriptions { out.writeLine("recipient description: \(path)") }
        out.writeLine("to receive: give a recipient description to the recipient, privately; they run")
        out.writeLine("  " + ShellWord.command(["sxkit", "transfer", "receive", Path.basename(result.recipientDescriptions[0])])
            + relays.receiveHint)
        out.writeLine("to cancel: " + ShellWord.command(["sxkit", "transfer", "cancel", result.senderDescription]))
    }
}
