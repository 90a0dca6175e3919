import SXCore
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// A command that reads a data directory's databases first makes sure it was pointed at one: a
/// mistyped path, or a photo given as `--data-dir`, is "not done" (exit 1) with a sentence saying
/// so, never a report of two missing databases and exit 0.
enum DataDirectoryCheck {
    /// The data directory of `set`, or its one `--db` file, is there.
    static func require(_ set: DatabaseSet) throws {
        if let directory = set.dataDirectory { return try require(directory) }
        for target in set.targets {
            guard let st = POSIXFile.linkStatus(target.path) else {
                throw DataDirectoryProblem("there is no database file '\(target.path)': \(String(cString: strerror(errno))); check the path")
            }
            if st.st_mode & S_IFMT == S_IFDIR {
                throw DataDirectoryProblem("'\(target.path)' is a folder, not a database file; for a data directory, use --data-dir")
            }
        }
    }

    /// `directory` is a folder, holding at least one of its two databases when `databases` is set.
    /// (`storage` and `clean` also work on a data directory whose databases are gone, and say
    /// themselves what does not look like one.)
    static func require(_ directory: DataDirectory, databases: Bool = true) throws {
        let root = directory.root
        var st = stat()
        guard stat(root, &st) == 0 else {
            throw DataDirectoryProblem("there is no data directory '\(root)': \(String(cString: strerror(errno))); check the path (or $\(DataDirectory.environmentVariable))")
        }
        guard st.st_mode & S_IFMT == S_IFDIR else {
            throw DataDirectoryProblem("'\(root)' is not a folder, so it is not a SimpleX data directory (the folder holding \(Path.basename(directory.chatDatabase)) and \(Path.basename(directory.agentDatabase)))")
        }
        guard !databases || directory.databases.contains(where: { POSIXFile.linkStatus($0) != nil }) else {
            throw DataDirectoryProblem("'\(root)' holds neither \(Path.basename(directory.chatDatabase)) nor \(Path.basename(directory.agentDatabase)), so it is not a SimpleX data directory; check the path")
        }
    }
}

/// The data directory or database file a command was given is not one (exit 1).
struct DataDirectoryProblem: SXError {
    let description: String
    init(_ description: String) { self.description = description }
}

extension DataDirectoryOptions {
    /// The data directory, after making sure it is one (see `DataDirectoryCheck`).
    func resolveExisting(databases: Bool = true) throws -> DataDirectory {
        let directory = resolve()
        try DataDirectoryCheck.require(directory, databases: databases)
        return directory
    }
}
