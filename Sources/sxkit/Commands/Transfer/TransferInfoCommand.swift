import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXTransfer

struct TransferInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what a file description holds (validated strictly); keys are not shown.",
        discussion: """
        Reads SimpleX's description YAML and its links: simplex:/file#/?desc=… (chat and device \
        migration), https://<host>/file#/?desc=…, and the xftp CLI's https://<host>/#<compressed>. A link \
        carries the file's key, so it is read from a file or from stdin (-), never from the command line. \
        --link prints the description as a link instead (simplex or web); it is a secret: hand it over privately.
        """
    )

    @Argument(help: "A sender or recipient description: a .yaml file, a file holding its link, or - for stdin.", completion: .file())
    var description: String

    @Option(help: ArgumentHelp("Print the (recipient) description as a link: simplex (simplex:/file#/?desc=…) or web (the xftp CLI's).",
                               valueName: "form"))
    var link: LinkForm?

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let (d, data) = try DescriptionArgument.load(description)
        let out = ConsoleOutput.standardOutput
        if let link {
            guard d.party == .recipient else { throw ValidationError("only a recipient description can be a link; this is the sender's") }
            let text = link == .simplex ? FileDescriptionLink.simplexLink(d, data: data) : try FileDescriptionLink.webLink(d)
            if global.json {
                out.writeLine("{\"type\":\"fileDescriptionLink\",\"form\":\"\(link.rawValue)\",\"link\":\(JSONText.quote(text))}")
            } else {
                out.writeLine(text)
            }
            return
        }
        let servers = Array(Set(d.chunks.flatMap { $0.replicas.map(\.server) })).sorted()
        if global.json {
            let sizes = d.chunks.map { String($0.size) }.joined(separator: ",")
            var fields = ["\"type\":\"fileDescription\"", "\"party\":\"\(d.party.rawValue)\"", "\"size\":\(d.size)", "\"chunkSize\":\(d.chunkSize)",
                          "\"chunks\":\(d.chunks.count)", "\"chunkSizes\":[\(sizes)]", "\"replicas\":\(d.chunks.reduce(0) { $0 + $1.replicas.count })",
                          "\"servers\":[\(servers.map { JSONText.quote($0.description) }.joined(separator: ","))]",
                          "\"digest\":\(JSONText.quote(Base64URL.encode(d.digest)))"]
            if let r = d.redirect {
                fields.append("\"redirect\":{\"size\":\(r.size),\"digest\":\(JSONText.quote(Base64URL.encode(r.digest)))}")
            }
            if let data { fields.append("\"data\":\(JSONText.quote(data))") }
            out.writeLine("{" + fields.joined(separator: ",") + "}")
            return
        }
        out.writeLine("party:      \(d.party.rawValue) (\(d.party == .sender ? "can cancel the transfer" : "can download the file"))")
        out.writeLine("size:       \(d.size) bytes encrypted (\(ByteCount.format(d.size)))")
        out.writeLine("chunks:     \(d.chunks.count)" + (d.chunks.isEmpty ? "" : " (\(Self.summary(d.chunks.map(\.size))))"))
        out.writeLine("replicas:   \(d.chunks.reduce(0) { $0 + $1.replicas.count })")
        out.writeLine("servers:    " + (servers.isEmpty ? "none" : servers.map(\.description).joined(separator: "\n            ")))
        out.writeLine("digest:     SHA-512 \(Base64URL.encode(d.digest))")
        if let r = d.redirect {
            out.writeLine("redirect:   this file is the description of another file: \(r.size) bytes encrypted (\(ByteCount.format(r.size))), "
                + "SHA-512 \(Base64URL.encode(r.digest)); `transfer receive` follows it")
        }
        if let data { out.writeLine("link data:  \(data)") }
    }

    /// "2 x 256kb, 3 x 64kb".
    static func summary(_ sizes: [Int64]) -> String {
        var runs: [(Int64, Int)] = []
        for size in sizes {
            if let last = runs.last, last.0 == size { runs[runs.count - 1].1 += 1 } else { runs.append((size, 1)) }
        }
        return runs.map { "\($0.1) x \(DescriptionSize.encode($0.0))" }.joined(separator: ", ")
    }
}
