import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXXFTPClient
import SXTransfer

struct TransferReceiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "receive",
        abstract: "Download a file from its recipient description, verify it and decrypt it.",
        discussion: """
        Every chunk's SHA-256 and the whole file's SHA-512 are checked before anything is decrypted, and \
        the decrypted file appears at its destination only once its tag checked: never partial, never \
        unverified, never over an existing file unless --force. The file is created mode 0600 (it is \
        plaintext). An interrupted receive is resumed by running it again.
        """
    )

    @Argument(help: "The recipient description: a .yaml file, a file holding its link, or - to read either from stdin.", completion: .file())
    var description: String

    @Option(name: [.customShort("o"), .customLong("output")], help: ArgumentHelp(
        "A folder (the sender's file name is kept; a path ending in / is a folder, created when missing) or a new file's path (default: the current folder).",
        valueName: "path"), completion: .file())
    var output: String?

    @Flag(name: .long, help: "Replace an existing file of the same name (atomically, once the received file is verified).")
    var force = false

    @Option(name: .long, help: ArgumentHelp("Use this folder for the description's folder relay (mounted elsewhere here).", valueName: "dir"), completion: .directory)
    var relay: String?

    @OptionGroup var proxy: ProxyOptions

    @OptionGroup var chunks: ParallelChunksOptions

    @OptionGroup var temp: TransferTempOptions
    @OptionGroup var global: GlobalOptions

    func run() throws {
        let path = description
        let (parsed, _) = try DescriptionArgument.load(path)
        let decrypt = ProgressTracker(label: "decrypt")
        var options = TransferReceiver.Options(destination: output, tempRoot: try temp.resolve(), policy: chunks.policy)
        options.outputPolicy = OutputPolicy(replaceExisting: force)
        var setUp = TransferReceiver(options: options, relays: RelayFactory(override: relay, proxy: proxy.proxy).resolver)
        setUp.decryptProgress = decrypt
        let receiver = setUp
        let display = TransferEventDisplay(options: global, label: "receive", following: [decrypt])
        defer { display.stop() }  // also when the import or the receive fails
        let (result, seconds): (TransferReceiver.Result, Double)
        do {
            (result, seconds) = try timed { try waitFor { try await receiver.receive(parsed, path: path, events: display.handler) } }
        } catch {
            display.stop()
            // A relay that stopped answering: the chunks already here wait for the rerun. (Other
            // failures, a full disk first, are the one sentence of their own error.)
            if error is RelayError { ReceiveResumeNote.write(receiver, parsed) }
            throw error
        }
        display.stop()
        guard !global.json, !global.quiet else { return }
        if result.alreadyPresent {
            ConsoleOutput.standardOutput.writeLine("\(result.path) already holds \(result.fileName), byte for byte (digests and tag verified); nothing was written")
            return
        }
        ConsoleOutput.standardOutput.writeLine("received \(result.fileName) (\(ByteCount.format(result.fileSize))) in \(String(format: "%.2f", seconds)) s; "
            + "chunk and file digests and the tag verified: \(result.path)")
    }
}
