import Foundation
import Synchronization
import SXCore
import SXCrypto
import SXTestSupport
import SXTransfer
import Testing
@testable import SXRelayServer
#if canImport(Glibc)
import Glibc
#endif

/// A clock the tests move forward to expire chunks without waiting.
final class StoreClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    func now() -> Date { current.withLock { $0 } }
    func advance(seconds: TimeInterval) { current.withLock { $0 = $0.addingTimeInterval(seconds) } }
}

/// An Ed25519 key pair as the relay's clients make them (the store is given public keys).
struct KeyPair {
    let seed = Ed25519.randomSeed()
    var publicKey: [UInt8] { Ed25519.publicKey(seed: seed) }
    var text: String { Base64URL.encode(publicKey) }
}

/// The relay's ChunkStore without HTTP: what it mints, keeps, hands out and forgets.
@Suite struct ChunkStoreTests {
    let temp: TempFolder
    let clock = StoreClock()

    init() throws {
        temp = try TempFolder("sxkit-chunk-store")
    }

    var storeFolder: String { temp.file("store") }

    func configuration(maxChunkSize: Int64 = HTTPRelayWire.largestChunk, maxStoreSize: Int64 = 1 << 30,
                       expiry: Duration = .seconds(3600)) -> RelayServerConfiguration {
        let clock = self.clock
        return RelayServerConfiguration(store: storeFolder, expiry: expiry, maxChunkSize: maxChunkSize, maxStoreSize: maxStoreSize,
                                        now: { clock.now() })
    }

    func store(_ configuration: RelayServerConfiguration? = nil) throws -> ChunkStore {
        try ChunkStore(configuration: configuration ?? self.configuration())
    }

    static func request(_ bytes: [UInt8], sender: KeyPair, recipients: [KeyPair]) -> HTTPRelayWire.CreateRequest {
        .init(size: Int64(bytes.count), digest: Base64URL.encode(SHA256Digest.of(bytes)), senderKey: sender.text,
              recipientKeys: recipients.map(\.text))
    }

