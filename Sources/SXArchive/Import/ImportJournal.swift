import Foundation
import SXCore

/// Where an import keeps its work inside the data directory: a staging folder (same file system as
/// the databases, so the swap is a rename) and a journal beside the chat database. While only the
/// staging folder exists, nothing of the data directory was touched and it is rolled back; once the
/// journal exists, the swap has begun and is finished forward.
public enum ImportFiles {
    public static let stagingName = DataDirectoryNames.importStagingName
    public static let journalSuffix = DataDirectoryNames.importJournalSuffix

    public static func staging(root: String) -> String { Path.join(root, stagingName) }
    public static func journal(root: String, prefix: String = DataDirectory.defaultPrefix) -> String {
        Path.join(root, prefix + "_chat.db" + journalSuffix)
    }
    /// Where an import moves the previous profile's files folder and wallpapers (`files/`,
    /// `wallpapers/` inside): `<root>/<prefix>_previous_<UTC time>`, a name not taken yet.
    public static func previousFolder(root: String, prefix: String = DataDirectory.defaultPrefix, now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
        let base = Path.join(root, prefix + "_previous_" + formatter.string(from: now))
        var candidate = base
        var n = 2
        while exists(candidate) {
            candidate = base + "-\(n)"
            n += 1
        }
        return candidate
    }

    /// The backup an import makes of a database it replaces; its companions follow SQLite's naming
    /// (`<db>.bak-wal`), so the backup opens with its own un-checkpointed frames.
    public static func backup(_ database: String) -> String { DataDirectoryNames.backup(of: database) }
    /// The companions of a database that belong with it when it moves.

    /// Staged layout: the databases at the top, files and wallpapers in their own folders.
    static func stagedFiles(_ staging: String) -> String { Path.join(staging, "files") }
    static func stagedWallpapers(_ staging: String) -> String { Path.join(staging, "wallpapers") }

    static func exists(_ path: String) -> Bool { POSIXFile.linkStatus(path) != nil }

    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("delete", path: path) }
    }

    static func move(_ source: String, to destination: String) throws {
        guard rename(source, destination) == 0 else { throw FileSystemError("move '\(source)' to", path: destination) }
    }

    /// Deletes a folder this program made, and everything in it.
    static func removeTree(_ path: String) throws {
        guard exists(path) else { return }
        try Folders.remove(path)
        try POSIXFile.fsyncDirectory(Path.parent(path))
    }
}

/// Written atomically and durably (0600) once everything is staged and flushed: the point of no
/// return. It names every path the swap touches, so recovery needs neither the archive nor options.
struct ImportJournal: Codable, Equatable {
    static let swapPhase = "swap"
    var phase: String
    /// The databases to replace, chat first.
    var databases: [String]
    var staging: String
    /// Nil when the data directory has no such folder (nothing was staged for it).
    var filesFolder: String?
    var wallpapersFolder: String?
    /// Where the previous files folder and wallpapers go (absent in journals of sxkit before 0.2.0).
    var previousFolder: String?
    /// The archive being imported (absent in older journals): a rerun of the same import finds its
    /// import finished by recovery and does not import it a second time.
    var archive: ImportedArchive?

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFileWriter.write(Array(try encoder.encode(self)), to: path, mode: 0o600)
    }

    static func read(_ path: String) throws -> ImportJournal {
        let journal: ImportJournal
        do {
            journal = try JSONDecoder().decode(ImportJournal.self, from: Data(try FileBytes.read(path, limit: 1 << 20)))
        } catch {
            throw ArchiveFailure.journalUnreadable(path: path, cause: ErrorCause.text(of: error))
        }
        guard journal.phase == swapPhase, journal.databases.count == 2 else {
            throw ArchiveFailure.journalPhaseUnknown(path: path, phase: journal.phase)
        }
        return journal
    }
}

/// An archive as the file system saw it when an import of it began: its resolved path, size and
/// modification time. The same three on a rerun mean the same archive (one rewritten in place gets a
/// new modification time), without reading it again.
public struct ImportedArchive: Codable, Equatable, Sendable {
    public var path: String
    public var bytes: Int64
    /// The modification time: seconds since the epoch, and nanoseconds.
    public var modifiedSeconds: Int64
    public var modifiedNanoseconds: Int64

    /// Nil when the archive cannot be examined (the import then fails on it with its own error).
    public static func of(_ path: String) -> ImportedArchive? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        guard let st = try? POSIXFile.status(String(cString: resolved)) else { return nil }
        return ImportedArchive(path: String(cString: resolved), bytes: Int64(st.st_size),
                               modifiedSeconds: Int64(st.st_mtim.tv_sec), modifiedNanoseconds: Int64(st.st_mtim.tv_nsec))
    }
}
