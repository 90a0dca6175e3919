import Dispatch
import SXCore
import Synchronization
import SXCrypto

/// The SHA-512 of the whole encrypted file, computed while the chunks are still downloading: chunks
/// arrive in any order, and each is fed to the digest as soon as every chunk before it is here. The
/// hashing runs on a thread of its own, so when the last chunk lands the digest is nearly done
/// instead of needing a second pass over the file.
///
/// A chunk comes either in memory, just downloaded (then its buffer goes back to `pool` once hashed),
/// or as a file already on disk from an interrupted run (then it is read back).
final class InOrderFileHasher: Sendable {
    private struct Progress {
        var next = 0
        var ready: [Int: AlignedBuffer?] = [:]
    }

    private let segments: [String]
    private let pool: ChunkBufferPool?
    private let queue = DispatchQueue(label: "sxkit.transfer.file-digest")
    private let progress = Mutex(Progress())
    /// Touched only on `queue`.
    private let state = HashState()

    init(segments: [String], pool: ChunkBufferPool? = nil) {
        self.segments = segments
        self.pool = pool
    }

    /// Chunk `index` is complete and verified: its bytes are in `buffer`, or on disk when nil.
    func ready(_ index: Int, buffer: AlignedBuffer? = nil) {
        // Enqueued under the lock: two chunks landing at once must not enqueue their runs out of order.
        progress.withLock { p in
            p.ready[index] = .some(buffer)
            while let entry = p.ready.removeValue(forKey: p.next) {
                let path = segments[p.next]
                let work = HashWork(buffer: entry, path: path)
                queue.async { [state, pool] in
                    if let buffer = work.buffer {
                        state.add(buffer.bytes)
                        pool?.give(buffer)
                    } else {
                        state.add(work.path)
                    }
                }
                p.next += 1
            }
        }
    }

    /// The digest, once every chunk was `ready`; throws what reading a chunk failed with.
    func finish() throws -> [UInt8] {
        try queue.sync { [state] in try state.finish() }
    }
}

private struct HashWork: Sendable {
    let buffer: AlignedBuffer?
    let path: String
}

private final class HashState: @unchecked Sendable {
    private var digest = SHA512Digest()
    private var failure: (any Error)?

    func add(_ bytes: UnsafeRawBufferPointer) {
        guard failure == nil else { return }
        digest.update(bytes)
    }

    func add(_ path: String) {
        guard failure == nil else { return }
        do { try TransferReceiver.hash(path) { digest.update($0) } } catch { failure = error }
    }

    func finish() throws -> [UInt8] {
        if let failure { throw failure }
        return digest.finish()
    }
}
