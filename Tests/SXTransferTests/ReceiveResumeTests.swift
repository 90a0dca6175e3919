import Foundation
import Synchronization
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// A receive that decrypts while downloading keeps only the first chunk on disk; an interrupted one
/// resumes from the plaintext it had written, which the rerun checks chunk by chunk against the
/// description's digests before keeping any of it (KeptPlaintext).
@Suite(.ownThreads) struct ReceiveResumeTests {
    /// 2.79 MB: chunks of 1 MiB, 1 MiB, 256 KiB, 256 KiB and 256 KiB (simplexmq `prepareChunkSizes`).
    static let size = 2_790_000

    func sendOne(_ f: TransferFixture) async throws -> FileDescription {
        let sent = try await f.sender(FolderRelay(root: f.relayRoot)).send(file: f.source)
        return try FileDescription.load(sent.recipientDescriptions[0])
    }

    /// One download at a time, so that an interruption after `n` downloads has decrypted exactly those.
    func receiver(_ f: TransferFixture, _ relay: any ChunkRelay, inOrder: Bool = true) -> TransferReceiver {
        var options = TransferReceiver.Options(destination: f.temp.file("inbox"), tempRoot: f.temp.file("recv-tmp"),
                                               policy: TransferPolicy(parallelChunks: 1, attempts: 1, firstBackoff: .milliseconds(1)))
        options.decryptWhileDownloading = inOrder
        return TransferReceiver(options: options, relays: { _ in relay })
    }

    /// A receive cut off after `downloads` downloads; returns the kept plaintext's path.
    func interrupted(_ f: TransferFixture, _ description: FileDescription, after downloads: Int) async throws -> String {
        let flaky = FaultyRelay(FolderRelay(root: f.relayRoot), failAfter: (.download, downloads))
        await #expect(throws: RelayError.self) { try await receiver(f, flaky).receive(description, path: "d") }
        let names = try f.inbox()
        let kept = names.filter { $0.hasPrefix(ReceiveLeftovers.incomingPrefix) }
        try #require(kept.count == 1 && names.count == 1, "\(names)")
        return f.temp.file("inbox/" + kept[0])
    }

    /// Receives with a counting relay; returns how many chunks were downloaded, after checking the file.
    func rerun(_ f: TransferFixture, _ description: FileDescription, sourceLocation: SourceLocation = #_sourceLocation) async throws -> Int {
        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let got = try await receiver(f, counting).receive(description, path: "d")
        #expect(try f.temp.read("inbox/report.pdf") == f.content, sourceLocation: sourceLocation)
        #expect(try f.inbox() == ["report.pdf"], sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("recv-tmp")).isEmpty, sourceLocation: sourceLocation)
        #expect(got.chunksDownloaded == counting.count(.download), sourceLocation: sourceLocation)
        return got.chunksDownloaded
    }

    @Test("decrypting while downloading writes only the first chunk to disk; decrypting afterwards keeps them all")
    func onlyTheFirstChunkIsWritten() async throws {
        let f = try TransferFixture(size: Self.size)
        let description = try await sendOne(f)
        let sizes: [Int64] = description.chunks.map(\.size)
        let planned: [Int64] = [1 << 20, 1 << 20, 1 << 18, 1 << 18, 1 << 18]
        #expect(sizes == planned)
        for inOrder in [true, false] {
            let receiver = receiver(f, FolderRelay(root: f.relayRoot), inOrder: inOrder)
            let work = receiver.workFolder(for: description)
            // What the work folder holds when the last chunk is asked for: every other chunk is in.
            let seen = Mutex<[String]>([])
            let watching = LastChunkGate(FolderRelay(root: f.relayRoot), lastId: description.chunks.last!.replicas[0].replica.id) {
                seen.withLock { $0 = ((try? Folders.names(in: work)) ?? []).sorted() }
                return true
            }
            _ = try await TransferReceiver(options: receiver.options, relays: { _ in watching }).receive(description, path: "d")
            #expect(try f.temp.read("inbox/report.pdf") == f.content)
            let names = seen.withLock { $0 }
            if inOrder {
                #expect(names == ["chunk-1", KeptPlaintext.recordName], "\(names)")
            } else {
                #expect(names == ["chunk-1", "chunk-2", "chunk-3", "chunk-4"], "\(names)")
            }
            unlink(f.temp.file("inbox/report.pdf"))
        }
    }

