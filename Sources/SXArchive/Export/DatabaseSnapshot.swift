import SXCore
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// A database file held still while its bytes are copied, so that the copy is one consistent state.
///
/// Steps: open read-write with the passphrase, checkpoint the WAL into the main file and empty it
/// (`wal_checkpoint(TRUNCATE)`), then hold a read transaction while the main file is read. Why that is
/// enough: in WAL mode, with the WAL empty when our read began, no checkpoint can copy any later frame
/// into the main file while we read (a checkpoint never writes past the oldest reader's snapshot), so
/// the main file alone is the whole database and does not change; in rollback-journal mode (real
/// profiles': the core sets no journal mode) our SHARED lock keeps every writer from committing. A
/// write transaction in progress elsewhere is waited for, then refused (the app is running). The bytes
/// are copied as they are, still encrypted.
struct DatabaseSnapshot {
    let path: String
    let passphrase: SecretBytes
    /// How long each SQLite call waits for another connection's lock.
    var busyTimeoutMilliseconds = 3000
    /// How many times a checkpoint that found another writer is tried again.
    var checkpointAttempts = 3

    /// Runs `read` with a descriptor of the database file, positioned nowhere (use pread) and the
    /// size of the consistent state, while that state is held.
    func hold<T>(_ read: (_ fd: Int32, _ size: Int64) throws -> T) throws -> T {
        // The descriptor is opened before SQLite's and closed only after SQLite's connection is gone:
        // POSIX record locks belong to the process, and closing ANY descriptor of the file drops all
        // of them, which would silently release SQLite's read lock in the middle of the copy.
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        POSIXFile.adviseSequential(fd)
        return try withConnection { connection in
            try checkpoint(connection)
            try waitForWriters(connection)
            try connection.execute("BEGIN")
            do {
                // A statement that reads the schema takes the read lock (a BEGIN alone takes none).
                _ = try connection.scalarInt("SELECT count(*) FROM sqlite_master")
                var st = stat()
                guard fstat(fd, &st) == 0 else { throw FileSystemError("read the status of", path: path) }
                let result = try read(fd, Int64(st.st_size))
                try connection.execute("COMMIT")
                return result
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
    }

    private func withConnection<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        do {
            let (connection, _) = try DatabaseOpener.open(path, passphrase: passphrase, mode: .readWrite) {
                try $0.busyTimeout(ms: busyTimeoutMilliseconds)
            }
            return try body(connection)
        } catch let error as DatabaseError where error.isBusy {
            throw writerFailure
        }
    }

    /// `PRAGMA wal_checkpoint(TRUNCATE)` reports busy (first column 1) or fails with SQLITE_BUSY when
    /// another connection is writing; a short burst of writing is waited out, a long one is an error
    /// the user can act on. In rollback-journal mode the pragma does nothing and reports 0.
    private func checkpoint(_ connection: DatabaseConnection) throws {
        for attempt in 1...max(1, checkpointAttempts) {
            let busy: Bool
            do {
                busy = try connection.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)") != 0
            } catch let error as DatabaseError where error.isBusy {
                busy = true
            }
            if !busy { return }
            if attempt < checkpointAttempts { usleep(300_000) }
        }
        throw writerFailure
    }

    /// A write transaction in progress elsewhere means the app is running. In WAL mode the checkpoint
    /// already waited for it; in rollback-journal mode (the core's: it sets no journal mode) the
    /// checkpoint does nothing, so the write lock itself is asked for and given back at once
    /// (`BEGIN IMMEDIATE` writes nothing to disk), with the same patience.
    private func waitForWriters(_ connection: DatabaseConnection) throws {
        for attempt in 1...max(1, checkpointAttempts) {
            do {
                try connection.execute("BEGIN IMMEDIATE")
                try connection.execute("ROLLBACK")
                return
            } catch let error as DatabaseError where error.isBusy {
                if attempt < checkpointAttempts { usleep(300_000) }
            }
        }
        throw writerFailure
    }

    private var writerFailure: ArchiveFailure {
        ArchiveFailure.exportSource(path: path, problem: .beingWritten)
    }
}

extension DatabaseError {
    /// SQLITE_BUSY or SQLITE_LOCKED: another connection holds a lock we need.
    var isBusy: Bool { code == 5 || code == 6 }
}
