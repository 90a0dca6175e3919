import Foundation
import Synchronization
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// A receive decrypts each chunk as soon as the chunks before it are here, while later ones still
/// download; without room for chunks and plaintext at once it decrypts afterwards. Both give the same
/// file, and neither places or leaves plaintext when a check fails.
@Suite(.ownThreads) struct ReceiveInOrderDecryptionTests {
    func sendOne(_ f: TransferFixture) async throws -> FileDescription {
        let sent = try await f.sender(FolderRelay(root: f.relayRoot), recipients: 2).send(file: f.source)
        return try FileDescription.load(sent.recipientDescriptions[0])
    }

    @Test("decrypting while downloading and decrypting afterwards give the sent bytes; both clear their work folder")
    func bothModesGiveTheFile() async throws {
        let f = try TransferFixture(size: 2_600_000)
        let description = try await sendOne(f)
        #expect(description.chunks.count > 1)
        for inOrder in [true, false] {
            var receiver = f.receiver(FolderRelay(root: f.relayRoot), destination: f.temp.file("inbox/\(inOrder).pdf"))
            var options = receiver.options
            options.decryptWhileDownloading = inOrder
            receiver = TransferReceiver(options: options, relays: receiver.relays)
            let decrypt = ProgressTracker(label: "decrypt")
            receiver.decryptProgress = decrypt
            let got = try await receiver.receive(description, path: "d")
            #expect(try f.temp.read("inbox/\(inOrder).pdf") == f.content)
            #expect(got.fileName == "report.pdf")
            #expect(decrypt.snapshot().bytesDone == description.size - 16, "the decryption is counted in both modes")
            #expect(!FileManager.default.fileExists(atPath: receiver.workFolder(for: description)))
        }
    }

    @Test("the first chunk is decrypted while the last is still downloading")
    func decryptionOverlapsTheDownload() async throws {
        let f = try TransferFixture(size: 2_600_000)
        let description = try await sendOne(f)
        let last = description.chunks.last!.replicas[0].replica.id
        let decrypt = ProgressTracker(label: "decrypt")
        let gated = LastChunkGate(FolderRelay(root: f.relayRoot), lastId: last) { decrypt.snapshot().bytesDone > 0 }
        var receiver = f.receiver(gated)
        receiver.decryptProgress = decrypt
        _ = try await receiver.receive(description, path: "d")
        let sawDecryptionFirst = gated.sawDecryptionFirst.load(ordering: .relaxed)
        #expect(sawDecryptionFirst, "the last download waited for decrypted bytes")
        #expect(try f.temp.read("inbox/report.pdf") == f.content)
    }

    @Test("a wrong key passes every digest and fails the tag: nothing placed, no temp file left")
    func wrongKeyFailsTheTag() async throws {
        let f = try TransferFixture(size: 600_000)
        var description = try await sendOne(f)
        description.key[5] ^= 0x40
        await #expect(throws: TransferFileError.invalidAuthTag(path: "d")) {
            try await f.receiver(FolderRelay(root: f.relayRoot)).receive(description, path: "d")
        }
        #expect(try f.inbox().isEmpty, "not even a .sxkit-tmp file")
    }

    @Test("a file digest that does not match stops the in-order decryption's output too")
    func digestMismatchLeavesNothing() async throws {
        let f = try TransferFixture(size: 600_000)
        var description = try await sendOne(f)
        description.digest[10] ^= 1
        await #expect(throws: TransferError.fileDigestMismatch(path: "d")) {
            try await f.receiver(FolderRelay(root: f.relayRoot)).receive(description, path: "d")
        }
        #expect(try f.inbox().isEmpty)
    }

    @Test("room for the plaintext and the chunks is required to decrypt while downloading")
    func roomCheck() throws {
        let f = try TransferFixture(size: 10)
        let receiver = f.receiver(FolderRelay(root: f.relayRoot))
        let free = try FreeSpace.availableBytes(at: f.temp.file("inbox"))
        #expect(free > 0)
        #expect(receiver.hasRoom(plaintext: 1 << 20, chunks: 1 << 20, destination: f.temp.file("inbox"), work: f.temp.file("recv-tmp")))
        #expect(!receiver.hasRoom(plaintext: free / 2 + 1, chunks: free / 2 + 1, destination: f.temp.file("inbox"), work: f.temp.file("recv-tmp")),
                "the same file system must hold both")
        #expect(!receiver.hasRoom(plaintext: free, chunks: 0, destination: f.temp.file("inbox"), work: f.temp.file("recv-tmp")), "64 MiB to spare")
        #expect(!receiver.hasRoom(plaintext: .max, chunks: .max, destination: f.temp.file("inbox"), work: f.temp.file("recv-tmp")), "no overflow trap")
        #expect(!receiver.hasRoom(plaintext: 1, chunks: 1, destination: f.temp.file("missing"), work: f.temp.file("recv-tmp")), "unknown is no")
    }
}

/// Holds the download of the chunk with replica id `lastId` until `ready` says so (at most 10 s).
final class LastChunkGate: PassThroughRelay {
    let inner: any ChunkRelay
    let lastId: [UInt8]
    let ready: @Sendable () -> Bool
    let sawDecryptionFirst = Atomic<Bool>(false)

    init(_ inner: any ChunkRelay, lastId: [UInt8], ready: @escaping @Sendable () -> Bool) {
        self.inner = inner
        self.lastId = lastId
        self.ready = ready
    }

    func download(_ recipient: ChunkReplica, into buffer: AlignedBuffer) async throws {
        if recipient.id == lastId {
            for _ in 0..<1000 where !ready() { try await Task.sleep(for: .milliseconds(10)) }
            sawDecryptionFirst.store(ready(), ordering: .relaxed)
        }
        try await inner.download(recipient, into: buffer)
    }
}
