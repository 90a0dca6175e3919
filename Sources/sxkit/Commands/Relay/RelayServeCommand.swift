import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXRelayServer
import SXTransfer

struct RelayServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Serve an HTTP chunk relay from a store folder until SIGINT or SIGTERM.",
        discussion: """
        The relay holds chunks that are already encrypted by their sender, each under random ids: \
        a sender key (upload, delete) and recipient keys (download) are checked in constant time; \
        only their SHA-256 is stored. Chunks are limited to 4 MiB, expire (default 48h) and are \
        swept periodically; there is no listing. The first line on stdout is the address, e.g. \
        "listening on http://127.0.0.1:43117" (port 0 picks a free port). Binding to anything but \
        loopback exposes the relay to the network and prints a warning.
        """
    )

    @Option(name: .long, help: "HOST:PORT to listen on (port 0: any free port).")
    var listen: String

    @Option(name: .long, help: "Folder holding the chunks (created 0700).", completion: .directory)
    var store: String

    @Option(name: .long, help: "How long a chunk is kept: N followed by s, m, h or d.")
    var expiry: String = "48h"

    @Option(name: .customLong("max-store"), help: "Total size of the chunks held, e.g. 20G.")
    var maxStore: String = "8G"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        _ = try parsedListen()
        if Self.duration(expiry) == nil { throw ValidationError("--expiry must be N followed by s, m, h or d, e.g. 48h") }
        if (ByteSize.parse(maxStore) ?? 0) <= 0 { throw ValidationError("--max-store must be a size such as 20G") }
    }

    func run() async throws {
        let (host, port) = try parsedListen()
        let configuration = RelayServerConfiguration(
            host: host, port: port, store: store, expiry: Self.duration(expiry)!, maxStoreSize: ByteSize.parse(maxStore)!)
        let server = try RelayServer(configuration: configuration)
        let json = global.json, quiet = global.quiet
        let exposure = configuration.isLoopback ? nil
            : "listening on \(host), not loopback: anyone who can reach this address can store chunks here"
        if let exposure, !json { ConsoleOutput.standardError.writeLine("sxkit: warning: \(exposure)") }
        try await server.run(stopOnSignals: true) { url in
            if json {
                // The first line, so a script can read the address as soon as it appears; then the warning.
                JSONDocument.event(Listening(url: url, path: server.storePath))
                if let exposure { JSONDocument.warning(exposure) }
            } else {
                ConsoleOutput.standardOutput.writeLine("listening on \(url)")
            }
            if !quiet && !json { ConsoleOutput.standardError.writeLine("sxkit: serving chunks from \(server.storePath); stop with Ctrl-C") }
        }
        if !quiet && !json { ConsoleOutput.standardError.writeLine("sxkit: relay stopped") }
    }

    /// The first line of the `--json` stream: where the relay listens and the store it serves.
    struct Listening: Encodable {
        let type = "relayListening"
        var url: String
        var path: String
    }

    private func parsedListen() throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port), colon != listen.startIndex else {
            throw ValidationError("--listen must be HOST:PORT, e.g. 127.0.0.1:8040 ([::1]:8040 for IPv6)")
        }
        return (String(listen[..<colon]), port)
    }

    /// "48h", "30m", "90s", "2d".
    static func duration(_ text: String) -> Duration? {
        guard let unit = text.last, let value = Int64(text.dropLast()), value > 0 else { return nil }
        switch unit {
        case "s": return .seconds(value)
        case "m": return .seconds(value * 60)
        case "h": return .seconds(value * 3600)
        case "d": return .seconds(value * 86400)
        default: return nil
        }
    }
}
