import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// How sxkit tells a temp file or folder that a run left behind (killed, `kill -9` included) from one
/// that a live run is still using: a live run holds an exclusive `flock` on each of its temps (a
/// file through its own descriptor, a folder through a descriptor of the folder) for as long as it
/// uses it, and the kernel drops that lock when the process ends, however it ends. A temp whose lock
/// can be taken is stale.
///
/// A sweeper takes the lock itself before removing, so it never removes a live run's temp; a run
/// that has just created a temp checks, once it holds the lock, that no sweeper removed it in the
/// instant between creating and locking (`claim`), and creates another if one did.
public enum TempOwnership {
    /// Locks a temp this process has just created (`fd` open on it, `path` its name). False when a
    /// sweeper removed it before the lock was taken: the caller creates another.
    public static func claim(_ fd: Int32, path: String) -> Bool {
        // A file system without flock (rare) cannot say stale from live: the temp is used unlocked,
        // and sweepers that cannot lock leave it alone.
        guard flock(fd, LOCK_EX) == 0 else { return true }
        return stillNamed(fd, path)
    }

    public enum Claim: Sendable { case claimed, busy, gone }

    /// Like `claim`, for a temp that another run may be using at the same moment (a receive's work
    /// folder is named after the file, so two receives of one file share it): does not wait for a
    /// live run's lock but answers `.busy`; `.gone` when a run removed it before the lock was taken.
    public static func tryClaim(_ fd: Int32, path: String) -> Claim {
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return errno == EWOULDBLOCK ? .busy : .claimed }
        return stillNamed(fd, path) ? .claimed : .gone
    }

    /// Lets go of a lock taken by `claim` or `tryClaim` and closes the descriptor. The lock is undone
    /// explicitly, not left to `close`: a child that another thread is spawning at that instant holds
    /// a copy of every descriptor from its clone until its exec, close-on-exec ones included, and a
    /// lock dropped only by `close` would last as long as that copy (a receive run right after
    /// another in one process was refused as "in progress" that way).
    public static func release(_ fd: Int32) {
        guard fd >= 0 else { return }
        flock(fd, LOCK_UN)
        close(fd)
    }

    /// The locked descriptor still names `path` (nothing removed or replaced it before the lock).
    private static func stillNamed(_ fd: Int32, _ path: String) -> Bool {
        var held = stat(), named = stat()
        return fstat(fd, &held) == 0 && held.st_nlink > 0 && lstat(path, &named) == 0
            && held.st_dev == named.st_dev && held.st_ino == named.st_ino
    }

    /// True when `path` is a file or folder no live run holds (see the type's description). A symlink,
    /// a device, something this user cannot open, or a name that is gone is never stale.
    public static func isStale(_ path: String) -> Bool {
        withStaleLock(path) { _ in true } ?? false
    }

    /// Removes `path` (a file, or a folder with everything in it) when it is stale, holding its lock
    /// while doing so. Returns the bytes of the files removed, or nil when it was live or gone.
    @discardableResult
    public static func removeIfStale(_ path: String) -> Int64? {
        withStaleLock(path) { st -> Int64? in
            if st.st_mode & S_IFMT == S_IFDIR {
                let bytes = folderBytes(path)
                try? Folders.remove(path)
                return POSIXFile.linkStatus(path) == nil ? bytes : nil
            }
            return unlink(path) == 0 ? Int64(st.st_size) : nil
        } ?? nil
    }

    /// Removes the stale entries of `folder` whose names start with `prefix` and pass `accept`;
    /// returns how many went.
    @discardableResult
    public static func sweep(folder: String, prefix: String, accept: (String) -> Bool = { _ in true }) -> Int {
        var removed = 0
        for name in staleCandidates(folder: folder, prefix: prefix) where accept(name) {
            if removeIfStale(Path.join(folder, name)) != nil { removed += 1 }
        }
        return removed
    }

    /// Names in `folder` that start with `prefix` (unsorted; none when the folder cannot be read).
    public static func staleCandidates(folder: String, prefix: String) -> [String] {
        ((try? Folders.names(in: folder)) ?? []).filter { $0.hasPrefix(prefix) }
    }

    /// Runs `body` while holding the lock of `path`, when it is a stale file or folder; nil otherwise.
    public static func withStaleLock<T>(_ path: String, _ body: (stat) -> T) -> T? {
        guard let first = POSIXFile.linkStatus(path) else { return nil }
        let kind = first.st_mode & S_IFMT
        guard kind == S_IFREG || kind == S_IFDIR else { return nil }
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_nlink > 0, st.st_mode & S_IFMT == kind,
              st.st_uid == getuid(), flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
        // The name still names what was locked (not replaced in between).
        guard let now = POSIXFile.linkStatus(path), now.st_dev == st.st_dev, now.st_ino == st.st_ino else { return nil }
        return body(st)
    }

    private static func folderBytes(_ path: String) -> Int64 {
        Folders.totalFileBytes(path)
    }
}

/// The temps this process holds right now (AtomicFileWriter's temp files, PrivateFolders), so that a
/// run told to stop (SIGINT, SIGTERM, SIGHUP) removes them before it ends. Never prints.
public enum LiveTemps {
    private struct State {
        var next = 0
        var paths: [Int: String] = [:]
    }

    private static let state = Mutex(State())

    /// Remembers `path`; returns the token that forgets it.
    public static func add(_ path: String) -> Int {
        state.withLock { s in
            s.next += 1
            s.paths[s.next] = path
            return s.next
        }
    }

    public static func remove(_ token: Int) {
        _ = state.withLock { $0.paths.removeValue(forKey: token) }
    }

    /// The paths held now (for tests).
    public static var paths: [String] { state.withLock { Array($0.paths.values) } }

    /// Removes every temp held now (files unlinked, folders with everything in them) and forgets
    /// them. For a process about to end on a signal: nothing is published after this.
    @discardableResult
    public static func removeAll() -> Int {
        let paths = state.withLock { s in
            defer { s.paths = [:] }
            return Array(s.paths.values)
        }
        for path in paths {
            if let st = POSIXFile.linkStatus(path), st.st_mode & S_IFMT == S_IFDIR {
                try? Folders.remove(path)
            } else {
                unlink(path)
            }
        }
        return paths.count
    }
}
