import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXTransfer

/// A send over several relays when one cannot be reached: its chunks are created on the next relay,
/// as SimpleX's agent tries the user's other servers (simplexmq `Agent.hs` 464-485), and the state
/// records where each went so that a resumed send uploads it there.
@Suite(.ownThreads)
struct SendFailoverTests {
    struct TwoRelays {
        let f: TransferFixture
        let a: FolderRelay
        let b: FolderRelay

        init(size: Int = 700_000) throws {
            f = try TransferFixture(size: size)
            for name in ["relay-a", "relay-b"] { try FileManager.default.createDirectory(atPath: f.temp.file(name), withIntermediateDirectories: true) }
            a = FolderRelay(root: f.temp.file("relay-a"))
            b = FolderRelay(root: f.temp.file("relay-b"))
        }

        func sender(_ relays: [any ChunkRelay]) -> TransferSender {
            TransferSender(relays: relays, options: .init(recipients: 1, descriptionFolder: f.temp.file("descriptions"),
                                                          tempRoot: f.temp.file("send-tmp"), policy: f.fastPolicy))
        }

        /// Receives through the relays by address, as the CLI does.
        func receive(_ description: String) async throws -> [UInt8] {
            let relays: [RelayAddress: any ChunkRelay] = [a.address: a, b.address: b]
            let receiver = TransferReceiver(options: .init(destination: f.temp.file("inbox"), tempRoot: f.temp.file("recv-tmp"), policy: f.fastPolicy),
                                            relays: { address in try #require(relays[address]) })
            let got = try await receiver.receive(try FileDescription.load(description), path: description)
            return try FileBytes.read(got.path, limit: 8 << 20)
        }

        func chunkCount(_ relay: FolderRelay) throws -> Int {
            try FileManager.default.contentsOfDirectory(atPath: relay.root).filter { $0.hasPrefix("d-") }.count
        }
    }

    @Test("a relay that cannot be reached hands its chunks to the next; the descriptions name where they went")
    func unreachableRelayHandsItsChunksOn() async throws {
        let t = try TwoRelays()
        let down = FaultyRelay(t.b, failAfter: (.create, 0))
        let log = EventLog()
        var policy = t.f.fastPolicy
        policy.parallelChunks = 1
        let sender = TransferSender(relays: [t.a, down], options: .init(recipients: 1, descriptionFolder: t.f.temp.file("descriptions"),
                                                                       tempRoot: t.f.temp.file("send-tmp"), policy: policy))
        let sent = try await sender.send(file: t.f.source, events: log.handler)
        let description = try FileDescription.load(sent.recipientDescriptions[0])
        #expect(description.chunks.count >= 4, "chunks 2 and 4 are `b`'s")
        #expect(description.chunks.allSatisfy { $0.replicas.map(\.server) == [t.a.address] }, "every chunk on the relay that answered")
        #expect(try t.chunkCount(t.a) == description.chunks.count && t.chunkCount(t.b) == 0)
        // The unreachable relay is tried once with the retry policy, then last: its later chunks go to `a` directly.
        let warnings = log.all.compactMap { if case .sndFileWarning(let w) = $0 { w } else { nil } }
        #expect(warnings.filter { $0.contains("creating it on \(t.a.address) instead") }.count == 1, "\(warnings)")
        #expect(down.attempts(.create) == 1, "asked for chunk 2 only: chunk 4 went to `a` first")
        #expect(try await t.receive(sent.recipientDescriptions[0]) == t.f.content)
    }

    @Test("a resumed send uploads each chunk to the relay it was created on, not the one it would have gone to first")
    func aResumedSendFindsChunksWhereTheyWent() async throws {
        let t = try TwoRelays()
        // Chunk 1 belongs to `a`, which cannot be reached: it is created on `b`, whose upload fails.
        let downA = FaultyRelay(t.a, failAfter: (.create, 0))
        let stoppingB = FaultyRelay(t.b, failAfter: (.upload, 0))
        var policy = t.f.fastPolicy
        policy.parallelChunks = 1
        let first = TransferSender(relays: [downA, stoppingB], options: .init(recipients: 1, descriptionFolder: t.f.temp.file("descriptions"),
                                                                             tempRoot: t.f.temp.file("send-tmp"), policy: policy))
        await #expect(throws: RelayError.unavailable(relay: t.b.address.description, reason: "test: relay stopped")) { try await first.send(file: t.f.source) }
        #expect(stoppingB.count(.create) == 1 && downA.attempts(.create) == 1)
        // The rerun, with both relays working: chunk 1 is uploaded to `b`, where it was created (`a`
        // has no such chunk); the others are created on their own relays.
        let sent = try await t.sender([t.a, t.b]).send(file: t.f.source)
        let description = try FileDescription.load(sent.recipientDescriptions[0])
        let n = description.chunks.count
        #expect(n >= 3 && sent.chunksUploaded == n)
        let expected = [t.b.address] + (1..<max(n, 1)).map { $0 % 2 == 0 ? t.a.address : t.b.address }
        #expect(description.chunks.map { $0.replicas[0].server } == expected)
        #expect(try await t.receive(sent.recipientDescriptions[0]) == t.f.content)
    }

    @Test("a relay that answers with a refusal stops the send with its sentence; no other relay is tried")
    func aRefusalIsNotHandedOn() async throws {
        let t = try TwoRelays(size: 5000)
        let full = RefusingRelay(t.a)
        await #expect(throws: RelayError.storageFull(relay: t.a.address.description)) { try await t.sender([full, t.b]).send(file: t.f.source) }
        #expect(try t.chunkCount(t.b) == 0)
    }
}

/// A relay that refuses every chunk as full (XFTP `QUOTA`).
final class RefusingRelay: PassThroughRelay {
    let inner: any ChunkRelay
    init(_ inner: any ChunkRelay) { self.inner = inner }
    func create(_ request: ChunkCreateRequest) async throws -> CreatedChunk { throw RelayError.storageFull(relay: address.description) }
}
