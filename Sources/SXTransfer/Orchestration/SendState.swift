import Foundation
import SXCore

/// What a send has done so far, saved (0600, atomically) in its work folder after every step, so
/// that a rerun of the same send continues instead of starting over.
struct SendState: Codable, Equatable {
    struct Chunk: Codable, Equatable {
        /// Known once the chunk was encrypted (and recorded when it was created on the relay).
        var digest: String?
        var senderId: String?
        var senderKey: String?
        var recipients: [[String]]?  // [base64url id, replica key text] per recipient
        var uploaded = false
        /// The relay the chunk was created on, by its place in the send's list of relays; nil in
        /// states written before a chunk could move to another relay (then chunk i's is i mod count).
        var relay: Int?
    }

    /// The layout of this record and its log. A later sxkit that changes what they mean raises it,
    /// and this one refuses to resume such a record instead of misreading it: a reader that ignored
    /// a field it did not know (as `relay` above would be) would upload a chunk to the wrong server.
    /// nil in records written before it was kept, which are format 1.
    var format: Int? = Self.currentFormat
    static let currentFormat = 1

    /// What the state belongs to: a rerun with any of these changed starts over.
    var source: String
    var sourceSize: Int64
    var sourceModified: Double
    /// When the send began (seconds since 1970); nil in states written before it was recorded.
    var started: Double?
    var relay: String
    var recipients: Int
    var fileName: String
    var key: String
    var nonce: String
    /// Known once the whole file was encrypted.
    var fileDigest: String?
    var sizes: [Int64]
    var chunks: [Chunk]

    /// The snapshot at `path` with the steps of its log (`path` + ".log") applied, or nil when there
    /// is no snapshot. A last log line cut short by a kill is ignored: its step is simply done again.
    static func load(_ path: String) throws -> SendState? {
        guard POSIXFile.exists(path) else { return nil }
        let bytes = try FileBytes.read(path, limit: 64 << 20)
        var state: SendState
        do {
            state = try JSONDecoder().decode(SendState.self, from: Data(bytes))
        } catch {
            throw TransferError.stateMismatch(path: path, reason: "it cannot be read: \(ErrorCause.text(of: error))")
        }
        if let format = state.format, format > currentFormat {
            throw TransferError.stateMismatch(path: path, reason: "it was written by a later sxkit, in state format \(format) where this one reads up to \(currentFormat); finish the send with that version")
        }
        let logPath = SendStateStore.logPath(path)
        guard POSIXFile.exists(logPath) else { return state }
        let log = try FileBytes.read(logPath, limit: 256 << 20)
        let lines = log.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true)
        // An empty log (a kill before the first step was written) has no torn line to drop.
        let complete = log.last == UInt8(ascii: "\n") ? lines.count : max(0, lines.count - 1)
        let decoder = JSONDecoder()
        for (n, line) in lines.prefix(complete).enumerated() {
            guard let step = try? decoder.decode(SendStep.self, from: Data(line)), state.chunks.indices.contains(step.chunk) else {
                throw TransferError.stateMismatch(path: logPath, reason: "line \(n + 1) is not a step of this send")
            }
            step.apply(to: &state)
        }
        return state
    }

    /// Atomic (temp + rename), not flushed: it must survive a killed process, which it does without
    /// fsync. After a power loss an older state only means some chunks are created and sent again.
    func save(_ path: String) throws {
        let writer = try AtomicFileWriter(destination: path, mode: 0o600)
        try writer.write([UInt8](try JSONEncoder().encode(self)))
        try writer.finishWriting(flush: false)
        try writer.publish(flushFolder: false)
    }
}

extension SendState {
    /// A replica as the state records it (base64url id, the key's description form); a state of an
    /// earlier sxkit (raw 32-byte keys) cannot be resumed, and says so.
    static func replica(id: String?, key: String?) throws -> ChunkReplica {
        guard let id, let idBytes = Base64URL.decode(id), let key, let der = Base64URL.decode(key), let replicaKey = ReplicaKey(der: der) else {
            throw TransferError.stateMismatch(path: "state.json", reason: "a chunk's replica was recorded by an earlier sxkit, without an Ed25519 key")
        }
        return ChunkReplica(id: idBytes, key: replicaKey)
    }
}

/// One step of one chunk, as a line of the state's log: created on the relay, or uploaded.
struct SendStep: Codable, Equatable {
    var chunk: Int
    var digest: String?
    var senderId: String?
    var senderKey: String?
    var recipients: [[String]]?
    var uploaded: Bool?
    var relay: Int?

    func apply(to state: inout SendState) {
        if let digest { state.chunks[chunk].digest = digest }
        if let senderId { state.chunks[chunk].senderId = senderId }
        if let senderKey { state.chunks[chunk].senderKey = senderKey }
        if let recipients { state.chunks[chunk].recipients = recipients }
        if let uploaded { state.chunks[chunk].uploaded = uploaded }
        if let relay { state.chunks[chunk].relay = relay }
    }
}

/// Serialises state changes from parallel chunk workers. Each step is appended to a log as one JSON
/// line with one write(2), which a killed process cannot half-do; rewriting the whole state after
/// every step made a 1 GiB send (256 chunks, two steps each) encode 20 MB of JSON.
actor SendStateStore {
    private(set) var state: SendState
    let path: String
    private let log: Int32
    private let encoder = JSONEncoder()

    static func logPath(_ path: String) -> String { path + ".log" }

    /// Saves `state` whole, then starts an empty log. A `fresh` state (a new send) drops the old log
    /// first, so a kill in between cannot leave another send's steps to be applied to it; a resumed
    /// one has taken the log's steps in, so they may stay until the snapshot has them.
    init(_ state: SendState, path: String, fresh: Bool) throws {
        let logPath = Self.logPath(path)
        if fresh { unlink(logPath) }
        try state.save(path)
        log = try POSIXFile.open(logPath, flags: O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC)
        self.state = state
        self.path = path
    }

    deinit { close(log) }

    /// Applies and logs one step.
    func record(_ step: SendStep) throws {
        step.apply(to: &state)
        var line = [UInt8](try encoder.encode(step))
        line.append(UInt8(ascii: "\n"))
        try line.withUnsafeBytes { try POSIXFile.writeAll(log, $0, path: Self.logPath(path)) }
    }

    /// Changes the state and saves it whole (the log's steps are in it; the next run's `init` empties the log).
    func update(_ body: (inout SendState) -> Void) throws {
        body(&state)
        try state.save(path)
    }
}
