import Foundation
import Synchronization
import SXCore
import SXTestSupport
@testable import SXTransfer

/// A test relay that changes some operations and hands the others to `inner` unchanged.
protocol PassThroughRelay: ChunkRelay {
    var inner: any ChunkRelay { get }
}

extension PassThroughRelay {
    var address: RelayAddress { inner.address }
    func create(_ request: ChunkCreateRequest) async throws -> CreatedChunk { try await inner.create(request) }
    func upload(_ sender: ChunkReplica, from file: String, offset: Int64, length: Int64) async throws {
        try await inner.upload(sender, from: file, offset: offset, length: length)
    }
    func upload(_ sender: ChunkReplica, bytes: [UInt8]) async throws { try await inner.upload(sender, bytes: bytes) }
    func download(_ recipient: ChunkReplica, into buffer: AlignedBuffer) async throws { try await inner.download(recipient, into: buffer) }
    func delete(_ sender: ChunkReplica) async throws { try await inner.delete(sender) }
    func acknowledge(_ recipient: ChunkReplica) async throws { try await inner.acknowledge(recipient) }
}

/// Wraps a relay, counts operations, and can fail (as "unavailable": relay gone) from the Nth
/// operation of a kind on, or corrupt the first downloads.
final class FaultyRelay: PassThroughRelay {
    enum Operation: Sendable { case create, upload, download, delete }
    let inner: any ChunkRelay
    private let counts = Mutex<[Operation: Int]>([:])
    /// Operations of this kind fail once this many have succeeded.
    private let failAfter: Mutex<(Operation, Int)?>
    /// How many downloads to corrupt (one byte flipped) before behaving.
    private let corruptDownloads: Mutex<Int>
    /// Recipient ids acknowledged: an XFTP server forgets them (`FACK`), and so does this relay when
    /// `forgetsAcknowledged`.
    private let acknowledged = Mutex<Set<[UInt8]>>([])
    private let forgetsAcknowledged: Bool

    init(_ inner: any ChunkRelay, failAfter: (Operation, Int)? = nil, corruptDownloads: Int = 0, forgetsAcknowledged: Bool = false) {
        self.inner = inner
        self.failAfter = Mutex(failAfter)
        self.corruptDownloads = Mutex(corruptDownloads)
        self.forgetsAcknowledged = forgetsAcknowledged
    }

    var acknowledgedCount: Int { acknowledged.withLock { $0.count } }

    func acknowledge(_ recipient: ChunkReplica) async throws {
        acknowledged.withLock { _ = $0.insert(recipient.id) }
        try await inner.acknowledge(recipient)
    }

    /// Operations of a kind that succeeded.
    func count(_ op: Operation) -> Int { counts.withLock { $0[op, default: 0] } }
    /// Operations of a kind asked for, failed or not.
    func attempts(_ op: Operation) -> Int { tried.withLock { $0[op, default: 0] } }
    private let tried = Mutex<[Operation: Int]>([:])
    func heal() { failAfter.withLock { $0 = nil } }

    private func begin(_ op: Operation) throws {
        tried.withLock { $0[op, default: 0] += 1 }
        try counts.withLock { counts in
            if let (kind, limit) = failAfter.withLock({ $0 }), kind == op, counts[op, default: 0] >= limit {
                throw RelayError.unavailable(relay: address.description, reason: "test: relay stopped")
            }
            counts[op, default: 0] += 1
        }
    }

    func create(_ request: ChunkCreateRequest) async throws -> CreatedChunk {
        try begin(.create)
        return try await inner.create(request)
    }

    func upload(_ sender: ChunkReplica, from file: String, offset: Int64, length: Int64) async throws {
        try begin(.upload)
        try await inner.upload(sender, from: file, offset: offset, length: length)
    }

    func upload(_ sender: ChunkReplica, bytes: [UInt8]) async throws {
        try begin(.upload)
        try await inner.upload(sender, bytes: bytes)
    }

    func download(_ recipient: ChunkReplica, into buffer: AlignedBuffer) async throws {
        if forgetsAcknowledged, acknowledged.withLock({ $0.contains(recipient.id) }) {
            throw RelayError.chunkNotFound(relay: address.description, id: Hex.encode(recipient.id))
        }
        try begin(.download)
        try await inner.download(recipient, into: buffer)
        let corrupt = corruptDownloads.withLock { n in defer { n = max(0, n - 1) }; return n > 0 }
        if corrupt {
            buffer.withMutableBytes { $0[$0.count / 2] ^= 0xFF }
        }
    }

    func delete(_ sender: ChunkReplica) async throws {
        try begin(.delete)
        try await inner.delete(sender)
    }
}

/// Collects events from worker tasks.
final class EventLog: Sendable {
    private let events = Mutex<[TransferEvent]>([])
    var handler: TransferEventHandler { { [self] e in events.withLock { $0.append(e) } } }
    var all: [TransferEvent] { events.withLock { $0 } }
    var types: [String] { all.map(\.type) }
}

/// A temp folder with a relay folder, a source file, and sender and receiver work areas.
struct TransferFixture {
    let temp: TempFolder
    let relayRoot: String
    let source: String
    let content: [UInt8]

    /// Default size: 700 000 bytes → 3 chunks of 256 KiB (or 2 + small ones): several chunks, still fast.
    init(size: Int = 700_000, name: String = "report.pdf") throws {
        temp = try TempFolder("sxkit-transfer")
        relayRoot = temp.file("relay")
        try FileManager.default.createDirectory(atPath: relayRoot, withIntermediateDirectories: true)
        for folder in ["send-tmp", "recv-tmp", "descriptions", "inbox"] {
            try FileManager.default.createDirectory(atPath: temp.file(folder), withIntermediateDirectories: true)
        }
        var generator = SplitMix64(seed: UInt64(size))
        content = (0..<size).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        source = try temp.write(name, content)
    }

    var fastPolicy: TransferPolicy { TransferPolicy(parallelChunks: 2, attempts: 2, firstBackoff: .milliseconds(1), maxBackoff: .milliseconds(2)) }

    /// `replacing`: descriptions of an earlier send of the same file are replaced (`--force`).
    func sender(_ relay: any ChunkRelay, recipients: Int = 1, replacing: Bool = false) -> TransferSender {
        var options = TransferSender.Options(recipients: recipients, descriptionFolder: temp.file("descriptions"),
                                             tempRoot: temp.file("send-tmp"), policy: fastPolicy)
        options.outputPolicy = OutputPolicy(replaceExisting: replacing)
        return TransferSender(relay: relay, options: options)
    }

    func receiver(_ relay: any ChunkRelay, destination: String? = nil) -> TransferReceiver {
        TransferReceiver(options: .init(destination: destination ?? temp.file("inbox"), tempRoot: temp.file("recv-tmp"), policy: fastPolicy),
                         relays: { _ in relay })
    }

    func inbox() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: temp.file("inbox")).sorted() }

    /// The relay's data files (complete chunks).
    func relayDataFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: relayRoot).filter { $0.hasPrefix("d-") }.map { Path.join(relayRoot, $0) }
    }
}
