import ArgumentParser
import Foundation
import SXCore
import SXTransfer
import SXXFTPClient

/// Where a send puts its chunks: XFTP servers (given, from SXKIT_XFTP_SERVERS, the config file, or
/// SimpleX's presets) or a folder relay.
struct SendRelayOptions: ParsableArguments {
    @Option(name: .customLong("server"), help: ArgumentHelp(
        "An XFTP server, xftp://KEYHASH[:PASSWORD]@HOST[:PORT]; repeat for several (chunks are spread over them). Default: $SXKIT_XFTP_SERVERS, else the servers in ~/.config/sxkit/xftp-servers, else SimpleX's preset servers.",
        valueName: "xftp-address"))
    var servers: [String] = []

    @Option(name: .long, help: ArgumentHelp("A folder relay instead: a folder on a mounted disk or share (offline moves).", valueName: "dir"),
            completion: .directory)
    var relay: String?

    @OptionGroup var proxy: ProxyOptions

    func validate() throws {
        if !servers.isEmpty, relay != nil { throw ValidationError("give either --server or --relay, not both") }
    }

    /// The config file listing servers, one per line.
    static var configFile: String {
        let base = ProcessInfo.processInfo.environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? Path.join(ProcessInfo.processInfo.environment["HOME"] ?? "/", ".config")
        return Path.join(Path.join(base, "sxkit"), "xftp-servers")
    }

    func resolve() throws -> [any ChunkRelay] {
        try SendRelays.choose(servers: servers, folder: relay, environment: ProcessInfo.processInfo.environment["SXKIT_XFTP_SERVERS"],
                              configFile: Self.configFile, proxy: proxy.proxy)
    }

    /// What to tell the recipient to add to `receive`: the folder's place on their machine.
    var receiveHint: String { relay == nil ? "" : " --relay <where this relay folder is mounted on their machine>" }
}
