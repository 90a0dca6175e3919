import Foundation
import Testing
import SXCore
import SXCrypto
import SXRelayHTTP
import SXTestSupport
import SXTransfer
@testable import SXRelayServer

/// The server and the client together, in process, on a free loopback port.
struct RelayEndToEndTests {
    @Test func createUploadDownloadDeleteForEveryRecipient() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1_000_003, seed: 1, recipients: 3)

        let created = try await chunk.create(on: relay.client)
        let ids = [created.sender.id] + created.recipients.map(\.id)
        // 16 random bytes each, as an XFTP server mints them.
        #expect(Set(ids).count == 4 && ids.allSatisfy { $0.count == 16 && HTTPRelayWire.isWellFormedId(Base64URL.encode($0)) })

        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: chunk.request.size)
        for (n, recipient) in created.recipients.enumerated() {
            let out = folder.file("out\(n)")
            try await relay.client.download(recipient, to: out)
            #expect(try folder.read("out\(n)") == chunk.bytes)
            #expect(try POSIXFile.status(out).st_mode & 0o777 == 0o600)
        }

        try await relay.client.delete(created.sender)
        for recipient in created.recipients {
            await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: recipient.idText)) {
                try await relay.client.download(recipient, to: folder.file("gone"))
            }
        }
        // Deleting what is already gone succeeds (a repeated cancel).
        try await relay.client.delete(created.sender)
        #expect(filesBelow(relay.store + "/data").isEmpty && filesBelow(relay.store + "/meta").isEmpty)
    }

    @Test func uploadsARangeOfALargerFile() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let whole = try TestChunk(folder: folder, name: "file", size: 3 * 1024 * 1024, seed: 2)
        let part = Array(whole.bytes[1_048_576..<(1_048_576 + 700_001)])
        let created = try await relay.client.createWithFreshKeys(size: Int64(part.count), digest: SHA256Digest.of(part))
        try await relay.client.upload(created.sender, from: whole.path, offset: 1_048_576, length: Int64(part.count))
        try await relay.client.download(created.recipients[0], to: folder.file("out"))
        #expect(try folder.read("out") == part)
    }

    @Test func wrongRecipientKeyIsRefused() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 5000, seed: 3, recipients: 2)
        let created = try await chunk.create(on: relay.client)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 5000)

        let forged = ChunkReplica(id: created.recipients[0].id, key: randomKey())
        await #expect(throws: RelayError.wrongKey(relay: relay.url, id: forged.idText)) {
            try await relay.client.download(forged, to: folder.file("out"))
        }
        // Another recipient's key does not open this recipient's id either.
        let swapped = ChunkReplica(id: created.recipients[0].id, key: created.recipients[1].key)
        await #expect(throws: RelayError.wrongKey(relay: relay.url, id: swapped.idText)) {
            try await relay.client.download(swapped, to: folder.file("out"))
        }
        // The sender's id is not a download id, even with the sender's key.
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: created.sender.idText)) {
            try await relay.client.download(created.sender, to: folder.file("out"))
        }
        #expect(!FileManager.default.fileExists(atPath: folder.file("out")))
    }

    @Test func wrongSenderKeyCanNeitherUploadNorDelete() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 70_000, seed: 4)
        let created = try await chunk.create(on: relay.client)
        let forged = ChunkReplica(id: created.sender.id, key: randomKey())
        await #expect(throws: RelayError.wrongKey(relay: relay.url, id: forged.idText)) {
            try await relay.client.upload(forged, from: chunk.path, offset: 0, length: 70_000)
        }
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 70_000)
        await #expect(throws: RelayError.wrongKey(relay: relay.url, id: forged.idText)) {
            try await relay.client.delete(forged)
        }
        // A recipient key is not a sender key.
        await #expect(throws: RelayError.wrongKey(relay: relay.url, id: created.sender.idText)) {
            try await relay.client.delete(ChunkReplica(id: created.sender.id, key: created.recipients[0].key))
        }
        try await relay.client.download(created.recipients[0], to: folder.file("out"))
        #expect(try folder.read("out") == chunk.bytes)
    }

    @Test func nothingIsDownloadableBeforeTheUploadCompletes() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 100, seed: 5)
        let created = try await chunk.create(on: relay.client)
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: created.recipients[0].idText)) {
            try await relay.client.download(created.recipients[0], to: folder.file("out"))
        }
    }

    @Test func digestMismatchIsRefusedAndNeverDownloadable() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 300_000, seed: 6)
        let other = try TestChunk(folder: folder, name: "other", size: 300_000, seed: 7)
        let created = try await chunk.create(on: relay.client)
        await #expect(throws: RelayError.digestMismatch(relay: relay.url, id: created.sender.idText)) {
            try await relay.client.upload(created.sender, from: other.path, offset: 0, length: 300_000)
        }
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: created.recipients[0].idText)) {
            try await relay.client.download(created.recipients[0], to: folder.file("out"))
        }
        #expect(filesBelow(relay.store + "/tmp").isEmpty && filesBelow(relay.store + "/data").isEmpty)
        // The failed upload left the chunk incomplete, so the right bytes can still be uploaded.
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 300_000)
        try await relay.client.download(created.recipients[0], to: folder.file("out"))
        #expect(try folder.read("out") == chunk.bytes)
    }

    @Test func reUploadingACompleteChunkIsANoOp() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 2 * 1024 * 1024, seed: 8)
        let created = try await chunk.create(on: relay.client)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: chunk.request.size)
        let dataFile = relay.store + "/data/" + created.sender.idText
        let before = try POSIXFile.status(dataFile)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: chunk.request.size)
        // Even different bytes of the right size are ignored once the chunk is complete.
        let other = try TestChunk(folder: folder, name: "other", size: 2 * 1024 * 1024, seed: 9)
        try await relay.client.upload(created.sender, from: other.path, offset: 0, length: chunk.request.size)
        let after = try POSIXFile.status(dataFile)
        #expect(before.st_ino == after.st_ino && before.st_mtim.tv_nsec == after.st_mtim.tv_nsec)
        try await relay.client.download(created.recipients[0], to: folder.file("out"))
        #expect(try folder.read("out") == chunk.bytes)
        #expect(filesBelow(relay.store + "/tmp").isEmpty)
    }

    @Test func concurrentUploadsAndDownloads() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        // Twelve requests at once open new connections while other suites' synchronous tests may hold
        // this process's threads: a connect timeout of seconds failed this test under load (the
        // default client keeps 3 s so that tests of a stopped server do not wait long).
        let patient = HTTPChunkRelay.Timeouts(connect: .seconds(300), idle: .seconds(1800), request: .seconds(3600))
        try await HTTPChunkRelay.with(url: relay.url, timeouts: patient) { client in
            let chunks = try (0..<12).map { try TestChunk(folder: folder, name: "c\($0)", size: 512 * 1024 + $0, seed: 100 + UInt64($0)) }
            let created = try await withThrowingTaskGroup(of: (Int, CreatedReplicas).self) { group in
                for (n, chunk) in chunks.enumerated() {
                    group.addTask {
                        let created = try await chunk.create(on: client)
                        try await client.upload(created.sender, from: chunk.path, offset: 0, length: chunk.request.size)
                        return (n, created)
                    }
                }
                var all: [Int: CreatedReplicas] = [:]
                for try await (n, c) in group { all[n] = c }
                return all
            }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for (n, c) in created {
                    group.addTask { try await client.download(c.recipients[0], to: folder.file("out\(n)")) }
                }
                try await group.waitForAll()
            }
            for (n, chunk) in chunks.enumerated() { #expect(try folder.read("out\(n)") == chunk.bytes) }
        }
    }

    @Test func keyHashesNotKeysAreStored() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 4096, seed: 10, recipients: 2)
        let created = try await chunk.create(on: relay.client)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 4096)

        #expect(try POSIXFile.status(relay.store).st_mode & 0o777 == 0o700)
        let meta = relay.store + "/meta/" + created.sender.idText + ".json"
        #expect(try POSIXFile.status(meta).st_mode & 0o777 == 0o600)
        let metaText = String(decoding: try FileBytes.read(meta, limit: 1 << 20), as: UTF8.self)
        let keys = [created.sender.key] + created.recipients.map(\.key)
        for key in keys { #expect(metaText.contains(Base64URL.encode(SHA256Digest.of(key.ed25519PublicKey!)))) }
        for file in filesBelow(relay.store) {
            let bytes = try FileBytes.read(file, limit: 1 << 24)
            let text = String(decoding: bytes, as: UTF8.self)
            for key in keys {
                for secret in [key.raw, key.ed25519PublicKey!] {
                    #expect(!text.contains(Base64URL.encode(secret)) && !text.contains(Hex.encode(secret)))
                    #expect(!contains(bytes, secret), "raw key bytes in \(file)")
                }
            }
        }
    }

    @Test func chunksSurviveARestartButIncompleteUploadsDoNot() async throws {
        let folder = try TempFolder()
        let store = folder.file("store")
        let first = try await RunningRelay.start(store: store)
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 10_000, seed: 11)
        let done = try await chunk.create(on: first.client)
        try await first.client.upload(done.sender, from: chunk.path, offset: 0, length: 10_000)
        let pending = try await chunk.create(on: first.client)
        await first.stop()

        let second = try await RunningRelay.start(store: store)
        defer { Task { await second.stop() } }
        try await second.client.download(done.recipients[0], to: folder.file("out"))
        #expect(try folder.read("out") == chunk.bytes)
        await #expect(throws: RelayError.chunkNotFound(relay: second.url, id: pending.recipients[0].idText)) {
            try await second.client.download(pending.recipients[0], to: folder.file("out2"))
        }
        // The reservation survived too: the pending chunk can still be completed.
        try await second.client.upload(pending.sender, from: chunk.path, offset: 0, length: 10_000)
        try await second.client.download(pending.recipients[0], to: folder.file("out2"))
        #expect(try folder.read("out2") == chunk.bytes)
    }
}

private func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
    guard haystack.count >= needle.count else { return false }
    return (0...(haystack.count - needle.count)).contains { i in haystack[i..<(i + needle.count)].elementsEqual(needle) }
}
