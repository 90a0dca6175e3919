import Foundation
import SXArchive
import SXCore
import SXDatabase

/// A file (or the import staging folder) that an earlier operation left in the data directory.
public struct Leftover: Sendable, Codable, Equatable {
    /// Absolute path.
    public var path: String
    /// What left it, in a few words ("passphrase-change backup").
    public var kind: String
    public var count: Int
    public var bytes: Int64
    /// An interrupted passphrase change or archive import still needs it: never removed.
    public var neededForRecovery: Bool
}

/// An operation that was interrupted and still needs its files.
public struct Interruption: Sendable, Codable, Equatable {
    public var summary: String
    /// The operation whose recovery settles it.
    public var operation: InterruptedOperation
}

/// Finds the known leftover names (FORMATS §3, ImportJournal, AtomicFileWriter): beside each
/// database `.bak`, `.exported`, `.migration-backup` (each with SQLite companions), the rekey and
/// import journals, the import staging folder, and `.sxkit-tmp-*` temp files in the data directory's
/// top folder (those inside the files and assets folders are found by the folder walks).
enum LeftoverFinder {
    static func interruptions(_ dir: DataDirectory) -> [Interruption] {
        var out: [Interruption] = []
        if let rekey = RekeyRecovery.pending(for: DatabaseSet(dataDirectory: dir)) {
            out.append(Interruption(summary: rekey.summary, operation: rekey.operation))
        }
        if let imported = ImportRecovery.leftovers(root: dir.root, prefix: dir.prefix) {
            out.append(Interruption(summary: imported.summary, operation: .archiveImport))
        }
        return out
    }

    /// True for a name AtomicFileWriter gives its temp files.
    static func isAtomicTemp(_ name: String) -> Bool { name.hasPrefix(AtomicFileWriter.tempPrefix) }

    static func find(_ dir: DataDirectory, interrupted: Bool) -> [Leftover] {
        var out: [Leftover] = []
        func add(_ path: String, _ kind: String, needed: Bool) {
            guard let st = POSIXFile.linkStatus(path) else { return }
            var count = 1, bytes = Int64(st.st_size)
            if (st.st_mode & S_IFMT) == S_IFDIR {
                count = 0
                bytes = 0
                _ = FolderWalker.walk(path) { entry in
                    if entry.kind == .file { count += 1; bytes += entry.size }
                }
            }
            out.append(Leftover(path: path, kind: kind, count: count, bytes: bytes, neededForRecovery: needed))
        }
        func withCompanions(_ path: String, _ kind: String, needed: Bool) {
            add(path, kind, needed: needed)
            for companion in DataDirectoryNames.companions(of: path) { add(companion, kind + " (SQLite companion)", needed: needed) }
        }
        for database in dir.databases {
            withCompanions(DataDirectoryNames.backup(of: database), "backup from a passphrase change or import", needed: interrupted)
            withCompanions(DataDirectoryNames.exported(of: database), "new copy from an interrupted passphrase change", needed: interrupted)
            withCompanions(DataDirectoryNames.migrationBackup(of: database), "backup taken before a migration", needed: false)
        }
        add(DataDirectoryNames.rekeyJournal(of: dir.chatDatabase), "passphrase-change journal", needed: interrupted)
        add(ImportFiles.journal(root: dir.root, prefix: dir.prefix), "archive-import journal", needed: interrupted)
        add(ImportFiles.staging(root: dir.root), "archive-import staging folder", needed: interrupted)
        if let names = try? Folders.names(in: dir.root) {
            // A live run's temp file (its lock held) is not a leftover.
            for name in names.sorted() where isAtomicTemp(name) && TempOwnership.isStale(Path.join(dir.root, name)) {
                add(Path.join(dir.root, name), "temp file of an interrupted write", needed: false)
            }
        }
        for path in staleSystemTempFolders() { add(path, killedRunFolder, needed: false) }
        return out
    }

    /// The kind given to the private folders (`sxkit-<label>-XXXXXX`) that killed runs left in $TMPDIR.
    static let killedRunFolder = "private folder of a killed sxkit run (in $TMPDIR)"

    /// The labels of the `PrivateFolder`s sxkit makes in $TMPDIR (ArchiveImport, ArchiveVerify,
    /// ReadOnlySnapshot, JournalModeProbe). Only these are taken for leftovers: a folder of another
    /// name is never ours to remove, whatever it looks like.
    static let privateFolderLabels = ["import", "verify", "snapshot", "probe"]

    /// `PrivateFolder`s in $TMPDIR that no live run holds: an archive import, verify or a database
    /// snapshot killed before it could remove its copies.
    static func staleSystemTempFolders() -> [String] {
        let base = PrivateFolder.systemTemp
        return TempOwnership.staleCandidates(folder: base, prefix: "sxkit-").sorted()
            .filter { name in privateFolderLabels.contains { PrivateFolder.isName(name, label: $0) } }
            .map { Path.join(base, $0) }
            .filter { POSIXFile.linkStatus($0).map { $0.st_mode & S_IFMT == S_IFDIR } == true && TempOwnership.isStale($0) }
    }
}
