import Foundation
import Synchronization
import Testing
import SXCore
import SXTestSupport
@testable import SXTransfer

/// What a receive tells the relays once the file is verified (XFTP `FACK`): every replica, several at
/// once, and a relay that cannot be reached is not asked again in the run. A cancel's deletions
/// (`FDEL`) go side by side too.
@Suite(.ownThreads)
struct AcknowledgementTests {
    /// Counts acknowledgements and how many were in flight at once; each takes `delay`, or fails as
    /// an unreachable relay does.
    final class AcknowledgingRelay: PassThroughRelay {
        let inner: any ChunkRelay
        let delay: Duration
        let unreachable: Bool
        private let state = Mutex<(calls: Int, inFlight: Int, most: Int, ids: [[UInt8]])>((0, 0, 0, []))

        init(_ inner: any ChunkRelay, delay: Duration = .milliseconds(30), unreachable: Bool = false) {
            self.inner = inner
            self.delay = delay
            self.unreachable = unreachable
        }

        var calls: Int { state.withLock { $0.calls } }
        var mostAtOnce: Int { state.withLock { $0.most } }
        var acknowledged: [[UInt8]] { state.withLock { $0.ids } }

        func delete(_ sender: ChunkReplica) async throws {
            state.withLock { $0.calls += 1; $0.inFlight += 1; $0.most = max($0.most, $0.inFlight) }
            defer { state.withLock { $0.inFlight -= 1 } }
            try await Task.sleep(for: delay)
            if unreachable { throw RelayError.unavailable(relay: address.description, reason: "test: no route") }
            try await inner.delete(sender)
        }

        func acknowledge(_ recipient: ChunkReplica) async throws {
            state.withLock { $0.calls += 1; $0.inFlight += 1; $0.most = max($0.most, $0.inFlight) }
            defer { state.withLock { $0.inFlight -= 1 } }
            try await Task.sleep(for: delay)
            if unreachable { throw RelayError.unavailable(relay: address.description, reason: "test: no route") }
            state.withLock { $0.ids.append(recipient.id) }
        }
    }

    func receive(_ f: TransferFixture, _ relays: [any ChunkRelay], description: FileDescription, inFlight: Int = 16) async throws {
        var options = TransferReceiver.Options(destination: f.temp.file("inbox"), tempRoot: f.temp.file("recv-tmp"), policy: f.fastPolicy)
        options.acknowledgementsInFlight = inFlight
        let byAddress = Dictionary(uniqueKeysWithValues: relays.map { ($0.address, $0) })
        _ = try await TransferReceiver(options: options, relays: { address in try #require(byAddress[address]) }).receive(description, path: "d.yaml")
        #expect(try f.temp.read("inbox/report.pdf") == f.content)
    }

    @Test("every chunk's replica is acknowledged, several at once")
    func everyReplicaSideBySide() async throws {
        let f = try TransferFixture()
        let folder = FolderRelay(root: f.relayRoot)
        let description = try FileDescription.load(try await f.sender(folder).send(file: f.source).recipientDescriptions[0])
        #expect(description.chunks.count >= 3)
        let relay = AcknowledgingRelay(folder)
        // A second copy of each chunk, on another relay (descriptions may list several): the first
        // copy is downloaded, and both are acknowledged.
        try FileManager.default.createDirectory(atPath: f.temp.file("relay-2"), withIntermediateDirectories: true)
        let second = AcknowledgingRelay(FolderRelay(root: f.temp.file("relay-2")))
        var twice = description
        for i in twice.chunks.indices {
            twice.chunks[i].replicas.append(.init(server: second.address, replica: ChunkReplica(id: Array(repeating: UInt8(i), count: 16), key: .generate())))
        }
        try await receive(f, [relay, second], description: twice)
        #expect(Set(relay.acknowledged) == Set(description.chunks.map { $0.replicas[0].replica.id }))
        #expect(Set(second.acknowledged) == Set(twice.chunks.map { $0.replicas[1].replica.id }))
        #expect(relay.mostAtOnce == description.chunks.count, "\(relay.mostAtOnce) at once")
    }

    @Test("a relay that cannot be reached is asked once; the file is received all the same")
    func anUnreachableRelayIsAskedOnce() async throws {
        let f = try TransferFixture()
        let folder = FolderRelay(root: f.relayRoot)
        let description = try FileDescription.load(try await f.sender(folder).send(file: f.source).recipientDescriptions[0])
        let relay = AcknowledgingRelay(folder, unreachable: true)
        try await receive(f, [relay], description: description, inFlight: 1)
        #expect(relay.calls == 1)
    }

    @Test("a cancel deletes every replica side by side; one that fails is reported once all were tried")
    func cancelSideBySide() async throws {
        let f = try TransferFixture()
        let folder = FolderRelay(root: f.relayRoot)
        let sent = try await f.sender(folder).send(file: f.source)
        let description = try FileDescription.load(sent.senderDescription)
        let relay = AcknowledgingRelay(folder)
        let deleted = try await TransferSender.cancel(description, path: "s.yaml", relays: { _ in relay })
        #expect(deleted == description.chunks.count && relay.mostAtOnce == description.chunks.count)
        #expect(try f.relayDataFiles().isEmpty)

        // A second relay that cannot be reached holds four more copies of each chunk: every copy on
        // the first relay is deleted, and once the second is found unreachable (three attempts) its
        // copies not yet asked for fail at once; the cancel fails with that relay's sentence.
        try FileManager.default.createDirectory(atPath: f.temp.file("relay-2"), withIntermediateDirectories: true)
        let down = AcknowledgingRelay(FolderRelay(root: f.temp.file("relay-2")), delay: .milliseconds(1), unreachable: true)
        var twice = description
        for i in twice.chunks.indices {
            for copy in 0..<4 {
                twice.chunks[i].replicas.append(.init(server: down.address, replica: ChunkReplica(id: Array(repeating: UInt8(i * 4 + copy), count: 16),
                                                                                                  key: .generate())))
            }
        }
        let again = AcknowledgingRelay(folder)
        let byAddress: [RelayAddress: any ChunkRelay] = [folder.address: again, down.address: down]
        await #expect(throws: RelayError.unavailable(relay: down.address.description, reason: "test: no route")) {
            try await TransferSender.cancel(twice, path: "s.yaml", relays: { try #require(byAddress[$0]) },
                                            policy: TransferPolicy(attempts: 3, firstBackoff: .milliseconds(1), maxBackoff: .milliseconds(2)))
        }
        let copies = 4 * description.chunks.count
        #expect(copies > 16 && again.calls == description.chunks.count)
        #expect(down.calls >= 3 && down.calls < 3 * copies, "\(down.calls) attempts for \(copies) copies")
    }
}
