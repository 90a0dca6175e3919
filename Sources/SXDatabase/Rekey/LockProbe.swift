import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Asks the kernel whether another process holds one of SQLite's locks on a database, without
/// opening it with SQLite (recovery has no passphrase) and without taking a lock.
public enum LockProbe {
    /// SQLite's lock bytes in the database file: PENDING, RESERVED, then the 510 SHARED bytes.
    static let databaseLockRange: (start: Int, length: Int) = (0x4000_0000, 512)
    /// The -shm lock slots: eight WAL locks, then the "a connection is open" (DMS) byte.
    static let sharedMemoryLockRange: (start: Int, length: Int) = (120, 9)

    /// True when another process has the database (or its WAL index) locked. Call it only while this
    /// process holds no SQLite connection to the file: closing the probe's descriptor would drop them.
    public static func isInUse(_ database: String) -> Bool {
        held(database, databaseLockRange) || held(DataDirectoryNames.shm(of: database), sharedMemoryLockRange)
    }

    private static func held(_ path: String, _ range: (start: Int, length: Int)) -> Bool {
        guard let fd = try? POSIXFile.open(path, flags: O_RDONLY) else { return false }
        defer { close(fd) }
        var probe = Glibc.flock()
        probe.l_type = Int16(F_WRLCK)
        probe.l_whence = Int16(SEEK_SET)
        probe.l_start = off_t(range.start)
        probe.l_len = off_t(range.length)
        guard fcntl(fd, F_GETLK, &probe) == 0 else { return false }
        return probe.l_type != Int16(F_UNLCK)
    }
}
