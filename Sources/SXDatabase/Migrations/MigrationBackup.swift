import CSQLCipher
#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// Where the copy made before migrating an existing database goes (FORMATS §4).
public enum MigrationBackupPolicy: Sendable, Equatable {
    /// `<db>.migration-backup` beside the database (`<db>.bak` belongs to the passphrase change).
    case besideDatabase
    /// This file.
    case at(String)
    /// No copy: only for callers that just created the database (nothing to lose) or keep their own.
    case none

    public static let suffix = DataDirectoryNames.migrationBackupSuffix

    /// The backup path for the database at `database`, or nil for `.none`.
    public func path(for database: String) -> String? {
        switch self {
        case .besideDatabase: database + Self.suffix
        case .at(let path): path
        case .none: nil
        }
    }
}

/// Copies a database file while its connection holds it still, so the copy is a complete state.
enum DatabaseBackup {
    /// Checkpoints the WAL into the main file (so the file alone holds every committed change), takes
    /// the write lock (so no one commits while the bytes are read), and writes the copy atomically,
    /// mode 0600: it holds the same data as the database. The copy opens with the same passphrase.
    static func copy(_ db: DatabaseConnection, to destination: String) throws {
        let checkpoint = try db.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        if case .integer(let busy)? = checkpoint.first?.first, busy != 0 {
            throw DatabaseError(operation: "checkpoint", code: SQLITE_BUSY,
                                message: "another connection is using the database, so its WAL could not be merged before the backup",
                                path: db.path)
        }
        try db.execute("BEGIN IMMEDIATE")
        defer { db.rollbackIfOpen() }
        let input = try POSIXFile.open(db.path, flags: O_RDONLY)
        defer { close(input) }
        let writer = try AtomicFileWriter(destination: destination, mode: 0o600)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try POSIXFile.read(input, into: &buffer, path: db.path)
            if n == 0 { break }
            try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        try writer.commit()
    }
}
