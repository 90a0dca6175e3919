import ArgumentParser
import Foundation
import SXCore
import SXTransfer

struct TransferInfoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "info",
        abstract: "Show what a file description holds (validated strictly); keys are not shown."
    )

    @Argument(help: "A sender or recipient description (.yaml).", completion: .file())
    var description: String

    @OptionGroup var global: GlobalOptions

    func run() throws {
        let d = try FileDescription.load(description)
        let relays = Array(Set(d.chunks.flatMap { $0.replicas.map(\.relay) })).sorted()
        let out = ConsoleOutput.standardOutput
        if global.json {
            let sizes = d.chunks.map { String($0.size) }.joined(separator: ",")
            out.writeLine("{\"type\":\"fileDescription\",\"party\":\"\(d.party.rawValue)\",\"size\":\(d.size),\"chunkSize\":\(d.chunkSize),"
                + "\"chunks\":\(d.chunks.count),\"chunkSizes\":[\(sizes)],\"replicas\":\(d.chunks.reduce(0) { $0 + $1.replicas.count }),"
                + "\"relays\":[\(relays.map(JSONText.quote).joined(separator: ","))],\"digest\":\(JSONText.quote(Base64URL.encode(d.digest)))}")
            return
        }
        out.writeLine("party:      \(d.party.rawValue) (\(d.party == .sender ? "can cancel the transfer" : "can download the file"))")
        out.writeLine("size:       \(d.size) bytes encrypted (\(ByteCount.format(d.size)))")
        out.writeLine("chunks:     \(d.chunks.count) (\(Self.summary(d.chunks.map(\.size))))")
        out.writeLine("relays:     \(relays.joined(separator: ", "))")
        out.writeLine("digest:     SHA-512 \(Base64URL.encode(d.digest))")
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
