import Foundation
import SXCore

/// The second half of an import, run by the import itself once the journal is on disk and by
/// recovery after a crash. Every step looks at the disk first, so running it again after an
/// interruption at any instant finishes the same swap:
///
/// 1. per database: `<db>` → `<db>.bak`, its companions → `<db>.bak-wal`/`-shm`/`-journal`, then the
///    staged copy → `<db>` (an un-checkpointed WAL of the old database can never be applied to the new one);
/// 2. the files folder and the wallpapers folder are replaced as a whole: the previous ones (when not
///    empty) are moved aside into one folder in the data directory, then the staged ones are moved in;
///    so the data directory holds exactly the archive's profile, and no file of the previous profile
///    becomes an orphan of the new one (the apps get the same by deleting the storage before their
///    import: simplex-chat `DatabaseView.kt` `importArchive`, `MigrateToDevice.kt`);
/// 3. the staging folder, then the journal, are deleted.
enum ImportSwap {
    struct Outcome {
        var archiveErrors: [ArchiveError] = []
        var backups: [String] = []
        /// Where the previous files folder and wallpapers went, when there were any.
        var previousFolders: [String] = []
    }

    static func complete(_ journal: ImportJournal, journalPath: String) throws -> Outcome {
        var outcome = Outcome()
        for (i, database) in journal.databases.enumerated() {
            let staged = Path.join(journal.staging, Path.basename(database))
            guard ImportFiles.exists(staged) else { continue }
            if let backup = try swapDatabase(database, with: staged) { outcome.backups.append(backup) }
            CrashPoint.reach(i == 0 ? "import.chat-db-swapped" : "import.agent-db-swapped")
        }
        let previous = journal.previousFolder ?? ImportFiles.previousFolder(root: Path.parent(journalPath))
        let folders: [(staged: String, folder: String?, name: String)] = [
            (ImportFiles.stagedFiles(journal.staging), journal.filesFolder, "files"),
            (ImportFiles.stagedWallpapers(journal.staging), journal.wallpapersFolder, "wallpapers"),
        ]
        for (staged, folder, name) in folders {
            guard let folder else { continue }
            let aside = try replaceFolder(folder, with: staged, previous: Path.join(previous, name))
            if let aside { outcome.previousFolders.append(aside) }
            CrashPoint.reach("import.folder-replaced")
        }
        CrashPoint.reach("import.files-moved")
        try ImportFiles.removeTree(journal.staging)
        CrashPoint.reach("import.staging-removed")
        try ImportFiles.remove(journalPath)
        try POSIXFile.fsyncDirectory(Path.parent(journalPath))
        return outcome
    }

    /// Puts `staged` in place of `database`; returns the backup it made, if there was a database.
    static func swapDatabase(_ database: String, with staged: String) throws -> String? {
        let backup = ImportFiles.backup(database)
        let folder = Path.parent(database)
        var made: String?
        if ImportFiles.exists(database) {
            guard !ImportFiles.exists(backup) else {
                throw ArchiveFailure.importBlocked(existing: [database, backup], appMayHaveRun: true)
            }
            try ImportFiles.move(database, to: backup)
            try POSIXFile.fsyncDirectory(folder)
            made = backup
            CrashPoint.reach("import.db-backed-up")
        }
        for suffix in DataDirectoryNames.companionSuffixes where ImportFiles.exists(database + suffix) {
            guard !ImportFiles.exists(backup + suffix) else {
                throw ArchiveFailure.importBlocked(existing: [database + suffix, backup + suffix], appMayHaveRun: false)
            }
            try ImportFiles.move(database + suffix, to: backup + suffix)
        }
        try ImportFiles.move(staged, to: database)
        try POSIXFile.fsyncDirectory(folder)
        return made
    }

