#if canImport(Glibc)
import Glibc
#endif

/// The one rule for every file a command writes: an existing file (or one an earlier run wrote) is
/// never replaced unless the caller says so. Commands check all their outputs with `check` before
/// any work starts, so a refusal never comes after an upload, a download or half a batch.
public struct OutputPolicy: Sendable, Equatable {
    /// Replace outputs that exist (each still atomically: the old file stays until the new one is complete).
    public var replaceExisting: Bool

    public init(replaceExisting: Bool = false) {
        self.replaceExisting = replaceExisting
    }

    public static let refuse = OutputPolicy(replaceExisting: false)
    public static let replace = OutputPolicy(replaceExisting: true)

    /// Throws `ExistingOutputError` naming every path of `paths` that exists (as anything, a dangling
    /// link included), unless existing outputs may be replaced. A folder is never replaced by a file,
    /// whatever the policy: that is `ExistingOutputError` with `isFolder`.
    public func check(_ paths: some Sequence<String>) throws {
        var existing: [String] = []
        var folders: [String] = []
        for path in paths {
            guard let st = POSIXFile.linkStatus(path) else { continue }
            if (st.st_mode & S_IFMT) == S_IFDIR { folders.append(path) } else { existing.append(path) }
        }
        if !folders.isEmpty { throw ExistingOutputError(paths: folders, isFolder: true) }
        if !existing.isEmpty && !replaceExisting { throw ExistingOutputError(paths: existing, isFolder: false) }
    }

    /// The paths of `paths` that exist, for a caller that must act on them (remove stale outputs).
    public static func existing(_ paths: some Sequence<String>) -> [String] {
        paths.filter { POSIXFile.linkStatus($0) != nil }
    }
}

/// Outputs that are already there. The command line words the way out (its flag); this says only
/// what is in the way.
public struct ExistingOutputError: SXError, Equatable {
    /// Every output in the way, in the order they were checked.
    public let paths: [String]
    /// The outputs are folders, which no output file replaces.
    public let isFolder: Bool

    public init(paths: [String], isFolder: Bool = false) {
        self.paths = paths
        self.isFolder = isFolder
    }

    /// "'a' already exists" or "'a' and 2 more outputs already exist".
    public var what: String {
        let first = "'\(paths.first ?? "")'"
        let more = paths.count > 1 ? " and \(paths.count - 1) more output(s)" : ""
        if isFolder { return first + more + (paths.count > 1 ? " are folders" : " is a folder") }
        return first + more + (paths.count > 1 ? " already exist" : " already exists")
    }

    public var description: String {
        if isFolder { return "\(what), where a file would be written; choose another output. Nothing was written" }
        return "\(what); choose another output or allow replacing it. Nothing was written"
    }
}

/// A folder that a command writes into: `-o DIR`, and any `-o path/` written with a trailing slash.
public enum OutputFolder {
    /// `path` ends with a slash: the user means a folder, created when missing.
    public static func isFolderSyntax(_ path: String) -> Bool { path.count > 1 && path.hasSuffix("/") }

    /// Creates `path` and its missing parents (`mode` for the ones created). An existing folder is
    /// fine; anything else there is `OutputFolderError.notAFolder`.
    public static func create(_ path: String, mode: mode_t = 0o755) throws {
        let absolute = Path.absolute(path)
        if let st = (try? POSIXFile.status(absolute)) {
            guard (st.st_mode & S_IFMT) == S_IFDIR else { throw OutputFolderError.notAFolder(path: absolute) }
            return
        }
        var built = ""
        for part in absolute.split(separator: "/") {
            built += "/" + part
            if mkdir(built, mode) == 0 { continue }
            let code = errno
            if code == EEXIST {
                if let st = (try? POSIXFile.status(built)), (st.st_mode & S_IFMT) == S_IFDIR { continue }
                throw OutputFolderError.notAFolder(path: built)
            }
            throw OutputFolderError.cannotCreate(path: built, code: code)
        }
    }

    /// Checks that `path` is a folder or can become one, without creating anything.
    public static func check(_ path: String) throws {
        var probe = Path.absolute(path)
        while true {
            if let st = (try? POSIXFile.status(probe)) {
                guard (st.st_mode & S_IFMT) == S_IFDIR else { throw OutputFolderError.notAFolder(path: probe) }
                return
            }
            if probe == "/" { return }
            probe = Path.parent(probe)
        }
    }
}

/// Why a folder for outputs cannot be used.
public enum OutputFolderError: SXError, Equatable {
    /// A file (not a folder) is where the folder would be.
    case notAFolder(path: String)
    case cannotCreate(path: String, code: Int32)

    public var description: String {
        switch self {
        case .notAFolder(let path):
            return "'\(path)' is a file, not a folder; outputs go into a folder: name a folder (new or existing)"
        case .cannotCreate(let path, let code):
            return "cannot create the folder '\(path)': \(String(cString: strerror(code)))"
        }
    }
}
