import ArgumentParser
import Dispatch
import Foundation
import Synchronization
import SXCore
import SXTerminal
import SXXFTP
import SXXFTPServer
import SXXFTPTransport

struct RelayServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run an XFTP server (SimpleX's file relay protocol) from a store folder until SIGINT or SIGTERM.",
        discussion: """
        Any SimpleX client can use it: TLS 1.3 with ALPN xftp/1 (or http/1.1, which SimpleX's apps \
        offer for servers on the web port), HTTP/2, and SimpleX's XFTP handshake and commands. On first start it creates its identity in the store folder (ca.key, ca.crt, \
        server.key, server.crt, fingerprint: keys 0600) and keeps it; the first line on stdout is its \
        address, xftp://<fingerprint>@<host>:<port>, which senders give with --server. Chunks are \
        the four SimpleX sizes (64 KiB to 4 MiB), expire (default 48h) and are swept; every change \
        is in store.log, flushed before it is answered, so a restart (even after kill -9) serves every \
        complete chunk and no partial one. Binding to anything but loopback exposes the server to the \
        network and prints a warning.
        """
    )

    @Option(name: .long, help: "HOST:PORT to listen on (port 0: any free port).")
    var listen: String = "127.0.0.1:8443"

    @Option(name: .long, help: "Folder holding the identity, store log and chunks (created 0700).", completion: .directory)
    var store: String

    @Option(name: .customLong("public-host"), help: ArgumentHelp(
        "The host name or address clients reach the server at, written in its address and certificate (default: the --listen host).",
        valueName: "host"))
    var publicHost: String?

    @Option(name: .customLong("password-file"), help: ArgumentHelp(
        "A file (0600) holding the password senders must give to upload (basic auth: xftp://KEYHASH:PASSWORD@HOST).",
        valueName: "file"), completion: .file())
    var passwordFile: String?

    @Option(name: .customLong("web-root"), help: ArgumentHelp(
        "A folder served to browsers, such as a build of SimpleX's xftp-web page, so that web links to this server open in a browser (GET requests with SNI; index.html for / and for folders).",
        valueName: "dir"), completion: .directory)
    var webRoot: String?

    @Option(name: .customLong("web-certificate"), help: ArgumentHelp(
        "A PEM certificate chain presented to browsers (clients that send SNI) instead of the server's own, e.g. one a public CA issued for --public-host; their requests then also get CORS headers. Needs --web-key.",
        valueName: "file"), completion: .file())
    var webCertificate: String?

    @Option(name: .customLong("web-key"), help: ArgumentHelp("The PEM private key of --web-certificate (mode 0600).", valueName: "file"),
            completion: .file())
    var webKey: String?

    @Option(name: .long, help: "How long a chunk is kept: N followed by h or d (SimpleX rounds creation times to the hour).")
    var expiry: String = "48h"

    @Option(name: .customLong("max-store"), help: "Total size of the chunks held, e.g. 20G.")
    var maxStore: String = "8G"

    @Option(name: .customLong("certificate-algorithm"), help: "The identity's key type for a new store: ed448 (SimpleX's default) or ed25519.")
    var certificateAlgorithm: String = "ed448"

    @OptionGroup var global: GlobalOptions

    func validate() throws {
        _ = try parsedListen()
        if Self.hours(expiry) == nil { throw ValidationError("--expiry must be N followed by h or d, e.g. 48h") }
        if (ByteSize.parse(maxStore) ?? 0) <= 0 { throw ValidationError("--max-store must be a size such as 20G") }
        if (webCertificate == nil) != (webKey == nil) { throw ValidationError("--web-certificate and --web-key go together") }
        if SigningKey.Algorithm(rawValue: certificateAlgorithm) == nil { throw ValidationError("--certificate-algorithm must be ed448 or ed25519") }
    }

    func run() async throws {
        let (host, port) = try parsedListen()
        var configuration = XFTPServerConfiguration(storeFolder: Path.absolute(store), host: host, port: port, publicHost: publicHost,
                                                    maxStoreBytes: ByteSize.parse(maxStore)!, expirySeconds: Self.hours(expiry)! * 3600,
                                                    certificateAlgorithm: SigningKey.Algorithm(rawValue: certificateAlgorithm)!)
        if let passwordFile { configuration.password = try ServerPassword.read(passwordFile) }
        configuration.webRoot = webRoot.map { Path.absolute($0) }
        if let webCertificate, let webKey {
            configuration.webCredentials = WebCredentials(certificateChainFile: Path.absolute(webCertificate), keyFile: Path.absolute(webKey))
        }
        let server = try await XFTPServer.start(configuration)
        // Before the address is printed: whoever reads it may signal at once.
        let signals = SignalStop { Task { await server.stop() } }
        defer { signals.cancel() }
        let json = global.json, quiet = global.quiet
        let exposure = Self.isLoopback(host) ? nil
            : "listening on \(host), not loopback: anyone who can reach this address can store chunks here"
        if json {
            // The first line, so a script can read the address as soon as it appears; then the warning.
            JSONDocument.event(Listening(address: server.address.description, path: configuration.storeFolder, identityCreated: server.identityCreated))
            if let exposure { JSONDocument.warning(exposure) }
        } else {
            ConsoleOutput.standardOutput.writeLine(server.address.description)
            if let exposure { ConsoleOutput.standardError.writeLine("sxkit: warning: \(exposure)") }
            if !quiet {
                let made = server.identityCreated ? "created a new server identity" : "identity"
                ConsoleOutput.standardError.writeLine("sxkit: XFTP server on \(host):\(server.port); \(made) in \(configuration.storeFolder); stop with Ctrl-C")
            }
        }
        try await server.run()
        if !quiet && !json { ConsoleOutput.standardError.writeLine("sxkit: server stopped") }
    }

    /// The first line of the `--json` stream: the server's address and the store it serves.
    struct Listening: Encodable {
        let type = "relayListening"
        var address: String
        var path: String
        var identityCreated: Bool
    }

    private func parsedListen() throws -> (String, Int) {
        guard let colon = listen.lastIndex(of: ":"), let port = Int(listen[listen.index(after: colon)...]),
              (0...65535).contains(port), colon != listen.startIndex else {
            throw ValidationError("--listen must be HOST:PORT, e.g. 127.0.0.1:8443 ([::1]:8443 for IPv6)")
        }
        var host = String(listen[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        return (host, port)
    }

    static func isLoopback(_ host: String) -> Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    /// "48h", "2d".
    static func hours(_ text: String) -> Int64? {
        guard let unit = text.last, let value = Int64(text.dropLast()), value > 0 else { return nil }
        switch unit {
        case "h": return value
        case "d": return value * 24
        default: return nil
        }
    }
}

/// Stops on SIGINT or SIGTERM (once), instead of the process dying with the store mid-write.
///
/// The handlers are installed with sigaction before the address is printed, and only write a byte
/// to a pipe; a read source on the pipe calls `stop`. A signal that comes at once is kept in the
/// pipe until the source is registered (a dispatch signal source over SIG_IGN lost a SIGTERM sent
/// right after the address appeared, and an inherited SIG_IGN is replaced here too).
final class SignalStop: @unchecked Sendable {
    /// The pipe's write end, for the handler (set before the handlers are installed).
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    private let source: any DispatchSourceRead
    private let readEnd: Int32

    init(_ stop: @escaping @Sendable () -> Void) {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { fatalError("pipe: \(errno)") }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        Self.writeEnd = ends[1]
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in
            var byte: UInt8 = 1
            _ = write(SignalStop.writeEnd, &byte, 1)
        }
        sigemptyset(&action.sa_mask)
        action.sa_flags = SA_RESTART
        for number in [SIGINT, SIGTERM] { sigaction(number, &action, nil) }
        let readEnd = self.readEnd
        source = DispatchSource.makeReadSource(fileDescriptor: readEnd, queue: .global())
        let once = Mutex(false)
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            while read(readEnd, &bytes, bytes.count) > 0 {}
            if once.withLock({ fired in defer { fired = true }; return !fired }) { stop() }
        }
        source.resume()
    }

    func cancel() { source.cancel() }
}
