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
        are refused before anything is uploaded, unless --force; but when they, and the links asked for, \
        are those of a send of this very file that finished in the last 24 h (the file, encrypted again \
        with their key, gives the digest they record), the send was done: nothing is sent or written. --link simplex and --link web (either or \
        both) also write each recipient description as a link, as SimpleX makes them, into \
        <file>.recipient-N.simplex-link.txt and <file>.recipient-N.web-link.txt (0600, refused and replaced \
        like the descriptions): simplex:/file#/?desc=… (through a redirect when the description is more \
        than one chunk, as the chat sends it; the redirect has its own sender description, \
        <file>.recipient-N.redirect.sender.yaml, to cancel it too) and the xftp CLI's web link \
        https://<host>/#… (XFTP servers only). A link holds the file's key: hand it over privately.
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

    @Option(name: .long, help: ArgumentHelp("""
        Also write each recipient description as a link: simplex (simplex:/file#/?desc=…, through a \
        redirect when needed) or web (the xftp CLI's https://<host>/#…); repeat for both.
        """, valueName: "form"))
    var link: [LinkForm] = []

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
        let links = SendLinks(sender: sender, kinds: link.map(\.kind))
        let display = TransferEventDisplay(options: global, label: "send")
        let file = self.file
        let ((result, made), seconds) = try timed { try waitFor { try await links.send(file: file, events: display.handler) } }
        display.stop()
        if global.json {
            // The stream's last line, after the events: the links, when they were asked for.
            if !link.isEmpty { JSONDocument.event(LinksLine(links: made.map(LinksLine.Entry.init))) }
            return
        }
        guard !global.quiet else { return }
        let out = ConsoleOutput.standardOutput
        let skipped = result.chunks - result.chunksUploaded
        // Where the chunks are, as the sender description names them: a server that could not be
        // reached had its chunks created on another.
        var servers: [String] = []
        for chunk in (try? FileDescription.load(result.senderDescription))?.chunks ?? [] {
            for replica in chunk.replicas where !servers.contains(replica.server.description) { servers.append(replica.server.description) }
        }
        if servers.isEmpty { servers = chosen.map(\.address.withoutPassword.description) }
        if result.alreadySent {
            // A rerun of a send that finished before it was killed: its descriptions are checked
            // against the file (encrypted again, same digest), and nothing is sent or written.
            out.writeLine("already sent \(Path.basename(file)): the descriptions there are of this very file (its encryption gives the digest they record), "
                + "\(ByteCount.format(result.encryptedSize)) in \(result.chunks) chunk(s) to \(servers.joined(separator: ", ")); nothing was sent or written")
        } else {
            out.writeLine("sent \(Path.basename(file)): \(ByteCount.format(result.encryptedSize)) encrypted in \(result.chunks) chunk(s) to \(servers.joined(separator: ", ")) "
                + "in \(String(format: "%.2f", seconds)) s" + (skipped > 0 ? " (\(skipped) already there from an earlier run)" : ""))
        }
        out.writeLine("sender description (keep it; it cancels the transfer): \(result.senderDescription)")
        for path in result.recipientDescriptions { out.writeLine("recipient description: \(path)") }
        // The first recipient's web link goes last, as the xftp CLI prints it.
        let xftpWebLink = made.first { $0.kind == .web && $0.recipientDescription == result.recipientDescriptions.first }
        if !made.isEmpty {
            out.writeLine("links (each holds the file's key, as its description does: hand it over privately):")
        }
        for made in made {
            let recipient = (result.recipientDescriptions.firstIndex(of: made.recipientDescription) ?? 0) + 1
            out.writeLine("\(made.kind.rawValue) link for recipient \(recipient): \(made.file)")
            if made != xftpWebLink { out.writeLine(made.link) }
            if let redirect = made.redirectSenderDescription {
                out.writeLine("  through a redirect (the description is more than one chunk); its own sender description cancels it: \(redirect)")
            }
        }
        out.writeLine("to receive: give a recipient description to the recipient, privately; they run")
        out.writeLine("  " + ShellWord.command(["sxkit", "transfer", "receive", Path.basename(result.recipientDescriptions[0])])
            + relays.receiveHint)
        out.writeLine("to cancel: " + ShellWord.command(["sxkit", "transfer", "cancel", result.senderDescription]))
        for redirect in made.compactMap(\.redirectSenderDescription) {
            out.writeLine("  and the redirect: " + ShellWord.command(["sxkit", "transfer", "cancel", redirect]))
        }
        if let xftpWebLink { out.writeLine("\nWeb link:\n" + xftpWebLink.link) }
    }

    /// `{"type":"sndFileLinks","links":[…]}`: the last line of the `--json` stream with --link.
    struct LinksLine: Encodable {
        let type = "sndFileLinks"
        var links: [Entry]

        struct Entry: Encodable {
            var recipientDescription: String
            var kind: String
            var link: String
            var file: String
            /// null when the link needed no redirect: present always, so a reader need not guess.
            var redirectSenderDescription: String?

            init(_ made: SendLinks.Link) {
                recipientDescription = made.recipientDescription
                kind = made.kind.rawValue
                link = made.link
                file = made.file
                redirectSenderDescription = made.redirectSenderDescription
            }

            private enum CodingKeys: String, CodingKey { case recipientDescription, kind, link, file, redirectSenderDescription }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(recipientDescription, forKey: .recipientDescription)
                try container.encode(kind, forKey: .kind)
                try container.encode(link, forKey: .link)
                try container.encode(file, forKey: .file)
                try container.encode(redirectSenderDescription, forKey: .redirectSenderDescription)
            }
        }
    }
}