    @Test("an interrupted receive resumes from its kept plaintext: only the chunks past it are downloaded")
    func resumesFromTheKeptPlaintext() async throws {
        let f = try TransferFixture(size: Self.size)
        let description = try await sendOne(f)
        let kept = try await interrupted(f, description, after: 3)
        #expect(POSIXFile.linkStatus(kept).map { $0.st_mode & 0o777 } == 0o600)
        #expect(TempOwnership.isStale(kept))
        let receiver = receiver(f, FolderRelay(root: f.relayRoot))
        #expect(receiver.kept(for: description) == TransferReceiver.Kept(chunks: 3, bytes: 2 << 20 + 1 << 18, workFolder: receiver.workFolder(for: description),
                                                                          plaintext: kept, total: description.chunks.count))
        // Chunks 1-3 are in: the first on disk, 2 and 3 in the kept plaintext.
        #expect(try await rerun(f, description) == 2)
        #expect(receiver.kept(for: description) == nil)
    }

    /// A content byte of chunk 3, or of chunk 1 (the stream's prefix before the content is under 300 bytes).
    static let inChunk3 = off_t(2 << 20 + 1000), inChunk1 = off_t(1000)

    @Test("kept plaintext that was changed or cut short is kept only up to the chunk before",
          arguments: [("changed", inChunk3, 3), ("cut short", inChunk3, 3), ("changed", inChunk1, 4), ("cut short", inChunk1, 4), ("cut short", 0, 4)])
    func changedKeptPlaintextIsDownloadedAgain(_ damage: String, at offset: off_t, downloads: Int) async throws {
        let f = try TransferFixture(size: Self.size)
        let description = try await sendOne(f)
        let kept = try await interrupted(f, description, after: 4)
        let fd = open(kept, O_RDWR | O_CLOEXEC)
        try #require(fd >= 0)
        if damage == "changed" {
            var byte: UInt8 = 0
            #expect(pread(fd, &byte, 1, offset) == 1)
            byte ^= 0x01
            #expect(pwrite(fd, &byte, 1, offset) == 1)
        } else {
            #expect(ftruncate(fd, offset) == 0)
        }
        close(fd)
        // Damage in chunk 3: chunks 1 and 2 come back, 3-5 are downloaded. In chunk 1 (a run killed
        // before its first plaintext reached the disk keeps an empty file): only the first chunk's
        // file is any use, and 2-5 are downloaded.
        #expect(try await rerun(f, description) == downloads)
    }

    @Test("a rerun whose file digest fails removes the kept plaintext with everything else")
    func aFailedCheckRemovesTheKeptPlaintext() async throws {
        let f = try TransferFixture(size: Self.size)
        var description = try await sendOne(f)
        _ = try await interrupted(f, description, after: 3)
        description.digest[3] ^= 1
        await #expect(throws: TransferError.fileDigestMismatch(path: "d")) {
            try await receiver(f, FolderRelay(root: f.relayRoot)).receive(description, path: "d")
        }
        #expect(try f.inbox().isEmpty)
    }

    @Test("a kept plaintext for another folder is not used there: it is removed and the file downloaded whole")
    func keptPlaintextElsewhereIsRemoved() async throws {
        let f = try TransferFixture(size: Self.size)
        let description = try await sendOne(f)
        _ = try await interrupted(f, description, after: 3)
        try FileManager.default.createDirectory(atPath: f.temp.file("elsewhere"), withIntermediateDirectories: true)
        var options = receiver(f, FolderRelay(root: f.relayRoot)).options
        options.destination = f.temp.file("elsewhere")
        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let got = try await TransferReceiver(options: options, relays: { _ in counting }).receive(description, path: "d")
        #expect(try f.temp.read("elsewhere/report.pdf") == f.content)
        #expect(got.chunksDownloaded == 4, "the first chunk was on disk")
        #expect(try f.inbox().isEmpty)
    }
}