    /// Replaces `folder` by the staged one. While the staged folder is still in the staging area the
    /// one in place is the previous profile's: it is moved to `previous` (deleted when empty), then
    /// the staged folder takes its place by a rename. A folder on another file system (`--files-dir`)
    /// is filled by copies into `<folder>.sxkit-importing`, which is renamed into place once complete;
    /// the staged folder is renamed to `<staged>.copied` in between, so a rerun knows the copy finished.
    /// Returns where the previous folder went, when it was moved.
    static func replaceFolder(_ folder: String, with staged: String, previous: String) throws -> String? {
        let copied = staged + DataDirectoryNames.copiedSuffix, importing = folder + DataDirectoryNames.importingSuffix
        var aside: String?
        if ImportFiles.exists(staged) {
            if ImportFiles.exists(folder) { aside = try moveAside(folder, to: previous) }
            // A new data directory may lack the folder's parent (`<prefix>_assets` for wallpapers).
            try Folders.create(Path.parent(folder), mode: 0o700)
            if rename(staged, folder) == 0 {
                try POSIXFile.fsyncDirectory(Path.parent(folder))
                try POSIXFile.fsyncDirectory(Path.parent(staged))
                return aside ?? existing(previous, folder)
            }
            guard errno == EXDEV else { throw FileSystemError("move '\(staged)' to", path: folder) }
            try ImportFiles.removeTree(importing)
            try copyFolder(staged, to: importing)
            try ImportFiles.move(staged, to: copied)
            try POSIXFile.fsyncDirectory(Path.parent(staged))
        }
        if ImportFiles.exists(copied) {
            if ImportFiles.exists(importing) {
                try ImportFiles.move(importing, to: folder)
                try POSIXFile.fsyncDirectory(Path.parent(folder))
            }
            try ImportFiles.removeTree(copied)
        }
        return aside ?? existing(previous, folder)
    }

    /// Where an earlier run of the same swap put the previous folder, if it did.
    private static func existing(_ previous: String, _ folder: String) -> String? {
        [previous, sibling(of: folder, for: previous)].first(where: ImportFiles.exists)
    }

    /// `<parent of folder>/<name of the previous root>-<name>`: where the previous folder goes when
    /// it lives on another file system than the data directory.
    private static func sibling(of folder: String, for previous: String) -> String {
        Path.join(Path.parent(folder), Path.basename(Path.parent(previous)) + "-" + Path.basename(previous))
    }

    /// Moves the previous folder aside (a rename, so its files keep their inodes and times); an
    /// empty one is simply removed. Returns where it went.
    private static func moveAside(_ folder: String, to previous: String) throws -> String? {
        if let names = try? Folders.names(in: folder), names.isEmpty, rmdir(folder) == 0 {
            try POSIXFile.fsyncDirectory(Path.parent(folder))
            return nil
        }
        let root = Path.parent(previous)
        if mkdir(root, 0o700) != 0 && errno != EEXIST { throw FileSystemError("create", path: root) }
        guard !ImportFiles.exists(previous) else {
            throw ArchiveFailure.importBlocked(existing: [previous], appMayHaveRun: false)
        }
        var target = previous
        if rename(folder, previous) != 0 {
            guard errno == EXDEV else { throw FileSystemError("move '\(folder)' to", path: previous) }
            target = sibling(of: folder, for: previous)
            guard !ImportFiles.exists(target) else {
                throw ArchiveFailure.importBlocked(existing: [target], appMayHaveRun: false)
            }
            try ImportFiles.move(folder, to: target)
            try? Folders.remove(root)  // only if it stayed empty
        }
        try POSIXFile.fsyncDirectory(Path.parent(folder))
        try POSIXFile.fsyncDirectory(Path.parent(target))
        return target
    }

    /// Copies the regular files of `source` into a new folder `destination`, each flushed.
    static func copyFolder(_ source: String, to destination: String) throws {
        guard mkdir(destination, 0o700) == 0 else { throw FileSystemError("create", path: destination) }
        for name in try Folders.names(in: source).sorted() {
            try AtomicFileWriter.copy(Path.join(source, name), to: Path.join(destination, name))
        }
        try POSIXFile.fsyncDirectory(destination)
    }
}
