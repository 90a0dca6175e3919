import Foundation
import SXCore

/// The second half of an import, run by the import itself once the journal is on disk and by
/// recovery after a crash. Every step looks at the disk first, so running it again after an
/// interruption at any instant finishes the same swap:
///
/// 1. per database: `<db>` → `<db>.bak`, its companions → `<db>.bak-wal`/`-shm`/`-journal`, then the
///    staged copy → `<db>` (an un-checkpointed WAL of the old database can never be applied to the new one);
/// 2. each staged file into the files folder, each staged wallpaper into the wallpapers folder;
/// 3. the staging folder, then the journal, are deleted.
enum ImportSwap {
    struct Outcome {
        var archiveErrors: [ArchiveError] = []
        var backups: [String] = []
    }

    static func complete(_ journal: ImportJournal, journalPath: String) throws -> Outcome {
        var outcome = Outcome()
        for (i, database) in journal.databases.enumerated() {
            let staged = Path.join(journal.staging, Path.basename(database))
            guard ImportFiles.exists(staged) else { continue }
            if let backup = try swapDatabase(database, with: staged) { outcome.backups.append(backup) }
            CrashPoint.reach(i == 0 ? "import.chat-db-swapped" : "import.agent-db-swapped")
        }
        outcome.archiveErrors += moveFiles(from: ImportFiles.stagedFiles(journal.staging), to: journal.filesFolder,
                                           entryFolder: ChatArchiveEntry.filesFolderName)
        outcome.archiveErrors += moveFiles(from: ImportFiles.stagedWallpapers(journal.staging), to: journal.wallpapersFolder,
                                           entryFolder: ChatArchiveEntry.wallpapersFolderName)
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
                throw ArchiveFailure("cannot finish the import: both '\(database)' and '\(backup)' exist (was SimpleX Chat started in between?); move one away and run `sxkit archive recover` again")
            }
            try ImportFiles.move(database, to: backup)
            try POSIXFile.fsyncDirectory(folder)
            made = backup
            CrashPoint.reach("import.db-backed-up")
        }
        for suffix in ImportFiles.companionSuffixes where ImportFiles.exists(database + suffix) {
            guard !ImportFiles.exists(backup + suffix) else {
                throw ArchiveFailure("cannot finish the import: both '\(database + suffix)' and '\(backup + suffix)' exist; move one away and run `sxkit archive recover` again")
            }
            try ImportFiles.move(database + suffix, to: backup + suffix)
        }
        try ImportFiles.move(staged, to: database)
        try POSIXFile.fsyncDirectory(folder)
        return made
    }

    /// Moves every staged file into `folder`. An identical file already there is kept as it is; a
    /// different one is replaced by the archive's version — the imported chat database refers to the
    /// file by that name, as the app's own import does — and the old one is kept in `<folder>.bak/`,
    /// reported as an `import` ArchiveError. Problems with one file become a `fileError` and the rest go on.
    static func moveFiles(from staged: String, to folder: String?, entryFolder: String) -> [ArchiveError] {
        guard ImportFiles.exists(staged), let folder else { return [] }
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: staged)) ?? []).sorted()
        guard !names.isEmpty else { return [] }
        var errors: [ArchiveError] = []
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        } catch {
            return names.map { .fileError(file: entryFolder + "/" + $0, fileError: "cannot create the folder '\(folder)': \(error)") }
        }
        let backupFolder = folder + ".bak"
        var usedBackup = false
        for name in names {
            let source = Path.join(staged, name), destination = Path.join(folder, name), entry = entryFolder + "/" + name
            do {
                if let st = POSIXFile.linkStatus(destination) {
                    if st.st_mode & S_IFMT == S_IFREG, try sameContent(source, destination) {
                        try ImportFiles.remove(source)
                        continue
                    }
                    try FileManager.default.createDirectory(atPath: backupFolder, withIntermediateDirectories: true)
                    let kept = Path.join(backupFolder, name)
                    guard !ImportFiles.exists(kept) else {
                        errors.append(.fileError(file: entry, fileError: "a different '\(destination)' exists and '\(kept)' is taken, so the old file was left in place and the archive's version was not imported"))
                        try ImportFiles.remove(source)
                        continue
                    }
                    try ImportFiles.move(destination, to: kept)
                    usedBackup = true
                    errors.append(.import(importError: "\(entry): a different file of that name was already in '\(folder)'; the archive's version replaced it and the old one was moved to '\(kept)'"))
                }
                try place(source, at: destination)
                CrashPoint.reach("import.file-moved")
            } catch {
                errors.append(.fileError(file: entry, fileError: "\(error)"))
                try? ImportFiles.remove(source)
            }
        }
        do {
            try POSIXFile.fsyncDirectory(folder)
            if usedBackup { try POSIXFile.fsyncDirectory(backupFolder) }
        } catch {
            errors.append(.import(importError: "cannot flush '\(folder)' to disk: \(error)"))
        }
        return errors
    }

    /// A rename; across file systems (a `--files-dir` elsewhere) an atomic copy, then the staged file goes.
    static func place(_ source: String, at destination: String) throws {
        if rename(source, destination) == 0 { return }
        guard errno == EXDEV else { throw FileSystemError("move '\(source)' to", path: destination) }
        let input = try POSIXFile.open(source, flags: O_RDONLY)
        defer { close(input) }
        let writer = try AtomicFileWriter(destination: destination, mode: 0o644)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try POSIXFile.read(input, into: &buffer, path: source)
            if n == 0 { break }
            try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
        try writer.commit()
        try ImportFiles.remove(source)
    }

    /// Byte-for-byte comparison, streamed.
    static func sameContent(_ a: String, _ b: String) throws -> Bool {
        guard let sa = POSIXFile.linkStatus(a), let sb = POSIXFile.linkStatus(b), sa.st_size == sb.st_size else { return false }
        let fa = try POSIXFile.open(a, flags: O_RDONLY), fb = try POSIXFile.open(b, flags: O_RDONLY | O_NOFOLLOW)
        defer { close(fa); close(fb) }
        var ba = [UInt8](repeating: 0, count: 1 << 18), bb = [UInt8](repeating: 0, count: 1 << 18)
        while true {
            let na = try POSIXFile.read(fa, into: &ba, path: a), nb = try POSIXFile.read(fb, into: &bb, path: b)
            if na != nb || ba[0..<na] != bb[0..<nb] { return false }
            if na == 0 { return true }
        }
    }
}