    static func randomBytes(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    /// Uploads as the upload route does once the bytes are checked: a temp file in the store, then the commit.
    static func put(_ bytes: [UInt8], id: String, into store: ChunkStore) throws {
        let (fd, tempPath) = try store.newUploadFile(for: id)
        #expect(Path.parent(tempPath) == store.tempFolder)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        #expect(written == bytes.count)
        do { try store.commitUpload(id: id, tempPath: tempPath) } catch {
            unlink(tempPath)
            throw error
        }
    }

    /// Every byte a recipient gets.
    static func get(_ id: String, key: [UInt8], from store: ChunkStore) throws -> [UInt8] {
        let (fd, size) = try store.openForDownload(id: id, key: key)
        defer { close(fd) }
        return try readAll(fd, size: size)
    }

    static func readAll(_ fd: Int32, size: Int64) throws -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: Int(size) + 1)
        var got = 0
        while true {
            let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + got, $0.count - got) }
            guard n > 0 else { break }
            got += n
        }
        return Array(bytes.prefix(got))
    }

    static func wellFormed(_ id: String) -> Bool {
        id.utf8.count == 24 && Base64URL.decode(id)?.count == 16 && HTTPRelayWire.isWellFormedId(id)
    }

    @Test func aChunkIsCreatedUploadedDownloadedByEachRecipientAndDeleted() throws {
        let store = try store()
        let sender = KeyPair(), alice = KeyPair(), bob = KeyPair()
        let bytes = Self.randomBytes(70_001)
        let created = try store.create(Self.request(bytes, sender: sender, recipients: [alice, bob]))
        let ids = [created.senderId] + created.recipientIds
        #expect(created.recipientIds.count == 2)
        #expect(ids.allSatisfy(Self.wellFormed), "\(ids)")
        #expect(Set(ids).count == 3)
        #expect(store.reservedBytes == 70_001)

        // Created, not uploaded: the sender may upload, nobody may download yet.
        #expect(try store.authorizeSender(id: created.senderId, key: sender.publicKey).complete == false)
        #expect(throws: StoreFailure.notFound) { _ = try Self.get(created.recipientIds[0], key: alice.publicKey, from: store) }

        try Self.put(bytes, id: created.senderId, into: store)
        let (record, complete) = try store.authorizeSender(id: created.senderId, key: sender.publicKey)
        #expect(complete && record.size == 70_001 && record.digest == Base64URL.encode(SHA256Digest.of(bytes)))
        #expect(try Self.get(created.recipientIds[0], key: alice.publicKey, from: store) == bytes)
        #expect(try Self.get(created.recipientIds[1], key: bob.publicKey, from: store) == bytes)
        // The upload's temp file became the chunk: nothing is left in tmp/.
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.tempFolder).isEmpty)

        // A download already open survives the delete; after it the chunk is gone for everyone.
        let (fd, size) = try store.openForDownload(id: created.recipientIds[1], key: bob.publicKey)
        #expect(store.remove(created.senderId))
        #expect(try Self.readAll(fd, size: size) == bytes)
        close(fd)
        #expect(!store.remove(created.senderId), "a second delete finds nothing")
        #expect(throws: StoreFailure.notFound) { _ = try Self.get(created.recipientIds[0], key: alice.publicKey, from: store) }
        #expect(throws: StoreFailure.notFound) { _ = try store.authorizeSender(id: created.senderId, key: sender.publicKey) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.dataFolder).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.metaFolder).isEmpty)
        #expect(store.reservedBytes == 0)
    }

    @Test func onlyTheRightKeyOpensEachSideAndIdsDoNotCross() throws {
        let store = try store()
        let sender = KeyPair(), alice = KeyPair(), bob = KeyPair(), stranger = KeyPair()
        let bytes = Self.randomBytes(1000)
        let created = try store.create(Self.request(bytes, sender: sender, recipients: [alice, bob]))
        try Self.put(bytes, id: created.senderId, into: store)
        let (aliceId, bobId) = (created.recipientIds[0], created.recipientIds[1])

        for wrong in [alice, bob, stranger] {
            #expect(throws: StoreFailure.wrongKey) { _ = try store.authorizeSender(id: created.senderId, key: wrong.publicKey) }
        }
        for wrong in [sender, bob, stranger] {
            #expect(throws: StoreFailure.wrongKey) { _ = try Self.get(aliceId, key: wrong.publicKey, from: store) }
        }
        #expect(throws: StoreFailure.wrongKey) { _ = try Self.get(bobId, key: alice.publicKey, from: store) }
        // The private seed is not the key: the store compares public keys.
        #expect(throws: StoreFailure.wrongKey) { _ = try Self.get(aliceId, key: alice.seed, from: store) }
        // A recipient id is no sender id and the other way round.
        #expect(throws: StoreFailure.notFound) { _ = try store.authorizeSender(id: aliceId, key: alice.publicKey) }
        #expect(throws: StoreFailure.notFound) { _ = try Self.get(created.senderId, key: sender.publicKey, from: store) }
        // The keys themselves are not on disk: only their hashes.
        let meta = String(decoding: try FileBytes.read(Path.join(store.metaFolder, created.senderId + ".json"), limit: 1 << 20), as: UTF8.self)
        for key in [sender, alice, bob] {
            #expect(!meta.contains(key.text) && !meta.contains(Base64URL.encode(key.seed)))
            #expect(meta.contains(Base64URL.encode(SHA256Digest.of(key.publicKey))))
        }
        #expect(try Self.get(aliceId, key: alice.publicKey, from: store) == bytes)
    }

    @Test func createRefusesWhatTheLimitsDoNotAllow() throws {
        let store = try store(configuration(maxChunkSize: 4096, maxStoreSize: 10_000))
        let sender = KeyPair(), alice = KeyPair()
        let oneByte = Base64URL.encode(SHA256Digest.of([1]))
        func create(size: Int64 = 100, digest: String? = nil, sender senderKey: String? = nil, recipients: [String]? = nil) throws(StoreFailure) {
            _ = try store.create(.init(size: size, digest: digest ?? oneByte, senderKey: senderKey ?? sender.text,
                                       recipientKeys: recipients ?? [alice.text]))
        }
        func expectBadRequest(_ what: String, _ body: () throws -> Void) {
            do {
                try body()
                Issue.record("\(what) was accepted")
            } catch {
                guard case StoreFailure.badRequest = error else {
                    Issue.record("\(what): \(error)")
                    return
                }
            }
        }
        #expect(throws: StoreFailure.tooLarge(limit: 4096)) { try create(size: 4097) }
        expectBadRequest("an empty chunk") { try create(size: 0) }
        expectBadRequest("a negative size") { try create(size: -1) }
        expectBadRequest("a 31-byte digest") { try create(digest: Base64URL.encode([UInt8](repeating: 1, count: 31))) }
        expectBadRequest("a digest not in base64url") { try create(digest: "not base64url!") }
        expectBadRequest("no recipient") { try create(recipients: []) }
        expectBadRequest("65 recipients") { try create(recipients: Array(repeating: alice.text, count: HTTPRelayWire.maxRecipients + 1)) }
        expectBadRequest("a 31-byte sender key") { try create(sender: Base64URL.encode([UInt8](repeating: 7, count: 31))) }
        expectBadRequest("a short recipient key") { try create(recipients: [alice.text, "AAAA"]) }
        // Nothing refused was recorded.
        #expect(store.reservedBytes == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.metaFolder).isEmpty)

        // The largest chunk is allowed, and up to 64 recipients.
        try create(size: 4096, recipients: Array(repeating: alice.text, count: HTTPRelayWire.maxRecipients))
        try create(size: 4096)
        // The store's total is of the declared sizes, reserved at create: a third 4096 would pass 10,000.
        #expect(throws: StoreFailure.full) { try create(size: 4096) }
        try create(size: 10_000 - 8192)
        #expect(store.reservedBytes == 10_000)
        #expect(throws: StoreFailure.full) { try create(size: 1) }
    }

    @Test func aReopenedStoreKnowsItsChunksAndDropsUnfinishedUploads() throws {
        let sender = KeyPair(), alice = KeyPair()
        let uploaded = Self.randomBytes(5000), pending = Self.randomBytes(300)
        let (done, waiting): (HTTPRelayWire.CreateResponse, HTTPRelayWire.CreateResponse)
        do {
            let store = try store()
            done = try store.create(Self.request(uploaded, sender: sender, recipients: [alice]))
            try Self.put(uploaded, id: done.senderId, into: store)
            waiting = try store.create(Self.request(pending, sender: sender, recipients: [alice]))
            // An upload in progress when the relay stopped.
            let (fd, _) = try store.newUploadFile(for: waiting.senderId)
            close(fd)
        }
        // Something that is not the store's own in meta/: ignored, not fatal.
        let meta = Path.join(storeFolder, "meta")
        _ = try temp.write("store/meta/notes.json", Array("{\"hello\": 1}".utf8))
        _ = try temp.write("store/meta/README", Array("hello".utf8))
        #expect(try FileManager.default.contentsOfDirectory(atPath: Path.join(storeFolder, "tmp")).count == 1)

        let reopened = try store()
        #expect(try FileManager.default.contentsOfDirectory(atPath: reopened.tempFolder).isEmpty, "an unfinished upload can never complete")
        #expect(try Self.get(done.recipientIds[0], key: alice.publicKey, from: reopened) == uploaded)
        #expect(try reopened.authorizeSender(id: done.senderId, key: sender.publicKey).complete)
        #expect(try reopened.authorizeSender(id: waiting.senderId, key: sender.publicKey).complete == false)
        #expect(throws: StoreFailure.notFound) { _ = try Self.get(waiting.recipientIds[0], key: alice.publicKey, from: reopened) }
        #expect(throws: StoreFailure.wrongKey) { _ = try Self.get(done.recipientIds[0], key: sender.publicKey, from: reopened) }
        #expect(reopened.reservedBytes == 5300)
        // The waiting chunk can still be uploaded after the restart.
        try Self.put(pending, id: waiting.senderId, into: reopened)
        #expect(try Self.get(waiting.recipientIds[0], key: alice.publicKey, from: reopened) == pending)
        #expect(FileManager.default.fileExists(atPath: Path.join(meta, "notes.json")))
        // Every folder of the store is private.
        for folder in [storeFolder, reopened.dataFolder, reopened.metaFolder, reopened.tempFolder] {
            #expect(try POSIXFile.status(folder).st_mode & 0o777 == 0o700, "\(folder)")
        }
        #expect(try POSIXFile.status(Path.join(meta, done.senderId + ".json")).st_mode & 0o777 == 0o600)
    }

    @Test func expiredChunksAreRefusedAndSweptAway() throws {
        let store = try store(configuration(expiry: .seconds(600)))
        let sender = KeyPair(), alice = KeyPair()
        let bytes = Self.randomBytes(100)
        let old = try store.create(Self.request(bytes, sender: sender, recipients: [alice]))
        try Self.put(bytes, id: old.senderId, into: store)
        clock.advance(seconds: 300)
        let young = try store.create(Self.request(bytes, sender: sender, recipients: [alice]))
        clock.advance(seconds: 299)
        #expect(try Self.get(old.recipientIds[0], key: alice.publicKey, from: store) == bytes)
        clock.advance(seconds: 1)
        // At exactly its lifetime the first chunk is gone; the second has 300 s left.
        #expect(throws: StoreFailure.notFound) { _ = try Self.get(old.recipientIds[0], key: alice.publicKey, from: store) }
        #expect(throws: StoreFailure.notFound) { try Self.put(bytes, id: old.senderId, into: store) }
        #expect(try store.authorizeSender(id: young.senderId, key: sender.publicKey).complete == false)
        clock.advance(seconds: 300)
        #expect(store.sweep() == 1)
        #expect(store.sweep() == 0)
        #expect(store.reservedBytes == 0)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.metaFolder).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: store.dataFolder).isEmpty)
    }

    @Test func aStorePathThatIsAFileIsUnusable() throws {
        let file = try temp.write("store", Array("not a folder".utf8))
        #expect {
            _ = try ChunkStore(configuration: configuration())
        } throws: { error in
            guard case RelayServerError.storeUnusable(let path, _) = error else { return false }
            return path.hasPrefix(file)
        }
    }

    @Test func mintedIdsAreSixteenRandomBytes() {
        let ids = (0..<500).map { _ in ChunkStore.newId() }
        #expect(ids.allSatisfy(Self.wellFormed))
        #expect(Set(ids).count == 500)
        // base64url: no '+', '/', and padded to 24 characters.
        #expect(ids.allSatisfy { !$0.contains("+") && !$0.contains("/") && $0.hasSuffix("==") })
        // Random bytes: every byte value turns up across 8,000 of them.
        #expect(Set(ids.flatMap { Base64URL.decode($0)! }).count == 256)
    }
}

