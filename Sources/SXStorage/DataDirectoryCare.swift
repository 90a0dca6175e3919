import Foundation
import SXCore
import SXDatabase

/// The entry point of data-directory care: the storage report, and planning a clean. Never prints.
public struct DataDirectoryCare: Sendable {
    public var directory: DataDirectory
    /// The chat database's passphrase; nil when none was given (a plaintext database needs none).
    public var passphrase: SecretBytes?

    public init(directory: DataDirectory, passphrase: SecretBytes?) {
        self.directory = directory
        self.passphrase = passphrase
    }

    /// The report of where the space goes. Read-only: databases are opened `immutable=1` or from a
    /// private copy, folders are only listed. Without a passphrase for an encrypted chat database the
    /// files folder is reported as a whole; a wrong passphrase throws.
    public func storageReport() throws -> StorageReport {
        StorageReport.build(try DataDirectoryScan.scan(directory, passphrase: passphrase, requireReferences: false))
    }

    /// What `targets` would remove. Refuses a folder that does not look like a data directory, a data
    /// directory whose databases another process holds, an unreadable chat database (a wrong
    /// passphrase deletes nothing), and leftovers an interrupted operation still needs.
    public func plan(_ targets: CleanTargets, now: Date = Date()) throws -> CleanPlan {
        try DataDirectoryScan.checkLayout(directory)
        try Self.refuseWhileInUse(directory)
        let scan = try DataDirectoryScan.scan(directory, passphrase: passphrase, requireReferences: true)
        return try CleanPlanner.plan(scan, targets, now: Int64(now.timeIntervalSince1970))
    }

    /// Carries out `plan` (see `CleanExecutor`).
    public func execute(_ plan: CleanPlan, progress: ProgressTracker? = nil) throws -> CleanResult {
        try CleanExecutor(directory: directory, passphrase: passphrase).execute(plan, progress: progress)
    }

    /// Refuses while another process (the app) holds either database or its WAL index. Must run
    /// while this process holds no SQLite connection to them (see `LockProbe`).
    static func refuseWhileInUse(_ dir: DataDirectory) throws {
        for database in dir.databases where LockProbe.isInUse(database) {
            throw CareError.inUse(database: database)
        }
    }
}
