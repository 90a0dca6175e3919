import Foundation
import Synchronization
import SXCore
import SXCrypto
import SXTransfer
#if canImport(Glibc)
import Glibc
#endif

/// The relay's chunks: bytes in `data/<senderId>`, metadata in `meta/<senderId>.json`, uploads in
/// progress in `tmp/`, all in one 0700 folder. An in-memory index (rebuilt from `meta/` at start)
/// answers lookups; the lock guards the index only, never a transfer of bytes.
final class ChunkStore: Sendable {
    let root: String
    private let configuration: RelayServerConfiguration
    private let state: Mutex<State>

    private struct Entry {
        var record: ChunkRecord
        /// Uploaded completely and verified: the only state in which it can be downloaded.
        var complete: Bool
    }

    private struct State {
        var chunks: [String: Entry] = [:]
        var senderOfRecipient: [String: String] = [:]
        /// Declared sizes of every chunk held, complete or not (reserved at create).
        var reservedBytes: Int64 = 0
    }

    var dataFolder: String { Path.join(root, "data") }
    var metaFolder: String { Path.join(root, "meta") }
    var tempFolder: String { Path.join(root, "tmp") }

    init(configuration: RelayServerConfiguration) throws {
        self.configuration = configuration
        root = Path.absolute(configuration.store)
        state = Mutex(State())
        for folder in [root, dataFolder, metaFolder, tempFolder] {
            if mkdir(folder, 0o700) != 0 && errno != EEXIST {
                throw RelayServerError.storeUnusable(path: folder, cause: String(cString: strerror(errno)))
            }
        }
        guard access(root, R_OK | W_OK | X_OK) == 0 else {
            throw RelayServerError.storeUnusable(path: root, cause: String(cString: strerror(errno)))
        }
        try load()
    }

    // MARK: Create

    func create(_ request: HTTPRelayWire.CreateRequest) throws(StoreFailure) -> HTTPRelayWire.CreateResponse {
        guard request.size > 0 else { throw .badRequest("size must be positive") }
        guard request.size <= configuration.maxChunkSize else { throw .tooLarge(limit: configuration.maxChunkSize) }
        guard let digest = Base64URL.decode(request.digest), digest.count == HTTPRelayWire.digestLength else {
            throw .badRequest("digest must be \(HTTPRelayWire.digestLength) bytes, base64url")
        }
        guard (1...HTTPRelayWire.maxRecipients).contains(request.recipientKeys.count) else {
            throw .badRequest("between 1 and \(HTTPRelayWire.maxRecipients) recipient keys are needed")
        }
        let keys = ([request.senderKey] + request.recipientKeys).map(Base64URL.decode)
        guard keys.allSatisfy({ $0?.count == HTTPRelayWire.keyLength }) else {
            throw .badRequest("keys must be \(HTTPRelayWire.keyLength) bytes, base64url")
        }
        let record = ChunkRecord(
            senderId: Self.newId(),
            senderKeyHash: ChunkRecord.keyHash(keys[0]!),
            recipients: keys.dropFirst().map { .init(id: Self.newId(), keyHash: ChunkRecord.keyHash($0!)) },
            size: request.size, digest: Base64URL.encode(digest), created: configuration.now())

        try state.withLock { (state: inout State) throws(StoreFailure) in
            guard state.reservedBytes + record.size <= configuration.maxStoreSize else { throw .full }
            state.reservedBytes += record.size
            state.chunks[record.senderId] = Entry(record: record, complete: false)
            for recipient in record.recipients { state.senderOfRecipient[recipient.id] = record.senderId }
        }
        do {
            let json = try JSONEncoder().encode(record)
            try AtomicFileWriter.write([UInt8](json), to: metaPath(record.senderId), mode: 0o600)
        } catch {
            _ = remove(record.senderId)
            throw (error as? FileSystemError)?.isNoSpace == true ? .full : .io(ErrorCause.text(of: error))
        }
        return .init(senderId: record.senderId, recipientIds: record.recipients.map(\.id))
    }

    // MARK: Access

    /// The chunk a sender key opens (for upload and delete), and whether its upload is complete.
    func authorizeSender(id: String, key: [UInt8]) throws(StoreFailure) -> (record: ChunkRecord, complete: Bool) {
        let entry = try live(id)
        guard ChunkRecord.keyMatches(key, storedHash: entry.record.senderKeyHash) else { throw .wrongKey }
        return (entry.record, entry.complete)
    }

