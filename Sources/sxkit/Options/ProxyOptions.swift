import ArgumentParser
import SXXFTPClient

/// `--socks-proxy`: XFTP servers reached through a SOCKS5 proxy (Tor), as the SimpleX apps offer.
struct ProxyOptions: ParsableArguments {
    @Option(name: .customLong("socks-proxy"), help: ArgumentHelp(
        "Reach XFTP servers through this SOCKS5 proxy, e.g. Tor's 127.0.0.1:9050 (onion addresses are then used when a server has one). Each run authenticates with a username of its own, so that Tor gives it circuits of its own; @HOST:PORT connects without authentication.",
        valueName: "host:port"))
    var socksProxy: String?

    func validate() throws {
        if let socksProxy, SOCKSProxy(socksProxy) == nil { throw ValidationError("--socks-proxy must be HOST:PORT or @HOST:PORT (no authentication), e.g. 127.0.0.1:9050") }
    }

    var proxy: SOCKSProxy? { socksProxy.flatMap(SOCKSProxy.init) }
}
