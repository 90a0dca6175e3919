import Dispatch
import SXCore
import Synchronization
import SXCrypto

/// Takes the downloaded chunks in file order while later ones are still downloading: the SHA-512 of
/// the whole encrypted file on one thread, and, when given a decryptor, the decryption on another.
/// Chunks arrive in any order; each goes to both as soon as every chunk before it is here, so when
/// the last chunk lands the digest and the plaintext are nearly done instead of needing a second
/// pass over the file read back from disk.
///
/// A chunk comes either in memory, just downloaded (its buffer goes back to `pool` once both have
/// taken it), or as a file already on disk from an interrupted run (then each reads it back).
final class InOrderFileHasher: Sendable {
    private struct Progress {
        var next = 0
        var ready: [Int: ChunkWork] = [:]
    }

    private let segments: [String]
    private let pool: ChunkBufferPool?
    private let hashing = DispatchQueue(label: "sxkit.transfer.file-digest")
    private let decrypting = DispatchQueue(label: "sxkit.transfer.decrypt-in-order")
    private let progress = Mutex(Progress())
    /// Touched only on `hashing`.
    private let hash = HashState()
    /// Touched only on `decrypting`.
    private let plaintext: DecryptState?

    init(segments: [String], pool: ChunkBufferPool? = nil, decryptor: TransferFileDecryptor? = nil) {
        self.segments = segments
        self.pool = pool
        plaintext = decryptor.map(DecryptState.init)
    }

    /// Chunk `index` is complete and verified: its bytes are in `buffer`, or on disk when nil.
    ///
    /// `alsoReading`: the caller goes on reading `buffer` (writing it to disk while the stages take
    /// it); the buffer goes back to the pool only once the returned function was called too (always
    /// call it, also when the write fails). Without it the function does nothing.
    @discardableResult
    func ready(_ index: Int, buffer: AlignedBuffer? = nil, alsoReading: Bool = false) -> @Sendable () -> Void {
        let stages = plaintext == nil ? 1 : 2
        let work = ChunkWork(buffer: buffer, path: segments[index], users: stages + (alsoReading ? 1 : 0))
        // Enqueued under the lock: two chunks landing at once must not enqueue their runs out of order.
        progress.withLock { p in
            p.ready[index] = work
            while let work = p.ready.removeValue(forKey: p.next) {
                hashing.async { [hash, pool] in
                    hash.add(work)
                    work.done(pool)
                }
                if let plaintext {
                    decrypting.async { [pool] in
                        plaintext.add(work)
                        work.done(pool)
                    }
                }
                p.next += 1
            }
        }
        guard alsoReading else { return {} }
        return { [pool] in work.done(pool) }
    }

    /// Waits until both stages are idle (after a failure, before their output goes away).
    func drain() {
        hashing.sync {}
        decrypting.sync {}
    }

    /// The digest, once every chunk was `ready`; throws what reading a chunk failed with.
    func finish() throws -> [UInt8] {
        try hashing.sync { [hash] in try hash.finish() }
    }

    /// The decrypted file's header, once every chunk was `ready`: checks the tag; throws what reading,
    /// decrypting or writing failed with. Only with a decryptor.
    func finishDecryption() throws -> TransferFileHeader {
        guard let plaintext else { preconditionFailure("no decryptor") }
        return try decrypting.sync { try plaintext.finish() }
    }
}

/// A chunk on its way to both stages; its buffer goes back to the pool after the last one.
private final class ChunkWork: Sendable {
    let buffer: AlignedBuffer?
    let path: String
    private let users: Atomic<Int>

    init(buffer: AlignedBuffer?, path: String, users: Int) {
        self.buffer = buffer
        self.path = path
        self.users = Atomic(users)
    }

    func done(_ pool: ChunkBufferPool?) {
        guard users.subtract(1, ordering: .acquiringAndReleasing).newValue == 0, let buffer else { return }
        pool?.give(buffer)
    }
}

private final class HashState: @unchecked Sendable {
    private var digest = SHA512Digest()
    private var failure: (any Error)?

    func add(_ work: ChunkWork) {
        guard failure == nil else { return }
        if let buffer = work.buffer {
            digest.update(buffer.bytes)
        } else {
            do { try TransferReceiver.hash(work.path) { digest.update($0) } } catch { failure = error }
        }
    }

    func finish() throws -> [UInt8] {
        if let failure { throw failure }
        return digest.finish()
    }
}

private final class DecryptState: @unchecked Sendable {
    private let decryptor: TransferFileDecryptor
    private var failure: (any Error)?

    init(_ decryptor: TransferFileDecryptor) { self.decryptor = decryptor }

    func add(_ work: ChunkWork) {
        guard failure == nil else { return }
        do {
            if let buffer = work.buffer {
                try decryptor.consume(buffer.bytes)
                // A receive killed here leaves partial plaintext in its temp file (the crash tests').
                CrashPoint.reach("transfer-receive-decrypted-chunk")
            } else {
                var caught: (any Error)?
                try TransferReceiver.hash(work.path) { bytes in
                    guard caught == nil else { return }
                    do { try decryptor.consume(bytes) } catch { caught = error }
                }
                if let caught { throw caught }
            }
        } catch {
            failure = error
        }
    }

    func finish() throws -> TransferFileHeader {
        if let failure { throw failure }
        return try decryptor.finish()
    }
}
