import Foundation
import SXCore
import SXCrypto
#if canImport(Glibc)
import Glibc
#endif

/// A relay that is just a folder on any mounted file system (USB disk, network share). Each chunk is
/// a data file under a random id; small metadata files hold its size, SHA-256, creation time and the
/// SHA-256 of each key (never the keys). Nothing needs listing the folder except the expiry sweep.
///
/// Layout: `s-<senderId>.json` (chunk metadata), `r-<recipientId>.json` (a recipient's link to the
/// chunk), `d-<senderId>` (the bytes, present only once completely uploaded and verified); ids are
/// 16 random bytes, as XFTP servers mint them, written base64url. The metadata keeps the SHA-256 of
/// each replica's Ed25519 public key; a replica is used by presenting its private key.
public struct FolderRelay: ChunkRelay {
    public static let defaultExpiry: TimeInterval = 48 * 3600
    /// The largest chunk relays accept (the biggest server chunk size).
    public static let defaultMaxChunkSize: Int64 = 4 * 1024 * 1024

    public let root: String
    public let expiry: TimeInterval
    public let maxChunkSize: Int64
    private let now: @Sendable () -> Date

    public var address: RelayAddress { .sxkit(root) }

    public init(root: String, expiry: TimeInterval = FolderRelay.defaultExpiry, maxChunkSize: Int64 = FolderRelay.defaultMaxChunkSize,
                now: @escaping @Sendable () -> Date = { Date() }) {
        self.root = Path.absolute(root)
        self.expiry = expiry
        self.maxChunkSize = maxChunkSize
        self.now = now
    }

    struct ChunkRecord: Codable {
        var size: Int64
        var digest: String
        var senderKeyHash: String
        var created: Double
        var recipients: [String]
    }

    struct RecipientLink: Codable {
        var chunk: String
        var keyHash: String
    }

    // MARK: ChunkRelay

    public func create(_ request: ChunkCreateRequest) async throws -> CreatedChunk {
        try checkMounted()
        guard request.size > 0, request.size <= maxChunkSize else {
            throw RelayError.sizeRejected(relay: name, id: "(new)", size: request.size, limit: maxChunkSize)
        }
        guard request.digest.count == 32, request.senderKey.count == Ed25519.publicKeyLength,
              request.recipientKeys.allSatisfy({ $0.count == Ed25519.publicKeyLength }) else {
            throw RelayError.protocolError(relay: name, reason: "a chunk needs a 32-byte digest and Ed25519 public keys")
        }
        let senderId = Self.newId()
        let recipientIds = request.recipientKeys.map { _ in Self.newId() }
        let record = ChunkRecord(size: request.size, digest: Hex.encode(request.digest), senderKeyHash: Self.keyHash(request.senderKey),
                                 created: now().timeIntervalSince1970, recipients: recipientIds.map(Base64URL.encode))
        // Recipient links first: a chunk record never points at links that are not there.
        for (id, key) in zip(recipientIds, request.recipientKeys) {
            try writeJSON(RecipientLink(chunk: Base64URL.encode(senderId), keyHash: Self.keyHash(key)), to: linkPath(Base64URL.encode(id)))
        }
        try writeJSON(record, to: recordPath(Base64URL.encode(senderId)))
        return CreatedChunk(senderId: senderId, recipientIds: recipientIds)
    }

    public func upload(_ sender: ChunkReplica, from file: String, offset: Int64, length: Int64) async throws {
        try await Self.offload { try uploadNow(sender, from: file, offset: offset, length: length) }
    }

