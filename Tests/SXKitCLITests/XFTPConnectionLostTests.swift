import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
import SXTransfer
import SXXFTP
import SXXFTPClient

/// A request cut short because the connection went (a server stopping; simplexmq's closes the
/// connection on a reset stream) is the network failing, which a transfer tries again on a new
/// connection: not an answer XFTP does not allow, which it would not. The server runs in a process
/// of its own (`relay serve`), since a stored chunk here becomes a pipe that its reads wait on.
@Suite(.ownThreads) struct XFTPConnectionLostTests {
    @Test func aDownloadCutShortByTheConnectionClosingIsUnreachable() async throws {
        let folder = try TempFolder("sxkit-xftp-lost")
        let store = folder.file("store")
        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", store])
        let connection = try await XFTPConnection.open(try XFTPServerAddress.parse(relay.address).get())
        let size = 1 << 20
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 5) }
        let sender = ReplicaKey.generate(), recipient = ReplicaKey.generate()
        let created = try await connection.create(size: UInt32(size), digest: SHA256Digest.of(bytes), senderKey: sender,
                                                  recipientKeys: [.ed25519(recipient.ed25519PublicKey!)], basicAuth: nil)
        try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
        // The stored chunk becomes a pipe that gives 32 KiB of it (less than a pipe holds), then nothing until the test closes
        // it: the download stops in the middle of its body.
        let stored = Path.join(Path.join(store, "files"), Base64URL.encode(created.senderId))
        #expect(unlink(stored) == 0 && mkfifo(stored, 0o600) == 0)
        let feeder = open(stored, O_RDWR | O_CLOEXEC)
        #expect(feeder >= 0)
        #expect(bytes.withUnsafeBytes { write(feeder, $0.baseAddress, 32 << 10) } == 32 << 10)
        let download = Task { () -> String in
            do {
                try await connection.download(recipientId: created.recipientIds[0], recipientKey: recipient, into: AlignedBuffer(capacity: 4 << 20))
                return "downloaded"
            } catch let error as XFTPClientError {
                if case .unreachable(_, let reason) = error { return "unreachable: \(reason)" }
                return "\(error)"
            } catch {
                return "\(error)"
            }
        }
        // Once the server has taken the 32 KiB from the pipe, it has answered and is sending the body.
        var waiting = Int32(1)
        for _ in 0..<1000 {
            _ = ioctl(feeder, UInt(FIONREAD), &waiting)
            if waiting == 0 { break }
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(waiting == 0, "the server never read the pipe")
        try await Task.sleep(for: .milliseconds(300))
        await connection.close()
        let outcome = await download.value
        #expect(outcome.hasPrefix("unreachable: the connection closed"), "\(outcome)")
        close(feeder)
    }
}
