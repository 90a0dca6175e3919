import Foundation
import SXCore
import SXCrypto
import SXSample
import SXTransfer
import SXXFTPClient
import SXXFTPServer

extension DemoSteps {
    /// The transfer again, through an XFTP server this process starts on a free loopback port, as
    /// `sxkit relay serve --listen 127.0.0.1:0` would: TLS 1.3, HTTP/2 and SimpleX's XFTP commands.
    func runXFTPRelayStep(_ sample: SampleDataDirectory) throws {
        step("22. The same through an XFTP server on a free loopback port (sxkit relay serve; transfer send --server xftp://…)")
        let store = Path.join(root, "xftp-server")
        let chosen = sample.files.filter { !$0.encrypted && $0.referenced }.max { $0.size < $1.size }!
        let source = Path.join(sample.directory.filesFolder!, chosen.name)
        let work = Path.join(root, "xftp-transfer")
        let inbox = Path.join(work, "inbox")
        try Folders.create(inbox)
        let (outcome, seconds) = try timed {
            try waitFor { () -> (TransferReceiver.Result, String) in
                let server = try await XFTPServer.start(XFTPServerConfiguration(storeFolder: store, port: 0))
                let serving = Task { try await server.run() }
                defer { serving.cancel() }
                let relay = XFTPChunkRelay(server: server.address)
                let sender = TransferSender(relay: relay, options: .init(descriptionFolder: Path.join(work, "descriptions"),
                                                                         tempRoot: Path.join(work, "send")))
                let sent = try await sender.send(file: source)
                let receiver = TransferReceiver(options: .init(destination: inbox, tempRoot: Path.join(work, "receive")),
                                                relays: RelayFactory(override: nil).resolver)
                let path = sent.recipientDescriptions[0]
                let received = try await receiver.receive(try FileDescription.load(path), path: path)
                await server.stop()
                _ = await serving.result
                return (received, server.address.description)
            }
        }
        let (received, address) = outcome
        say("server address \(address) (its identity and certificates in \(store))")
        let same = Hex.encode(SHA256Digest.of(try FileBytes.read(received.path, limit: 256 << 20))) == chosen.sha256
        say("sent and received \(chosen.name) (\(ByteCount.format(received.fileSize))) over XFTP in \(String(format: "%.2f", seconds)) s; "
            + "SHA-256 matches the original: \(same ? "yes" : "NO")")
        guard same else { throw DemoFailure("the file received over XFTP differs from the original") }
    }
}
