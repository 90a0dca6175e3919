import Foundation
import Testing
import SXCore
import SXTestSupport
import SXTransfer
import SXXFTPClient

/// Whole transfers through sxkit's XFTP server, as `transfer send` / `receive` run them.
@Suite(.ownThreads) struct XFTPTransferTests {
    @Test func aReceivedFileIsAcknowledgedForItsRecipientOnly() async throws {
        let folder = try TempFolder()
        let server = try await XFTPTestServer(folder: folder)
        let relay = XFTPChunkRelay(server: server.address)
        let source = try folder.write("notes.txt", (0..<1_500_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let sent = try await TransferSender(relay: relay, options: .init(recipients: 2, descriptionFolder: folder.file("desc"), tempRoot: folder.file("send")))
            .send(file: source)
        let receiver = TransferReceiver(options: .init(destination: folder.file("inbox/"), tempRoot: folder.file("receive")),
                                        relays: RelayFactory(override: nil).resolver)
        let first = try FileDescription.load(sent.recipientDescriptions[0])
        let received = try await receiver.receive(first, path: sent.recipientDescriptions[0])
        #expect(try FileBytes.read(received.path, limit: 4 << 20) == FileBytes.read(source, limit: 4 << 20))
        // FACK after the file was verified: this recipient's ids are gone, the other's are not.
        let buffer = AlignedBuffer(capacity: 4 << 20)
        await #expect(throws: RelayError.accessRefused(relay: "127.0.0.1:\(server.server.port)", id: first.chunks[0].replicas[0].replica.idText)) {
            try await relay.download(first.chunks[0].replicas[0].replica, into: buffer)
        }
        let second = try FileDescription.load(sent.recipientDescriptions[1])
        try await relay.download(second.chunks[0].replicas[0].replica, into: buffer)
        await server.stop()
    }
}