@Suite struct RelayServerConfigurationTests {
    @Test func theDefaultsAreSafe() {
        let c = RelayServerConfiguration(store: "relay-store")
        #expect(c.host == "127.0.0.1" && c.isLoopback)
        #expect(c.port == 0)
        #expect(c.maxChunkSize == 4 * 1024 * 1024 && c.maxChunkSize == HTTPRelayWire.largestChunk)
        #expect(c.expiry == .seconds(48 * 3600))
        #expect(c.maxStoreSize == 8 * 1024 * 1024 * 1024)
        #expect(c.sweepInterval == .seconds(60), "never less often than every minute")
    }

    @Test func theSweepIsAQuarterOfAShortExpiry() {
        #expect(RelayServerConfiguration(store: "s", expiry: .seconds(40)).sweepInterval == .seconds(10))
        #expect(RelayServerConfiguration(store: "s", expiry: .seconds(40), sweepInterval: .seconds(3)).sweepInterval == .seconds(3))
    }

    @Test(arguments: [("127.0.0.1", true), ("127.1.2.3", true), ("localhost", true), ("::1", true), ("[::1]", true),
                      ("0.0.0.0", false), ("::", false), ("192.168.1.5", false), ("example.org", false)])
    func loopbackIsOnlyThisMachine(host: String, loopback: Bool) {
        #expect(RelayServerConfiguration(host: host, store: "s").isLoopback == loopback)
    }
}

