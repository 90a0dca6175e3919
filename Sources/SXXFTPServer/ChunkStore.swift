#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SXCore
import SXCrypto
import SXXFTP

/// The chunks a server holds, in memory, with the store log behind every change and the files
/// folder holding the bytes. Ids are 16 random bytes (simplexmq `Server.hs` 676-679, `fileIdSize`).
final class ChunkStore: Sendable {
    struct State {
        var chunks: [[UInt8]: StoredChunk] = [:]
        /// Recipient id → sender id.
        var recipientIndex: [[UInt8]: [UInt8]] = [:]
        /// Bytes of chunks uploaded or being uploaded (the quota's measure, simplexmq `usedStorage`).
        var usedBytes: Int64 = 0
        /// Chunks whose upload is in progress (by sender id): one at a time each.
        var uploading: Set<[UInt8]> = []
    }

    static let idLength = 16

    private let state = Mutex(State())
    /// Bytes of upload bodies read (`XFTPServer.uploadBytesRead`).
    let uploadBytesRead = Atomic<Int64>(0)
    let log: StoreLog
    let filesFolder: String

    /// Replays the log at `logPath`, drops what it does not account for from `filesFolder` (partial
    /// uploads, files of chunks deleted or never confirmed), compacts the log, and opens it.
    init(logPath: String, filesFolder: String) throws {
        self.filesFolder = filesFolder
        var restored = State()
        for record in try StoreLog.read(path: logPath) { Self.apply(record, to: &restored) }
        // A file is served only if its FPUT was logged and its bytes are all there.
        for (sid, chunk) in restored.chunks {
            guard let name = chunk.fileName else { continue }
            var info = stat()
            if stat(Path.join(filesFolder, name), &info) != 0 || Int64(info.st_size) != Int64(chunk.info.size) {
                restored.chunks[sid]?.fileName = nil
            }
        }
        let kept = Set(restored.chunks.values.compactMap(\.fileName))
        for name in try Folders.names(in: filesFolder) where !kept.contains(name) {
            _ = unlink(Path.join(filesFolder, name))
        }
        restored.usedBytes = restored.chunks.values.reduce(0) { $0 + ($1.fileName == nil ? 0 : Int64($1.info.size)) }
        try StoreLog.rewrite(path: logPath, records: Self.records(of: restored))
        log = try StoreLog(path: logPath)
        state.withLock { $0 = restored }
    }

    private static func apply(_ record: StoreLogRecord, to state: inout State) {
        switch record {
        case .new(let sid, let info, let createdAt):
            state.chunks[sid] = StoredChunk(senderId: sid, info: info, createdAt: createdAt, recipients: [:], fileName: nil)
        case .addRecipients(let sid, let recipients):
            guard state.chunks[sid] != nil else { return }
            for (rid, key) in recipients {
                state.chunks[sid]?.recipients[rid] = key
                state.recipientIndex[rid] = sid
            }
        case .put(let sid, let name):
            state.chunks[sid]?.fileName = name
        case .delete(let sid):
            if let chunk = state.chunks.removeValue(forKey: sid) {
                for rid in chunk.recipients.keys { state.recipientIndex[rid] = nil }
            }
        case .ack(let rid):
            if let sid = state.recipientIndex.removeValue(forKey: rid) { state.chunks[sid]?.recipients[rid] = nil }
        }
    }

    private static func records(of state: State) -> [StoreLogRecord] {
        state.chunks.values.sorted { $0.createdAt < $1.createdAt || ($0.createdAt == $1.createdAt && $0.senderId.lexicographicallyPrecedes($1.senderId)) }
            .flatMap { chunk -> [StoreLogRecord] in
                var records: [StoreLogRecord] = [.new(senderId: chunk.senderId, info: chunk.info, createdAt: chunk.createdAt)]
                if !chunk.recipients.isEmpty {
                    records.append(.addRecipients(senderId: chunk.senderId, recipients: chunk.recipients.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { ($0.key, $0.value) }))
                }
                if let name = chunk.fileName { records.append(.put(senderId: chunk.senderId, fileName: name)) }
                return records
            }
    }

    private func freshId(_ taken: (State, [UInt8]) -> Bool) -> [UInt8] {
        while true {
            var id = [UInt8](repeating: 0, count: Self.idLength)
            id.withUnsafeMutableBytes { SodiumRuntime.randomBytes($0) }
            if !state.withLock({ taken($0, id) }) { return id }
        }
    }

