import Dispatch
import Foundation
import Synchronization
import SXCore
import SXCrypto
import SXRelayHTTP
import SXRelayServer
import SXSample
import SXTransfer

extension DemoSteps {
    /// The transfer again, through an HTTP relay this process starts on a free loopback port, as
    /// `sxkit relay serve --listen 127.0.0.1:0` would.
    func runHTTPRelayStep(_ sample: SampleDataDirectory) throws {
        step("22. The same through an HTTP relay on a free loopback port (sxkit relay serve; transfer send / receive --relay URL)")
        let server = try RelayServer(configuration: .init(store: Path.join(root, "http-relay-store")))
        let started = DispatchSemaphore(value: 0)
        let address = Mutex<String?>(nil)
        let serving = Task.detached { try await server.run { url in address.withLock { $0 = url }; started.signal() } }
        defer {
            serving.cancel()
            _ = try? waitFor { _ = try? await serving.value }
        }
        guard started.wait(timeout: .now() + 30) == .success, let url = address.withLock({ $0 }) else {
            throw DemoFailure("the HTTP relay did not start")
        }
        say("relay listening on \(url), store \(server.storePath) (0700; keys kept only as SHA-256)")
        let chosen = sample.files.filter { !$0.encrypted && $0.referenced }.max { $0.size < $1.size }!
        let source = Path.join(sample.directory.filesFolder!, chosen.name)
        let work = Path.join(root, "http-transfer")
        let inbox = Path.join(work, "inbox")
        try Folders.create(inbox)
        let (received, seconds) = try timed {
            try waitFor {
                try await HTTPChunkRelay.with(url: url) { relay in
                    let sender = TransferSender(relay: relay, options: .init(descriptionFolder: Path.join(work, "descriptions"),
                                                                             tempRoot: Path.join(work, "send")))
                    let sent = try await sender.send(file: source)
                    let receiver = TransferReceiver(options: .init(destination: inbox, tempRoot: Path.join(work, "receive")), relays: { _ in relay })
                    let path = sent.recipientDescriptions[0]
                    return try await receiver.receive(try FileDescription.load(path), path: path)
                }
            }
        }
        let same = Hex.encode(SHA256Digest.of(try FileBytes.read(received.path, limit: 256 << 20))) == chosen.sha256
        say("sent and received \(chosen.name) (\(ByteCount.format(received.fileSize))) over HTTP in \(String(format: "%.2f", seconds)) s; "
            + "SHA-256 matches the original: \(same ? "yes" : "NO")")
        guard same else { throw DemoFailure("the file received over HTTP differs from the original") }
    }
}
