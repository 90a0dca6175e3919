import Foundation
import Testing
import SXCore
import SXCrypto
import SXRelayHTTP
import SXTestSupport
import SXTransfer
@testable import SXRelayServer

/// Size caps, quota, expiry, no listing, malformed requests.
struct RelayLimitsTests {
    @Test func chunksOverTheCapAreRefusedAtCreate() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let request = ChunkCreateRequest(size: HTTPRelayWire.largestChunk + 1, digest: [UInt8](repeating: 1, count: 32),
                                         senderKey: randomKey(), recipientKeys: [randomKey()])
        await #expect(throws: RelayError.sizeRejected(relay: relay.url, id: "(new)", size: HTTPRelayWire.largestChunk + 1,
                                                      limit: HTTPRelayWire.largestChunk)) {
            _ = try await relay.client.create(request)
        }
        // Exactly the largest chunk of FORMATS §7 is fine.
        var exact = request
        exact.size = HTTPRelayWire.largestChunk
        _ = try await relay.client.create(exact)
    }

    @Test func theStoreQuotaCountsReservedChunks() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"), maxStoreSize: 250_000)
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 100_000, seed: 20)
        let first = try await relay.client.create(chunk.request)
        _ = try await relay.client.create(chunk.request)
        await #expect(throws: RelayError.storageFull(relay: relay.url)) {
            _ = try await relay.client.create(chunk.request)
        }
        // Deleting gives the space back.
        try await relay.client.delete(first.sender)
        _ = try await relay.client.create(chunk.request)
    }

    @Test func anUploadOfTheWrongLengthIsRefused() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 200_000, seed: 21)
        let created = try await relay.client.create(chunk.request)
        await #expect(throws: RelayError.sizeRejected(relay: relay.url, id: created.sender.id, size: 199_999, limit: 200_000)) {
            try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 199_999)
        }
        let bigger = try TestChunk(folder: folder, name: "bigger", size: 200_001, seed: 21)
        await #expect(throws: RelayError.sizeRejected(relay: relay.url, id: created.sender.id, size: 200_001, limit: 200_000)) {
            try await relay.client.upload(created.sender, from: bigger.path, offset: 0, length: 200_001)
        }
        let auth = [("Authorization", "Bearer " + Base64URL.encode(chunk.request.senderKey))]
        // A Content-Length that matches the declaration but a body that runs past it, and one with no length.
        let tooLong = try await relay.raw(.PUT, "/chunks/" + created.sender.id, headers: auth, body: chunk.bytes + [0], declaredLength: nil)
        #expect(tooLong.status == 413 || tooLong.status == 411)
        #expect(filesBelow(relay.store + "/tmp").isEmpty && filesBelow(relay.store + "/data").isEmpty)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 200_000)
    }

    @Test func expiredChunksAreRefusedOnAccess() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"), expiry: .seconds(48 * 3600))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 22)
        let uploaded = try await relay.client.create(chunk.request)
        try await relay.client.upload(uploaded.sender, from: chunk.path, offset: 0, length: 1000)
        let pending = try await relay.client.create(chunk.request)

        relay.clock.advance(seconds: 47 * 3600)
        try await relay.client.download(uploaded.recipients[0], to: folder.file("out"))
        relay.clock.advance(seconds: 3600)
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: uploaded.recipients[0].id)) {
            try await relay.client.download(uploaded.recipients[0], to: folder.file("out"))
        }
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: pending.sender.id)) {
            try await relay.client.upload(pending.sender, from: chunk.path, offset: 0, length: 1000)
        }
        #expect(!FileManager.default.fileExists(atPath: relay.store + "/data/" + uploaded.sender.id))
        // The expired pending chunk was never touched by a recipient; the sweep takes it.
        #expect(relay.server.sweepExpired() == 0 || !FileManager.default.fileExists(atPath: relay.store + "/meta/" + pending.sender.id + ".json"))
        #expect(filesBelow(relay.store + "/meta").isEmpty)
    }

    @Test func theSweepRemovesExpiredChunksUnasked() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"), expiry: .seconds(60), sweepInterval: .milliseconds(50))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 23)
        let created = try await relay.client.create(chunk.request)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 1000)
        let kept = try TestChunk(folder: folder, name: "kept", size: 10, seed: 24)
        relay.clock.advance(seconds: 30)
        let young = try await relay.client.create(kept.request)
        relay.clock.advance(seconds: 31)
        #expect(await eventually { !FileManager.default.fileExists(atPath: relay.store + "/data/" + created.sender.id) })
        #expect(filesBelow(relay.store + "/meta") == [relay.store + "/meta/" + young.sender.id + ".json"])
        #expect(relay.server.store.reservedBytes == 10)
    }

    @Test func thereIsNoListingAndIdsAreNeverPaths() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 25)
        let created = try await relay.client.create(chunk.request)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 1000)
        for path in ["/chunks", "/chunks/", "/", "/meta", "/data"] {
            let answer = try await relay.raw(.GET, path)
            #expect([404, 405].contains(answer.status), "GET \(path) answered \(answer.status)")
            #expect(!answer.body.contains(created.sender.id))
        }
        let auth = [("Authorization", "Bearer " + Base64URL.encode(chunk.request.recipientKeys[0]))]
        for path in ["/chunks/..%2Fmeta", "/chunks/" + created.sender.id + ".json", "/chunks/%2E%2E"] {
            #expect(try await relay.raw(.GET, path, headers: auth).status == 404)
        }
        // A missing or malformed Authorization header is a refused key, not a server error.
        #expect(try await relay.raw(.GET, "/chunks/" + created.recipients[0].id).status == 403)
        #expect(try await relay.raw(.GET, "/chunks/" + created.recipients[0].id, headers: [("Authorization", "Bearer x")]).status == 403)
    }

    @Test func malformedCreatesAreRefused() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let key = Base64URL.encode(randomKey()), digest = Base64URL.encode([UInt8](repeating: 7, count: 32))
        let bodies = [
            "not json",
            #"{"size": 10, "digest": "\#(digest)", "senderKey": "\#(key)", "recipientKeys": []}"#,
            #"{"size": 0, "digest": "\#(digest)", "senderKey": "\#(key)", "recipientKeys": ["\#(key)"]}"#,
            #"{"size": 10, "digest": "AAAA", "senderKey": "\#(key)", "recipientKeys": ["\#(key)"]}"#,
            #"{"size": 10, "digest": "\#(digest)", "senderKey": "short", "recipientKeys": ["\#(key)"]}"#,
        ]
        for body in bodies {
            let answer = try await relay.raw(.POST, "/chunks", body: Array(body.utf8), declaredLength: Int64(body.utf8.count))
            #expect(answer.status == 400, "\(body) → \(answer.status)")
        }
        #expect(filesBelow(relay.store + "/meta").isEmpty)
    }

    @Test func theClientRefusesNonHTTPAddresses() {
        for address in ["/mnt/usb", "ftp://host/x", "http://", "relay.example:80"] {
            #expect(throws: RelayError.self) { _ = try HTTPChunkRelay(url: address) }
        }
    }
}
