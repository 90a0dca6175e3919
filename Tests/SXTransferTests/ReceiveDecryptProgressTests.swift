import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXTransfer

/// The decryption after a receive's download is a phase of its own, counted for a progress bar.
@Suite(.ownThreads) struct ReceiveDecryptProgressTests {
    @Test func decryptionIsCountedOnItsTracker() async throws {
        let f = try TransferFixture()
        let sent = try await f.sender(FolderRelay(root: f.relayRoot)).send(file: f.source)
        let description = try FileDescription.load(sent.recipientDescriptions[0])
        var receiver = f.receiver(FolderRelay(root: f.relayRoot))
        let decrypt = ProgressTracker(label: "decrypt")
        receiver.decryptProgress = decrypt
        #expect(decrypt.snapshot().bytesTotal == nil, "not started before the receive")
        _ = try await receiver.receive(description, path: "d")
        let s = decrypt.snapshot()
        #expect(s.bytesTotal == description.size - 16)
        #expect(s.bytesDone == s.bytesTotal)
        #expect(s.fraction == 1)
    }
}
