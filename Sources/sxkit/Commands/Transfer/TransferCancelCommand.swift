import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXXFTPClient
import SXTransfer

struct TransferCancelCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract: "Delete a sent file's chunks from its relay; recipients then get \"not found\".",
        discussion: "Needs the sender description (the one `transfer send` says to keep)."
    )

    @Argument(help: "The sender description (.yaml).", completion: .file())
    var description: String

    @Option(name: .long, help: ArgumentHelp("Use this folder for the description's folder relay (mounted elsewhere here).", valueName: "dir"), completion: .directory)
    var relay: String?

    @OptionGroup var proxy: ProxyOptions

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let path = description
        let (parsed, _) = try DescriptionArgument.load(path)
        let relays = RelayFactory(override: relay, proxy: proxy.proxy).resolver
        let deleted = try waitFor { try await TransferSender.cancel(parsed, path: path, relays: relays) }
        if global.json {
            ConsoleOutput.standardOutput.writeLine("{\"type\":\"sndFileCancelled\",\"deletedReplicas\":\(deleted)}")
        } else if !global.quiet {
            ConsoleOutput.standardOutput.writeLine("cancelled: deleted \(deleted) chunk replica(s); recipients now get \"not found\"")
        }
    }
}