@Suite struct RelayServerErrorTests {
    @Test func cannotListenAsksForAnotherAddressWithoutNamingAFlag() {
        let error = RelayServerError.cannotListen(address: "127.0.0.1:8080", cause: "address already in use")
        #expect(error.remedy == .chooseListenAddress)
        #expect(error.description == "cannot listen on 127.0.0.1:8080: address already in use")
        #expect(!error.description.contains("--"))
        for word in ["listen ", "port ", "host ", "relay serve"] {
            #expect(!error.description.contains("--\(word)") && !error.description.contains("sxkit \(word)"))
        }
        #expect(error.exitStatus == .failed)
        let store = RelayServerError.storeUnusable(path: "/x", cause: "Permission denied")
        #expect(store.remedy == nil && store.description == "cannot use '/x' as the relay store: Permission denied")
    }

    /// A port another socket holds: the server says so with `cannotListen`, not NIO's bind dump.
    @Test func aBusyPortIsCannotListen() async throws {
        let temp = try TempFolder("sxkit-relay-busy")
        let occupied = try OccupiedLoopbackPort()
        let port = Int(occupied.port)

        let server = try RelayServer(configuration: .init(host: "127.0.0.1", port: port, store: temp.file("store")))
        let outcome = await withTaskGroup(of: (any Error)?.self) { group in
            group.addTask {
                do { try await server.run(); return nil } catch { return error }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                return CancellationError()
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        let error = try #require(outcome as? RelayServerError, "\(String(describing: outcome))")
        guard case .cannotListen(let shown, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(shown == "127.0.0.1:\(port)")
        #expect(error.remedy == .chooseListenAddress)
        withExtendedLifetime(occupied) {}
    }
}
