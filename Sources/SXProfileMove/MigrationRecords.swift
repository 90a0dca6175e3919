import Foundation
import SXArchive
import SXCore

/// What a migration's finished import leaves beside its work folder once the work folder is gone: the
/// archive it imported, the problems it reported, and the state of the databases it left (each
/// database file and its `-wal`, `-shm` and `-journal` companions, by device, inode, size and times).
///
/// Written before the import's mark is removed, so there is no moment at which a kill leaves neither:
/// without it a run killed after removing the mark, before it exited, left a rerun nothing to tell the
/// profile it brought from any other, and the rerun refused it as a profile already there. With it, a
/// rerun of the same migration into the same data directory, killed or not, reports the import done
/// (and its problems again) as long as the databases are as the import left them. Once the app has
/// written to them or holds them open (a write changes the times; an open WAL database has its `-shm`)
/// the record no longer matches: the rerun is an ordinary import into a data directory that holds a
/// profile, and the next import there replaces the record. `clean --temp` removes it with the rest of
/// the temp folder.
struct ImportDone: MigrationRecord, Equatable {
    static let suffix = ".imported"

    struct FileState: Codable, Equatable {
        var name: String
        var device: UInt64
        var inode: UInt64
        var size: Int64
        var modifiedNanoseconds: Int64
        var changedNanoseconds: Int64
    }

    var archiveName: String
    var archiveBytes: Int64
    /// What the import reported as not imported (a rerun reports it again, with the same exit status).
    var archiveErrors: [ArchiveError]
    /// The database files and their companions that existed when the import finished.
    var files: [FileState]

    /// The companion files SQLite creates beside a database it opens or writes.
    static let companions = ["", "-wal", "-shm", "-journal"]

    static func files(of data: DataDirectory) -> [FileState] {
        data.databases.flatMap { database in
            companions.compactMap { suffix -> FileState? in
                let path = database + suffix
                guard let st = POSIXFile.linkStatus(path) else { return nil }
                return FileState(name: Path.basename(path), device: UInt64(st.st_dev), inode: UInt64(st.st_ino), size: Int64(st.st_size),
                                 modifiedNanoseconds: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec),
                                 changedNanoseconds: Int64(st.st_ctim.tv_sec) * 1_000_000_000 + Int64(st.st_ctim.tv_nsec))
            }
        }
    }

    init(archiveName: String, archiveBytes: Int64, archiveErrors: [ArchiveError], data: DataDirectory) {
        self.archiveName = archiveName
        self.archiveBytes = archiveBytes
        self.archiveErrors = archiveErrors
        files = Self.files(of: data)
    }

    /// Whether the data directory's databases are still exactly as the import left them.
    func matches(_ data: DataDirectory) -> Bool {
        files.contains { $0.name == Path.basename(data.chatDatabase) } && Self.files(of: data) == files
    }

    var isWhole: Bool { archiveBytes >= 0 && !archiveName.isEmpty && !files.isEmpty }
}

/// The mark a migration's import leaves beside its work folder from the moment it begins until the
/// work folder is gone: whether the data directory held a profile before it (then a finished import
/// left that profile's databases as `.bak`) and backups already (then the import refused), and the
/// archive it imports (for the report of a rerun that finds the archive already deleted). JSON, so
/// that any archive name (a sender chooses it) reads back as written.
struct ImportBegan: MigrationRecord, Equatable {
    static let suffix = ".import-began"
    var profileExisted: Bool
    var backupsExisted: Bool
    var archiveBytes: Int64
    var archiveName: String

    var isWhole: Bool { archiveBytes >= 0 && !archiveName.isEmpty }
}

/// A small private JSON file a migration's receive keeps beside its work folder (ImportBegan,
/// ImportDone): written atomically (0600), and read back only when whole, so that a torn or foreign
/// file is never taken for one.
protocol MigrationRecord: Codable {
    /// Whether the decoded fields make sense (a file of an older sxkit may decode and still not).
    var isWhole: Bool { get }
}

extension MigrationRecord {
    static func read(_ path: String) -> Self? {
        guard let bytes = try? FileBytes.read(path, limit: 64 << 10), let record = try? JSONDecoder().decode(Self.self, from: Data(bytes)),
              record.isWhole else { return nil }
        return record
    }

    func write(_ path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        try AtomicFileWriter.write(Array(try encoder.encode(self)) + [0x0A], to: path, mode: 0o600)
    }

    static func remove(_ path: String) { unlink(path) }
}
