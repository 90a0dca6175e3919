import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// The files an export will archive, found before the archive is started, and what it leaves out.
struct ExportPlan {
    struct File {
        var entry: ChatArchiveEntry
        var path: String
        var size: Int64
        var device: UInt64
        var inode: UInt64
    }

    var files: [File] = []
    var errors: [ArchiveError] = []
    var skipped: [String] = []

    static func make(_ dataDirectory: DataDirectory) -> ExportPlan {
        var plan = ExportPlan()
        if let folder = dataDirectory.filesFolder {
            plan.scan(folder) { .file(name: $0) }
        }
        if let folder = dataDirectory.wallpapersFolder {
            plan.scan(folder) { .wallpaper(name: $0) }
        }
        return plan
    }

    /// Leaves out the file open as `descriptor` (the archive being written, when it is put inside the
    /// files folder: archiving it into itself would never end).
    mutating func exclude(sameFileAs descriptor: Int32) {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { return }
        files.removeAll { $0.device == UInt64(st.st_dev) && $0.inode == UInt64(st.st_ino) }
    }

    /// Regular files at the top level of `folder`, by name. Links are never followed (a link could
    /// pull any file of the machine into the archive); subfolders are not part of the layout.
    private mutating func scan(_ folder: String, entry: (String) -> ChatArchiveEntry) {
        var found: [File] = []
        var unlistable = false
        // The folder itself may be a link the user made (a files folder on another disk); what is
        // inside it is never followed.
        let walked = Path.resolved(folder) ?? folder
        let outcome = FolderWalker.walk(walked, maxDepth: 0, unreadable: { _ in unlistable = true }) { item in
            let name = item.relativePath
            let path = folder + "/" + name
            guard item.nameIsValidUTF8 else {
                errors.append(.fileError(file: name, fileError: "the name is not valid UTF-8, so it cannot be stored in the archive; rename the file"))
                return
            }
            // The bare name, as simplex-chat's Archive.hs reports a file (`AEFileError {file}`).
            if name.hasPrefix(AtomicFileWriter.tempPrefix) {
                skipped.append("'\(path)' is the leftover of an interrupted sxkit write; it was not archived")
                return
            }
            guard ArchiveEntryName.isPlainComponent(name) else {
                errors.append(.fileError(file: name, fileError: "the name cannot be stored safely (\(ArchiveEntryName.problem(name) ?? "it is not a plain file name")); rename the file"))
                return
            }
            switch item.kind {
            case .file:
                found.append(File(entry: entry(name), path: path, size: item.size, device: item.device, inode: item.inode))
            case .symlink:
                errors.append(.fileError(file: name, fileError: "'\(path)' is a symbolic link; links are not followed, so it was not archived"))
            case .directory:
                skipped.append("'\(path)' is a folder; only the files directly inside '\(folder)' are archived")
            case .other:
                errors.append(.fileError(file: name, fileError: "'\(path)' is not a regular file (a device, pipe or socket), so it was not archived"))
            }
        }
        if unlistable || (outcome != .walked && outcome != .missing) {
            errors.append(.fileError(file: Path.basename(folder), fileError: FileSystemError("list the folder", path: folder, code: unlistable ? EACCES : ENOTDIR).description))
        }
        files += found.sorted { $0.entry.entryName < $1.entry.entryName }
    }
}
