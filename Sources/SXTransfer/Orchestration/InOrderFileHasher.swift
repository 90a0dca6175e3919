import Dispatch
import Synchronization
import SXCrypto

/// The SHA-512 of the whole encrypted file, computed while the chunks are still downloading: chunks
/// arrive in any order, and each is fed to the digest as soon as every chunk before it is here. The
/// hashing runs on a thread of its own, so when the last chunk lands the digest is nearly done
/// instead of needing a second pass over the file.
final class InOrderFileHasher: Sendable {
    private struct Progress {
        var next = 0
        var ready: Set<Int> = []
    }

    private let segments: [String]
    private let queue = DispatchQueue(label: "sxkit.transfer.file-digest")
    private let progress = Mutex(Progress())
    /// Touched only on `queue`.
    private let state = HashState()

    init(segments: [String]) {
        self.segments = segments
    }

    /// Chunk `index` is complete and verified on disk.
    func ready(_ index: Int) {
        // Enqueued under the lock: two chunks landing at once must not enqueue their runs out of order.
        progress.withLock { p in
            p.ready.insert(index)
            while p.ready.remove(p.next) != nil {
                let path = segments[p.next]
                queue.async { [state] in state.add(path) }
                p.next += 1
            }
        }
    }

    /// The digest, once every chunk was `ready`; throws what reading a chunk failed with.
    func finish() throws -> [UInt8] {
        try queue.sync { [state] in try state.finish() }
    }
}

private final class HashState: @unchecked Sendable {
    private var digest = SHA512Digest()
    private var failure: (any Error)?

    func add(_ path: String) {
        guard failure == nil else { return }
        do { try TransferReceiver.hash(path) { digest.update($0) } } catch { failure = error }
    }

    func finish() throws -> [UInt8] {
        if let failure { throw failure }
        return digest.finish()
    }
}
