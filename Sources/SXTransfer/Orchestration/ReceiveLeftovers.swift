import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// What a killed `transfer receive` can leave, and how the next run deals with it (issue 15, item 10):
/// the partial plaintext temp file in the destination folder is removed once no live run holds it; a
/// work folder is locked while a run uses it, its half-written `.part` chunks are removed when a run
/// takes it over, and an empty one is removed when the run fails or by the next run.
enum ReceiveLeftovers {
    /// The temp file a receive decrypts into, in the destination folder (AtomicFileWriter's name for "incoming").
    static let incomingPrefix = AtomicFileWriter.tempPrefix + "incoming."
    static let workPrefix = "sxkit-receive-"

    /// Removes what killed receives left in `folder` (the destination) and `tempRoot`; a live run's are kept.
    static func sweep(destination folder: String, tempRoot: String) {
        TempOwnership.sweep(folder: folder, prefix: incomingPrefix) { $0.utf8.count == incomingPrefix.utf8.count + 6 }
        for name in TempOwnership.staleCandidates(folder: tempRoot, prefix: workPrefix) {
            let path = Path.join(tempRoot, name)
            _ = TempOwnership.withStaleLock(path) { st in
                if st.st_mode & S_IFMT == S_IFDIR { removeParts(in: path); rmdir(path) }
            }
        }
    }

    /// Creates and locks the work folder for this run; returns the descriptor holding the lock. A
    /// second receive of the same file while the first runs is refused: it would write into the
    /// first one's folder, and the first removes that folder when it finishes.
    static func hold(_ work: String) throws -> Int32 {
        for _ in 0..<5 {
            try Folders.create(work, permissions: 0o700)
            let fd = open(work, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            guard fd >= 0 else { throw FileSystemError("open", path: work) }
            switch TempOwnership.tryClaim(fd, path: work) {
            case .claimed:
                removeParts(in: work)
                return fd
            case .busy:
                close(fd)
                throw TransferError.receiveInProgress(workFolder: work)
            case .gone:
                close(fd)  // a run that had just finished removed it: make it again
            }
        }
        throw FileSystemError("lock", path: work, code: EAGAIN)
    }

    /// After a failed run: the work folder goes when it holds no downloaded chunk; the lock is let go.
    static func release(_ work: String, fd: Int32, failed: Bool) {
        if failed {
            removeParts(in: work)
            rmdir(work)  // only when empty: verified chunks are kept for a rerun to resume from
        }
        TempOwnership.release(fd)
    }

    /// Half-written chunks (`chunk-N.part`) of a run that was killed while writing them.
    static func removeParts(in work: String) {
        for name in TempOwnership.staleCandidates(folder: work, prefix: "chunk-") where name.hasSuffix(".part") {
            unlink(Path.join(work, name))
        }
    }
}
