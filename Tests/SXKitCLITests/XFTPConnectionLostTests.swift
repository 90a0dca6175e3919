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
    /// A relay process holding one 1 MiB chunk whose stored file is a pipe that has given 32 KiB
    /// (less than a pipe holds) and then nothing until the test closes `feeder`: its download stops
    /// in the middle of its body.
    /// Sendable unchecked: the relay process is only stopped when the value goes, on the test's thread.
    struct StalledChunk: @unchecked Sendable {
        let folder: TempFolder
        let relay: RelayProcess
        let connection: XFTPConnection
        let recipientId: [UInt8]
        let recipient: ReplicaKey
        let feeder: Int32

        init(folder: TempFolder) async throws {
            self.folder = folder
            let store = folder.file("store")
            relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", store])
            connection = try await XFTPConnection.open(try XFTPServerAddress.parse(relay.address).get())
            let size = 1 << 20
            let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 5) }
            let sender = ReplicaKey.generate()
            recipient = ReplicaKey.generate()
            let created = try await connection.create(size: UInt32(size), digest: SHA256Digest.of(bytes), senderKey: sender,
                                                      recipientKeys: [.ed25519(recipient.ed25519PublicKey!)], basicAuth: nil)
            try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
            recipientId = created.recipientIds[0]
            let stored = Path.join(Path.join(store, "files"), Base64URL.encode(created.senderId))
            #expect(unlink(stored) == 0 && mkfifo(stored, 0o600) == 0)
            feeder = open(stored, O_RDWR | O_CLOEXEC)
            #expect(feeder >= 0)
            #expect(bytes.withUnsafeBytes { write(feeder, $0.baseAddress, 32 << 10) } == 32 << 10)
        }

        /// The download over `connection` (by default the one that stored the chunk), as
        /// "unreachable: <reason>", "downloaded", another error, or "hung" after 20 s.
        func download(over other: XFTPConnection? = nil) async -> String {
            let connection = other ?? self.connection
            return await withTaskGroup(of: String.self) { group in
                group.addTask { [recipientId, recipient] in
                    do {
                        try await connection.download(recipientId: recipientId, recipientKey: recipient, into: AlignedBuffer(capacity: 4 << 20))
                        return "downloaded"
                    } catch let error as XFTPClientError {
                        if case .unreachable(_, let reason) = error { return "unreachable: \(reason)" }
                        return "\(error)"
                    } catch {
                        return "\(error)"
                    }
                }
                group.addTask {
                    try? await Task.sleep(for: .seconds(20))
                    return "hung"
                }
                let first = await group.next()!
                group.cancelAll()
                return first
            }
        }

        /// Waits until the server has taken the 32 KiB from the pipe: it has answered and is sending the body.
        func waitForTheServerToRead() async throws {
            var waiting = Int32(1)
            for _ in 0..<1000 {
                _ = ioctl(feeder, UInt(FIONREAD), &waiting)
                if waiting == 0 { break }
                try await Task.sleep(for: .milliseconds(10))
            }
            #expect(waiting == 0, "the server never read the pipe")
        }
    }

    @Test func aDownloadCutShortByTheConnectionClosingIsUnreachable() async throws {
        let stalled = try await StalledChunk(folder: try TempFolder("sxkit-xftp-lost"))
        let download = Task { await stalled.download() }
        try await stalled.waitForTheServerToRead()
        try await Task.sleep(for: .milliseconds(300))
        await stalled.connection.close()
        let outcome = await download.value
        #expect(outcome.hasPrefix("unreachable: the connection closed"), "\(outcome)")
        close(stalled.feeder)
    }

    /// A server that keeps the connection but stops sending: after the silence limit the connection
    /// is given up, and the request fails as the network failing, to be tried again.
    @Test func aServerThatFallsSilentIsGivenUp() async throws {
        let stalled = try await StalledChunk(folder: try TempFolder("sxkit-xftp-silent"))
        let watched = try await XFTPConnection.open(try XFTPServerAddress.parse(stalled.relay.address).get(), silenceLimit: .seconds(1))
        let started = ContinuousClock.now
        let outcome = await stalled.download(over: watched)
        // Named as the silence, whichever error the cut-short request saw (a failed stream, or
        // "I/O on closed channel" when the close came between its reads).
        #expect(outcome == "unreachable: the connection closed (nothing arrived from the server for 1 s)", "\(outcome)")
        #expect(ContinuousClock.now - started < .seconds(10))
        close(stalled.feeder)
    }
}