    /// FNEW: a chunk and its recipients, logged before it is answered.
    func create(info: XFTPFileInfo, recipientKeys: [XFTPPublicKey], now: Int64) throws -> (senderId: [UInt8], recipientIds: [[UInt8]]) {
        let sid = freshId { $0.chunks[$1] != nil || $0.recipientIndex[$1] != nil }
        let recipients = recipientKeys.map { key in (freshId { $0.chunks[$1] != nil || $0.recipientIndex[$1] != nil }, key) }
        let createdAt = now / 3600 * 3600
        try log.append(.new(senderId: sid, info: info, createdAt: createdAt))
        try log.append(.addRecipients(senderId: sid, recipients: recipients))
        state.withLock { state in
            Self.apply(.new(senderId: sid, info: info, createdAt: createdAt), to: &state)
            Self.apply(.addRecipients(senderId: sid, recipients: recipients), to: &state)
        }
        return (sid, recipients.map(\.0))
    }

    /// FADD.
    func addRecipients(senderId: [UInt8], keys: [XFTPPublicKey]) throws -> [[UInt8]]? {
        guard state.withLock({ $0.chunks[senderId] != nil }) else { return nil }
        let recipients = keys.map { key in (freshId { $0.chunks[$1] != nil || $0.recipientIndex[$1] != nil }, key) }
        try log.append(.addRecipients(senderId: senderId, recipients: recipients))
        state.withLock { Self.apply(.addRecipients(senderId: senderId, recipients: recipients), to: &$0) }
        return recipients.map(\.0)
    }

    /// The chunk and the key that must have signed a command of `party` on `id`.
    func lookup(_ party: XFTPParty, id: [UInt8]) -> (chunk: StoredChunk, key: XFTPPublicKey)? {
        state.withLock { state in
            switch party {
            case .sender:
                guard let chunk = state.chunks[id] else { return nil }
                return (chunk, chunk.info.senderKey)
            case .recipient:
                guard let sid = state.recipientIndex[id], let chunk = state.chunks[sid], let key = chunk.recipients[id] else { return nil }
                return (chunk, key)
            }
        }
    }

    /// Reserves `size` bytes of the quota; false when they do not fit.
    func reserve(_ size: Int64, quota: Int64?) -> Bool {
        state.withLock { state in
            if let quota, state.usedBytes + size > quota { return false }
            state.usedBytes += size
            return true
        }
    }

    func release(_ size: Int64) { state.withLock { $0.usedBytes -= size } }

    /// Marks the chunk's upload as in progress; false when another one already is.
    func beginUpload(senderId: [UInt8]) -> Bool { state.withLock { $0.uploading.insert(senderId).inserted } }

    func endUpload(senderId: [UInt8]) { _ = state.withLock { $0.uploading.remove(senderId) } }

    var usedBytes: Int64 { state.withLock { $0.usedBytes } }

    /// FPUT done: the file is complete and verified under `name`; logged before it is answered.
    /// False when the chunk was deleted meanwhile.
    func markUploaded(senderId: [UInt8], name: String) throws -> Bool {
        guard state.withLock({ $0.chunks[senderId] != nil }) else { return false }
        try log.append(.put(senderId: senderId, fileName: name))
        state.withLock { Self.apply(.put(senderId: senderId, fileName: name), to: &$0) }
        return true
    }

    /// FDEL (and expiry): removes the chunk and its file.
    func delete(senderId: [UInt8]) throws {
        try log.append(.delete(senderId: senderId))
        let removed = state.withLock { state -> StoredChunk? in
            let chunk = state.chunks[senderId]
            Self.apply(.delete(senderId: senderId), to: &state)
            if let chunk, chunk.fileName != nil { state.usedBytes -= Int64(chunk.info.size) }
            return chunk
        }
        if let name = removed?.fileName { _ = unlink(Path.join(filesFolder, name)) }
    }

    /// FACK: the recipient is done with the chunk.
    func acknowledge(recipientId: [UInt8]) throws {
        try log.append(.ack(recipientId: recipientId))
        state.withLock { Self.apply(.ack(recipientId: recipientId), to: &$0) }
    }

    /// Chunks created before `cutoff` (seconds since 1970), as simplexmq expires them (`Store.hs`
    /// 172: `createdAt + fileTimePrecision < old`).
    func expired(before cutoff: Int64) -> [[UInt8]] {
        state.withLock { $0.chunks.values.filter { $0.createdAt + 3600 < cutoff }.map(\.senderId) }
    }

    var count: Int { state.withLock { $0.chunks.count } }
}
