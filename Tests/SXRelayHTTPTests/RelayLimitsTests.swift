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
                                         senderKey: randomKey().ed25519PublicKey!, recipientKeys: [randomKey().ed25519PublicKey!])
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
        let first = try await chunk.create(on: relay.client)
        _ = try await chunk.create(on: relay.client)
        await #expect(throws: RelayError.storageFull(relay: relay.url)) {
            _ = try await chunk.create(on: relay.client)
        }
        // Deleting gives the space back.
        try await relay.client.delete(first.sender)
        _ = try await chunk.create(on: relay.client)
    }

    @Test func anUploadOfTheWrongLengthIsRefused() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 200_000, seed: 21)
        let created = try await chunk.create(on: relay.client)
        await #expect(throws: RelayError.sizeRejected(relay: relay.url, id: created.sender.idText, size: 199_999, limit: 200_000)) {
            try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 199_999)
        }
        let bigger = try TestChunk(folder: folder, name: "bigger", size: 200_001, seed: 21)
        await #expect(throws: RelayError.sizeRejected(relay: relay.url, id: created.sender.idText, size: 200_001, limit: 200_000)) {
            try await relay.client.upload(created.sender, from: bigger.path, offset: 0, length: 200_001)
        }
        let auth = [("Authorization", "Bearer " + Base64URL.encode(created.sender.key.raw))]
        // A Content-Length that matches the declaration but a body that runs past it, and one with no length.
        let tooLong = try await relay.raw(.PUT, "/chunks/" + created.sender.idText, headers: auth, body: chunk.bytes + [0], declaredLength: nil)
        #expect(tooLong.status == 413 || tooLong.status == 411)
        #expect(filesBelow(relay.store + "/tmp").isEmpty && filesBelow(relay.store + "/data").isEmpty)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 200_000)
    }

    @Test func expiredChunksAreRefusedOnAccess() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"), expiry: .seconds(48 * 3600))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 22)
        let uploaded = try await chunk.create(on: relay.client)
        try await relay.client.upload(uploaded.sender, from: chunk.path, offset: 0, length: 1000)
        let pending = try await chunk.create(on: relay.client)

        relay.clock.advance(seconds: 47 * 3600)
        try await relay.client.download(uploaded.recipients[0], to: folder.file("out"))
        relay.clock.advance(seconds: 3600)
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: uploaded.recipients[0].idText)) {
            try await relay.client.download(uploaded.recipients[0], to: folder.file("out"))
        }
        await #expect(throws: RelayError.chunkNotFound(relay: relay.url, id: pending.sender.idText)) {
            try await relay.client.upload(pending.sender, from: chunk.path, offset: 0, length: 1000)
        }
        #expect(!FileManager.default.fileExists(atPath: relay.store + "/data/" + uploaded.sender.idText))
        // The expired pending chunk was never touched by a recipient; the sweep takes it.
        #expect(relay.server.sweepExpired() == 0 || !FileManager.default.fileExists(atPath: relay.store + "/meta/" + pending.sender.idText + ".json"))
        #expect(filesBelow(relay.store + "/meta").isEmpty)
    }

    @Test func theSweepRemovesExpiredChunksUnasked() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"), expiry: .seconds(60), sweepInterval: .milliseconds(50))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 23)
        let created = try await chunk.create(on: relay.client)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 1000)
        let kept = try TestChunk(folder: folder, name: "kept", size: 10, seed: 24)
        relay.clock.advance(seconds: 30)
        let young = try await kept.create(on: relay.client)
        relay.clock.advance(seconds: 31)
        #expect(await eventually { !FileManager.default.fileExists(atPath: relay.store + "/data/" + created.sender.idText) })
        #expect(filesBelow(relay.store + "/meta") == [relay.store + "/meta/" + young.sender.idText + ".json"])
        #expect(relay.server.store.reservedBytes == 10)
    }

    @Test func thereIsNoListingAndIdsAreNeverPaths() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 25)
        let created = try await chunk.create(on: relay.client)
        try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 1000)
        for path in ["/chunks", "/chunks/", "/", "/meta", "/data"] {
            let answer = try await relay.raw(.GET, path)
            #expect([404, 405].contains(answer.status), "GET \(path) answered \(answer.status)")
            #expect(!answer.body.contains(created.sender.idText))
        }
        let auth = [("Authorization", "Bearer " + Base64URL.encode(created.recipients[0].key.raw))]
        for path in ["/chunks/..%2Fmeta", "/chunks/" + created.sender.idText + ".json", "/chunks/%2E%2E"] {
            #expect(try await relay.raw(.GET, path, headers: auth).status == 404)
        }
        // A missing or malformed Authorization header is a refused key, not a server error.
        #expect(try await relay.raw(.GET, "/chunks/" + created.recipients[0].idText).status == 403)
        #expect(try await relay.raw(.GET, "/chunks/" + created.recipients[0].idText, headers: [("Authorization", "Bearer x")]).status == 403)
        // The right key opens it through a raw request too (the private seed, checked against the public key).
        #expect(try await relay.raw(.GET, "/chunks/" + created.recipients[0].idText, headers: auth).status == 200)
    }

    @Test func malformedCreatesAreRefused() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let key = Base64URL.encode(randomKey().ed25519PublicKey!), digest = Base64URL.encode([UInt8](repeating: 7, count: 32))
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
