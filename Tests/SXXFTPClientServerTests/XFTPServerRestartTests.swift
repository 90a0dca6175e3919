import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
import SXTransfer
import SXXFTPClient
import SXXFTPServer

/// What a restarted server knows: every chunk whose upload it acknowledged, nothing partial, the same
/// identity; what a crash left in its folder (a half-written chunk, a torn log line) is cleaned away.
@Suite(.ownThreads) struct XFTPServerRestartTests {
    @Test func aRestartServesAcknowledgedChunksAndNothingPartial() async throws {
        let folder = try TempFolder()
        let bytes = (0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        var first = try await XFTPTestServer(folder: folder)
        let address = first.address
        var relay = XFTPChunkRelay(server: address)
        let uploaded = try await relay.createWithFreshKeys(size: Int64(bytes.count), digest: SHA256Digest.of(bytes), recipients: 2)
        try await relay.upload(uploaded.sender, bytes: bytes)
        let pending = try await relay.createWithFreshKeys(size: Int64(bytes.count), digest: SHA256Digest.of(bytes))
        await first.stop()

        // What a kill in the middle of an upload and of a log append leaves behind.
        let files = folder.file("store/files")
        let partial = try folder.write("store/files/" + AtomicFileWriter.tempPrefix + "partial.AbCdEf", Array(bytes.prefix(1000)))
        let stray = try folder.write("store/files/" + Base64URL.encode(pending.sender.id), Array(bytes.prefix(2000)))
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("store/store.log")))
        try log.seekToEnd()
        try log.write(contentsOf: Data("FDEL ".utf8) + Data(Base64URL.encode(uploaded.sender.id).utf8.prefix(5)))
        try log.close()

        first = try await XFTPTestServer(folder: folder)
        #expect(first.address.keyHash == address.keyHash)
        relay = XFTPChunkRelay(server: first.address)
        let buffer = AlignedBuffer(capacity: 4 << 20)
        for recipient in uploaded.recipients {
            try await relay.download(recipient, into: buffer)
            #expect(Array(buffer.bytes) == bytes)
        }
        // Created but never uploaded: not served (the stray file was not its upload), and uploadable now.
        await #expect(throws: RelayError.self) { try await relay.download(pending.recipients[0], into: buffer) }
        #expect(!FileManager.default.fileExists(atPath: partial))
        #expect(!FileManager.default.fileExists(atPath: stray))
        try await relay.upload(pending.sender, bytes: bytes)
        try await relay.download(pending.recipients[0], into: buffer)
        #expect(Array(buffer.bytes) == bytes)
        #expect(try Folders.names(in: files).count == 2)
        // The log was compacted: one FNEW, FADD, FPUT per chunk, and the torn line is gone.
        let lines = String(decoding: try folder.read("store/store.log"), as: UTF8.self).split(separator: "\n")
        #expect(lines.filter { $0.hasPrefix("FNEW ") }.count == 2)
        #expect(lines.filter { $0.hasPrefix("FPUT ") }.count == 2)
        #expect(!lines.contains { $0.hasPrefix("FDEL ") })
        await first.stop()
    }

    /// An uploaded chunk is stored around the page cache (O_DIRECT): a chunk is read back once, by a
    /// download, if ever, and a page-cache page is a fresh page on a VM (README "relay serve").
    @Test func aStoredChunkTakesNoPageCache() async throws {
        let folder = try TempFolder("sxkit-xftp-store", in: "/var/tmp")  // a disk file system, where O_DIRECT holds
        let server = try await XFTPTestServer(folder: folder)
        let relay = XFTPChunkRelay(server: server.address)
        let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }
        let chunk = try await relay.createWithFreshKeys(size: Int64(bytes.count), digest: SHA256Digest.of(bytes))
        try await relay.upload(chunk.sender, bytes: bytes)
        let stored = folder.file("store/files/" + Base64URL.encode(chunk.sender.id))
        #expect(try PageCache.residentPages(stored) == 0)  // before reading it, which would bring it in
        #expect(try FileBytes.read(stored, limit: 4 << 20) == bytes)
        let buffer = AlignedBuffer(capacity: 4 << 20)
        try await relay.download(chunk.recipients[0], into: buffer)
        #expect(Array(buffer.bytes) == bytes)
        await server.stop()
    }

    @Test func aCorruptStoredChunkIsRefusedByItsDigest() async throws {
        let folder = try TempFolder()
        let server = try await XFTPTestServer(folder: folder)
        let relay = XFTPChunkRelay(server: server.address)
        let source = try folder.write("photo.jpg", (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 5) })
        let sent = try await TransferSender(relay: relay, options: .init(descriptionFolder: folder.file("desc"), tempRoot: folder.file("send")))
            .send(file: source)
        // A bit flipped on the server's disk: the download still decrypts (the server encrypts what it
        // has), and the chunk's SHA-256 from the description is what catches it.
        for name in try Folders.names(in: folder.file("store/files")) {
            let stored = folder.file("store/files/" + name)
            var onDisk = try FileBytes.read(stored, limit: 4 << 20)
            onDisk[1234] ^= 0x40
            try AtomicFileWriter.write(onDisk, to: stored, mode: 0o600)
        }
        let receiver = TransferReceiver(options: .init(destination: folder.file("inbox"), tempRoot: folder.file("receive")),
                                        relays: RelayFactory(override: nil).resolver)
        let description = try FileDescription.load(sent.recipientDescriptions[0])
        await #expect(throws: TransferError.self) { _ = try await receiver.receive(description, path: sent.recipientDescriptions[0]) }
        do {
            _ = try await receiver.receive(description, path: sent.recipientDescriptions[0])
        } catch let error as TransferError {
            guard case .chunkDigestMismatch = error else { Issue.record("\(error)"); return }
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("inbox/photo.jpg")))
        await server.stop()
    }
}
