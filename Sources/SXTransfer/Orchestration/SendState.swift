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
        var recipients: [[String]]?  // [id, base64url key] per recipient
        var uploaded = false
    }

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

    static func load(_ path: String) throws -> SendState? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let bytes = try FileBytes.read(path, limit: 64 << 20)
        do {
            return try JSONDecoder().decode(SendState.self, from: Data(bytes))
        } catch {
            throw TransferError.stateMismatch(path: path, reason: "it cannot be read: \(error)")
        }
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

/// Serialises state changes from parallel chunk workers and saves after each.
actor SendStateStore {
    private(set) var state: SendState
    let path: String

    init(_ state: SendState, path: String) {
        self.state = state
        self.path = path
    }

    func update(_ body: (inout SendState) -> Void) throws {
        body(&state)
        try state.save(path)
    }
}