    /// Opens a complete chunk for a recipient; the descriptor stays valid if it is deleted meanwhile.
    func openForDownload(id: String, key: [UInt8]) throws(StoreFailure) -> (fd: Int32, size: Int64) {
        let expired = state.withLock { state in
            state.senderOfRecipient[id].flatMap { state.chunks[$0] }.flatMap { isExpired($0.record) ? $0.record.senderId : nil }
        }
        if let expired {
            remove(expired)
            throw .notFound
        }
        return try state.withLock { (state: inout State) throws(StoreFailure) in
            guard let senderId = state.senderOfRecipient[id], let entry = state.chunks[senderId] else { throw .notFound }
            guard let recipient = entry.record.recipients.first(where: { $0.id == id }),
                  ChunkRecord.keyMatches(key, storedHash: recipient.keyHash) else { throw .wrongKey }
            guard entry.complete else { throw .notFound }
            let fd = open(dataPath(senderId), O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { throw .notFound }
            return (fd, entry.record.size)
        }
    }

    /// A fresh temp file for an upload (0600, in the store so the commit is a rename).
    func newUploadFile(for id: String) throws(StoreFailure) -> (fd: Int32, path: String) {
        var template = FileNameBytes.template(Path.join(tempFolder, "\(id).XXXXXX"))
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw errno == ENOSPC || errno == EDQUOT ? .full : .io(String(cString: strerror(errno))) }
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        return (fd, FileNameBytes.string(cString: template.withUnsafeBufferPointer { $0.baseAddress! }))
    }

    /// Publishes a verified, flushed upload: after this the chunk is downloadable. A chunk deleted
    /// or expired during the upload stays gone.
    func commitUpload(id: String, tempPath: String) throws(StoreFailure) {
        try state.withLock { (state: inout State) throws(StoreFailure) in
            guard let entry = state.chunks[id], !isExpired(entry.record) else { throw .notFound }
            guard rename(tempPath, dataPath(id)) == 0 else { throw .io(String(cString: strerror(errno))) }
            state.chunks[id]?.complete = true
        }
        try? POSIXFile.fsyncDirectory(dataFolder)
    }

    /// Removes a chunk for every recipient. Returns false when it was not there.
    @discardableResult
    func remove(_ senderId: String) -> Bool {
        let removed = state.withLock { state in Self.unindex(senderId, in: &state) }
        if removed {
            unlink(dataPath(senderId))
            unlink(metaPath(senderId))
        }
        return removed
    }

    /// Removes every expired chunk; returns how many.
    @discardableResult
    func sweep() -> Int {
        let expired = state.withLock { state in
            let ids = state.chunks.values.filter { isExpired($0.record) }.map(\.record.senderId)
            for id in ids { _ = Self.unindex(id, in: &state) }
            return ids
        }
        for id in expired {
            unlink(dataPath(id))
            unlink(metaPath(id))
        }
        return expired.count
    }

    var reservedBytes: Int64 { state.withLock { $0.reservedBytes } }

    // MARK: Internals

    private func live(_ senderId: String) throws(StoreFailure) -> Entry {
        let entry = state.withLock { $0.chunks[senderId] }
        guard let entry else { throw .notFound }
        if isExpired(entry.record) {
            remove(senderId)
            throw .notFound
        }
        return entry
    }

    private func isExpired(_ record: ChunkRecord) -> Bool {
        let (seconds, attoseconds) = configuration.expiry.components
        let lifetime = TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
        return record.created.addingTimeInterval(lifetime) <= configuration.now()
    }

    private static func unindex(_ senderId: String, in state: inout State) -> Bool {
        guard let entry = state.chunks.removeValue(forKey: senderId) else { return false }
        state.reservedBytes -= entry.record.size
        for recipient in entry.record.recipients { state.senderOfRecipient.removeValue(forKey: recipient.id) }
        return true
    }

    private func dataPath(_ id: String) -> String { Path.join(dataFolder, id) }
    private func metaPath(_ id: String) -> String { Path.join(metaFolder, id + ".json") }

    /// Rebuilds the index from `meta/`; drops what a crash or an old run left half-done.
    private func load() throws {
        // Uploads in progress when the last run stopped can never be completed: their senders retry.
        for name in (try? Folders.names(in: tempFolder)) ?? [] {
            unlink(Path.join(tempFolder, name))
        }
        let names = (try? Folders.names(in: metaFolder)) ?? []
        var loaded = State()
        for name in names where name.hasSuffix(".json") {
            let path = Path.join(metaFolder, name)
            guard let bytes = try? FileBytes.read(path, limit: 1 << 20),
                  let record = try? JSONDecoder().decode(ChunkRecord.self, from: Data(bytes)),
                  name == record.senderId + ".json", HTTPRelayWire.isWellFormedId(record.senderId) else {
                // Not ours or torn (AtomicFileWriter leaves only whole files, so this is foreign).
                continue
            }
            let size = POSIXFile.linkStatus(dataPath(record.senderId)).map { Int64($0.st_size) }
            loaded.chunks[record.senderId] = Entry(record: record, complete: size == record.size)
            loaded.reservedBytes += record.size
            for recipient in record.recipients { loaded.senderOfRecipient[recipient.id] = record.senderId }
        }
        state.withLock { $0 = loaded }
    }

    /// 16 random bytes (as an XFTP server mints ids), base64url: 24 characters with padding.
    static func newId() -> String {
        var bytes = [UInt8](repeating: 0, count: HTTPRelayWire.idLength)
        bytes.withUnsafeMutableBytes { SodiumRuntime.randomBytes($0) }
        return Base64URL.encode(bytes)
    }
}
