import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXCrypto
import SXTransfer

struct TransferPlanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "plan",
        abstract: "Say how each file would be sent (inline, relay or refused) and whether it would be received without asking.",
        discussion: """
        Inline: up to MAX_IMAGE_SIZE (261120 bytes). Relay: up to MAX_FILE_SIZE_XFTP (1 GiB), or with --above-soft-limit \
        up to MAX_FILE_SIZE_XFTP_HARD (5 GiB). Images and voice messages up to 522240 bytes and videos up to \
        1047552 bytes are received automatically; other files never are. Nothing is read but the sizes.
        """
    )

    @Argument(help: "Files to plan.", completion: .file())
    var files: [String]

    @Flag(name: .long, help: "Plan relay transfers above the 1 GiB soft limit, up to the 5 GiB hard limit.")
    var aboveSoftLimit = false

    /// The old name of --above-soft-limit: --force only ever means replacing outputs.
    @Flag(name: .customLong("force"), help: .hidden)
    var deprecatedForce = false

    @OptionGroup var global: GlobalOptions

    func run() throws {
        DeprecatedFlag.note("--force", given: deprecatedForce, use: "--above-soft-limit")
        let out = ConsoleOutput.standardOutput
        var failed = 0
        var planned: [Planned] = []
        if !global.json && !global.quiet {
            out.writeLine(Self.row(["file", "size", "kind", "method", "chunks", "auto-receive", "decided by"]))
        }
        for file in files {
            do {
                let d = try TransferDecision.forFile(file, aboveSoftLimit: aboveSoftLimit || deprecatedForce)
                let header = try? TransferFileHeader(name: Path.basename(file))
                let chunks = d.method == .relay ? header.map { ChunkPlan(contentSize: d.size, header: $0).count } ?? 0 : 0
                if global.json {
                    planned.append(Planned(path: file, d, chunks: chunks))
                } else if !global.quiet {
                    let auto = d.autoReceive ? "yes" : "no"
                    let autoWhy = d.autoReceiveLimitName.map { "\($0) \(d.autoReceiveLimit!)" } ?? "other files: never"
                    out.writeLine(Self.row([Path.basename(file), ByteCount.format(d.size), d.kind.rawValue, d.method.rawValue,
                                            d.method == .relay ? String(chunks) : "-", auto,
                                            "\(d.methodLimitName) \(d.methodLimit); \(autoWhy)"]))
                }
                if d.method == .refused, !global.json { ConsoleOutput.standardError.writeLine("sxkit: \(Path.basename(file)): \(ErrorText.sentence(d.refusal!))") }
            } catch {
                failed += 1
                if global.json {
                    planned.append(Planned(path: file, error: ErrorSentence.text(for: error)))
                } else {
                    ConsoleOutput.standardError.writeLine("sxkit: " + ErrorSentence.text(for: error))
                }
            }
        }
        if global.json { try JSONDocument.print(["files": planned]) }
        let status = ExitRule.items(done: files.count - failed, failed: failed)
        if status != .ok { throw CommandFailure(status: status) }
    }

    static func row(_ cells: [String]) -> String {
        let widths = [24, 10, 6, 8, 6, 12]
        var text = ""
        for (i, cell) in cells.enumerated() {
            if i < widths.count {
                let c = cell.count > widths[i] ? String(cell.prefix(widths[i] - 1)) + "…" : cell
                text += c.padding(toLength: widths[i], withPad: " ", startingAt: 0) + " "
            } else {
                text += cell
            }
        }
        return text
    }

    /// One file of the `--json` document: how it would be sent, or `error` when it cannot be read.
    struct Planned: Encodable {
        struct Limit: Encodable {
            var name: String
            var bytes: Int64
        }
        var path: String
        var bytes: Int64?
        var kind: String?
        var method: String?
        var chunks: Int?
        var autoReceive: Bool?
        var methodLimit: Limit?
        var autoReceiveLimit: Limit?
        /// Why it cannot be sent (a refusal), or why it could not be looked at.
        var error: String?

        init(path: String, error: String) {
            self.path = path
            self.error = error
        }

        init(path: String, _ d: TransferDecision, chunks: Int) {
            self.path = path
            bytes = d.size
            kind = d.kind.rawValue
            method = d.method.rawValue
            self.chunks = chunks
            autoReceive = d.autoReceive
            methodLimit = Limit(name: d.methodLimitName, bytes: Int64(d.methodLimit))
            if let name = d.autoReceiveLimitName, let limit = d.autoReceiveLimit { autoReceiveLimit = Limit(name: name, bytes: Int64(limit)) }
            error = d.refusal?.description
        }
    }
}
