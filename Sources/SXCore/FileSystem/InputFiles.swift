import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Expands the paths a user named (files and folders, recursively) into regular files. Symlinks
/// are never followed: a link could lead anywhere, and replacing it would replace its target.
public enum InputFiles {
    public struct File: Sendable, Equatable {
        /// Absolute path.
        public var path: String
        /// Where it goes below an output folder: the file's name, or the folder argument's name
        /// followed by the path inside it (like `cp -r`).
        public var relativePath: String
        public var size: Int64
        public var mode: mode_t
    }

    public struct Problem: Sendable, Equatable {
        public var path: String
        public var reason: String
    }

    public static func expand(_ paths: [String], skipping excluded: Set<String> = []) -> (files: [File], problems: [Problem]) {
        var files: [File] = []
        var problems: [Problem] = []
        var seen = Set<String>()
        func visit(_ absolute: String, relative: String, top: Bool) {
            if excluded.contains(absolute) || seen.contains(absolute) { return }
            if Path.basename(absolute).hasPrefix(AtomicFileWriter.tempPrefix) { return }
            guard let st = POSIXFile.linkStatus(absolute) else {
                problems.append(Problem(path: absolute, reason: String(cString: strerror(errno))))
                return
            }
            switch st.st_mode & S_IFMT {
            case S_IFREG:
                seen.insert(absolute)
                files.append(File(path: absolute, relativePath: relative, size: Int64(st.st_size), mode: st.st_mode & 0o7777))
            case S_IFDIR:
                var entries: [FolderEntry] = []
                FolderWalker.walk(absolute, unreadable: { folder in
                    problems.append(Problem(path: folder, reason: "cannot list the folder: \(String(cString: strerror(access(folder, R_OK | X_OK) == 0 ? EIO : EACCES)))"))
                }) { entries.append($0) }
                // Depth first with names sorted at each level, like `cp -r` listing.
                entries.sort { $0.relativePath.split(separator: "/").lexicographicallyPrecedes($1.relativePath.split(separator: "/")) }
                var skippedFolders: [String] = []
                for entry in entries {
                    let path = Path.join(absolute, entry.relativePath)
                    // Nothing inside an excluded folder is looked at.
                    if skippedFolders.contains(where: { path.hasPrefix($0 + "/") }) { continue }
                    if excluded.contains(path) {
                        if entry.kind == .directory { skippedFolders.append(path) }
                        continue
                    }
                    if seen.contains(path) { continue }
                    if Path.basename(path).hasPrefix(AtomicFileWriter.tempPrefix) { continue }
                    switch entry.kind {
                    case .file:
                        seen.insert(path)
                        files.append(File(path: path, relativePath: relative + "/" + entry.relativePath, size: entry.size, mode: entry.mode & 0o7777))
                    case .symlink:
                        problems.append(Problem(path: path, reason: "is a symbolic link; links are not followed"))
                    case .directory, .other:
                        break
                    }
                }
            case S_IFLNK:
                problems.append(Problem(path: absolute, reason: "is a symbolic link; links are not followed"))
            default:
                if top { problems.append(Problem(path: absolute, reason: "is not a regular file")) }
            }
        }
        for p in paths {
            let absolute = Path.absolute(p)
            visit(absolute, relative: Path.basename(absolute), top: true)
        }
        return (files, problems)
    }
}