    public func upload(_ sender: ChunkReplica, bytes: [UInt8]) async throws {
        try await Self.offload {
            try uploadNow(sender, length: Int64(bytes.count)) { into, at in
                let n = min(into.count, bytes.count - Int(at))
                bytes.withUnsafeBytes { into.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[Int(at)..<Int(at) + n])) }
                return n
            }
        }
    }

    public func download(_ recipient: ChunkReplica, into buffer: AlignedBuffer) async throws {
        try await Self.offload { try downloadNow(recipient, into: buffer) }
    }

    /// Copying and fsyncing chunks blocks; it runs on a dispatch thread, not on one of the few
    /// threads that run every async task, so that parallel chunks really overlap their I/O.
    private static func offload(_ body: @escaping @Sendable () throws -> Void) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do { try body(); continuation.resume() } catch { continuation.resume(throwing: error) }
            }
        }
    }

    private func uploadNow(_ sender: ChunkReplica, from file: String, offset: Int64, length: Int64) throws {
        let source = try relayCall { try POSIXFile.open(file, flags: O_RDONLY) }
        defer { close(source) }
        try uploadNow(sender, length: length) { into, at in try POSIXFile.pread(source, into: into, at: offset + at, path: file) }
    }

    /// Stores `length` bytes that `read(buffer, position)` supplies (returning how many it put in).
    private func uploadNow(_ sender: ChunkReplica, length: Int64, read: (UnsafeMutableRawBufferPointer, Int64) throws -> Int) throws {
        let record = try senderRecord(sender)
        guard length == record.size else { throw RelayError.sizeRejected(relay: name, id: sender.idText, size: length, limit: record.size) }
        let destination = dataPath(sender.idText)
        if let st = POSIXFile.linkStatus(destination), Int64(st.st_size) == record.size { return }  // complete already
        let writer = try relayCall { try AtomicFileWriter(destination: destination, mode: 0o600) }
        writer.bypassPageCache = true  // a recipient reads it later, on another machine or from the disk anyway
        var digest = SHA256Digest()
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var done: Int64 = 0
        do {
            while done < length {
                let want = Int(min(Int64(buffer.count), length - done))
                let n = try buffer.withUnsafeMutableBytes { try read(UnsafeMutableRawBufferPointer(rebasing: $0[0..<want]), done) }
                guard n == want else { throw RelayError.sizeRejected(relay: name, id: sender.idText, size: done + Int64(n), limit: record.size) }
                try buffer.withUnsafeBytes { b in
                    let slice = UnsafeRawBufferPointer(rebasing: b[0..<n])
                    digest.update(slice)
                    try relayCall { try writer.write(slice) }
                }
                done += Int64(n)
            }
            guard Hex.encode(digest.finish()) == record.digest else { throw RelayError.digestMismatch(relay: name, id: sender.idText) }
            try relayCall { try writer.commit() }
        } catch {
            writer.abort()
            throw error
        }
    }

    private func downloadNow(_ recipient: ChunkReplica, into buffer: AlignedBuffer) throws {
        try checkMounted()
        let id = recipient.idText
        guard let link: RecipientLink = try readJSON(linkPath(id)) else {
            throw RelayError.chunkNotFound(relay: name, id: id)
        }
        guard Self.keyMatches(recipient.key, link.keyHash) else {
            throw RelayError.wrongKey(relay: name, id: id)
        }
        guard let record: ChunkRecord = try readJSON(recordPath(link.chunk)), try !expireIfDue(link.chunk, record) else {
            throw RelayError.chunkNotFound(relay: name, id: id)
        }
        let source = dataPath(link.chunk)
        guard let st = POSIXFile.linkStatus(source) else { throw RelayError.chunkNotFound(relay: name, id: id) }
        guard Int64(st.st_size) <= Int64(buffer.capacity) else {
            throw RelayError.sizeRejected(relay: name, id: id, size: Int64(st.st_size), limit: Int64(buffer.capacity))
        }
        // Around the page cache: the chunk was written that way, and is read once.
        try relayCall { try POSIXFile.readFileDirect(source, into: buffer) }
    }

    public func delete(_ sender: ChunkReplica) async throws {
        try checkMounted()
        guard let record: ChunkRecord = try readJSON(recordPath(sender.idText)) else { return }
        guard Self.keyMatches(sender.key, record.senderKeyHash) else {
            throw RelayError.wrongKey(relay: name, id: sender.idText)
        }
        remove(sender.idText, record)
    }

    // MARK: Expiry

    /// Removes every chunk older than the expiry; returns how many. Run by whoever keeps the folder.
    @discardableResult
    public func sweep() throws -> Int {
        try checkMounted()
        var removed = 0
        for name in try Folders.names(in: root) where name.hasPrefix("s-") && name.hasSuffix(".json") {
            let id = String(name.dropFirst(2).dropLast(5))
            if let record: ChunkRecord = try? readJSON(recordPath(id)), try expireIfDue(id, record) { removed += 1 }
        }
        return removed
    }

    private func expireIfDue(_ id: String, _ record: ChunkRecord) throws -> Bool {
        guard now().timeIntervalSince1970 - record.created >= expiry else { return false }
        remove(id, record)
        return true
    }

    /// Data first (so nothing is downloadable), then the links, then the record.
    private func remove(_ id: String, _ record: ChunkRecord) {
        unlink(dataPath(id))
        for recipient in record.recipients { unlink(linkPath(recipient)) }
        unlink(recordPath(id))
        try? POSIXFile.fsyncDirectory(root)
    }

    // MARK: Files

    private func recordPath(_ id: String) -> String { Path.join(root, "s-\(id).json") }
    private func linkPath(_ id: String) -> String { Path.join(root, "r-\(id).json") }
    private func dataPath(_ id: String) -> String { Path.join(root, "d-\(id)") }

    private func senderRecord(_ sender: ChunkReplica) throws -> ChunkRecord {
        try checkMounted()
        let id = sender.idText
        guard Self.isId(id), let record: ChunkRecord = try readJSON(recordPath(id)) else {
            throw RelayError.chunkNotFound(relay: name, id: id)
        }
        guard Self.keyMatches(sender.key, record.senderKeyHash) else {
            throw RelayError.wrongKey(relay: name, id: id)
        }
        if try expireIfDue(id, record) { throw RelayError.chunkNotFound(relay: name, id: id) }
        return record
    }

    /// A folder that vanished (unmounted disk, share gone) is a transient condition worth retrying.
    private func checkMounted() throws {
        var st = stat()
        guard stat(root, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR else {
            throw RelayError.unavailable(relay: name, reason: "the folder is not there (disk unmounted or share disconnected?)")
        }
    }

    private func readJSON<T: Decodable>(_ path: String) throws -> T? {
        let name = Path.basename(path)
        guard Self.isId(String(name.dropFirst(2).split(separator: ".").first ?? "")) else { return nil }
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: 1 << 20)
        } catch let error as FileSystemError where error.code == ENOENT {
            return nil
        } catch {
            try checkMounted()
            throw RelayError.unavailable(relay: name, reason: ErrorCause.text(of: error))
        }
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch {
            throw RelayError.protocolError(relay: name, reason: "'\(path)' is damaged: \(ErrorCause.text(of: error))")
        }
    }

    private func writeJSON<T: Encodable>(_ value: T, to path: String) throws {
        let data = try JSONEncoder().encode(value)
        try relayCall { try AtomicFileWriter.write([UInt8](data), to: path, mode: 0o600) }
    }

    /// Maps file-system failures to relay errors: no space is `storageFull`, a vanished folder or any
    /// other I/O failure `unavailable` (worth retrying).
    private func relayCall<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as FileSystemError {
            if error.isNoSpace { throw RelayError.storageFull(relay: name) }
            throw RelayError.unavailable(relay: name, reason: error.description)
        }
    }

    /// The relay's name in errors.
    private var name: String { root }

    /// 16 random bytes, as an XFTP server mints a chunk id.
    static func newId() -> [UInt8] { SodiumRuntime.randomBytes(count: idLength) }
    static let idLength = 16

    /// Text that can name a relay file: padded base64url of a short id (so never a path elsewhere).
    static func isId(_ text: String) -> Bool {
        text.utf8.count <= 88 && text.utf8.allSatisfy { ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2D || $0 == 0x5F || $0 == 0x3D }
            && Base64URL.decode(text).map { !$0.isEmpty } == true
    }

    static func keyHash(_ publicKey: [UInt8]) -> String { Hex.encode(SHA256Digest.of(publicKey)) }

    /// Whether the private key's public half is the one recorded (in constant time).
    static func keyMatches(_ key: ReplicaKey, _ recordedHash: String) -> Bool {
        guard let publicKey = key.ed25519PublicKey else { return false }
        return ConstantTime.equal(Hex.decode(keyHash(publicKey)), Hex.decode(recordedHash))
    }
}
