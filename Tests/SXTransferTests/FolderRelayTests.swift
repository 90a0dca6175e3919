import Foundation
import Synchronization
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// A settable clock for expiry tests.
final class TestClock: Sendable {
    private let offset = Mutex<TimeInterval>(0)
    func advance(_ seconds: TimeInterval) { offset.withLock { $0 += seconds } }
    var now: @Sendable () -> Date { { [self] in Date().addingTimeInterval(offset.withLock { $0 }) } }
}

/// The folder relay passes every relay conformance check, plus its own file-level guarantees.
@Suite(.ownThreads)
struct FolderRelayTests {
    @Test("the folder relay passes the relay conformance check", arguments: RelayConformance.Check.allCases)
    func conformance(check: RelayConformance.Check) async throws {
        let temp = try TempFolder()
        let root = temp.file("relay")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        let clock = TestClock()
        let suite = RelayConformance(scratch: temp.path, makeRelay: { FolderRelay(root: root, now: clock.now) },
                                     expireAll: { clock.advance(FolderRelay.defaultExpiry + 1) })
        #expect(try await suite.run(check))
    }

    @Test("keys are stored only as SHA-256; no key bytes appear in the folder")
    func keysHashed() async throws {
        let temp = try TempFolder()
        let relay = FolderRelay(root: temp.path)
        let key = ReplicaKey.generate(), rkey = ReplicaKey.generate()
        let bytes = [UInt8](repeating: 5, count: 1000)
        let created = try await relay.create(ChunkCreateRequest(size: 1000, digest: SHA256Digest.of(bytes), senderKey: key.ed25519PublicKey!,
                                                                recipientKeys: [rkey.ed25519PublicKey!]))
        let all = try FileManager.default.contentsOfDirectory(atPath: temp.path).map { try temp.read($0) }.joined()
        let text = String(decoding: Array(all), as: UTF8.self)
        // Neither private nor public keys: only the SHA-256 of each public key.
        for k in [key, rkey] {
            #expect(!text.contains(Hex.encode(k.raw)) && !text.contains(Base64URL.encode(k.raw)) && !text.contains(k.text))
            #expect(!text.contains(Hex.encode(k.ed25519PublicKey!)))
        }
        #expect(text.contains(Hex.encode(SHA256Digest.of(key.ed25519PublicKey!))))
        // Ids as XFTP servers mint them: 16 bytes.
        #expect(created.senderId.count == 16 && created.recipientIds.map(\.count) == [16])
    }

    @Test("the sweep removes expired chunks and keeps fresh ones")
    func sweep() async throws {
        let temp = try TempFolder()
        let clock = TestClock()
        let relay = FolderRelay(root: temp.path, now: clock.now)
        let bytes = [UInt8](repeating: 5, count: 100)
        let source = try temp.write("src", bytes)
        let old = try await relay.createWithFreshKeys(size: 100, digest: SHA256Digest.of(bytes))
        try await relay.upload(old.sender, from: source, offset: 0, length: 100)
        clock.advance(47 * 3600)
        let fresh = try await relay.createWithFreshKeys(size: 100, digest: SHA256Digest.of(bytes))
        clock.advance(2 * 3600)
        #expect(try relay.sweep() == 1)
        let left = try FileManager.default.contentsOfDirectory(atPath: temp.path).filter { $0 != "src" }.sorted()
        #expect(left == ["r-\(fresh.recipients[0].idText).json", "s-\(fresh.sender.idText).json"])
    }

    @Test("a vanished folder is a transient 'unavailable' error")
    func vanished() async throws {
        let temp = try TempFolder()
        let relay = FolderRelay(root: temp.file("gone"))
        do {
            _ = try await relay.create(ChunkCreateRequest(size: 1, digest: [UInt8](repeating: 0, count: 32), senderKey: [UInt8](repeating: 1, count: 32), recipientKeys: []))
            Issue.record("create succeeded on a missing folder")
        } catch let error as RelayError {
            #expect(error.isTransient)
        }
    }
}
