import Foundation
import SXCore
import SXDatabase

/// What a clean removed, per category, and what it could not.
public struct CleanResult: Sendable, Codable, Equatable {
    public struct Problem: Sendable, Codable, Equatable {
        public var path: String
        public var category: CleanCategory
        public var reason: String
    }

    public var removed: [CategoryUsage]
    /// Kept because they changed since the plan (gone, replaced, now referenced): not an error.
    public var skipped: [Problem]
    /// Removal failed (permission, I/O): the run went on with the rest.
    public var failures: [Problem]

    public var total: Usage { removed.reduce(Usage()) { $0 + $1.usage } }
}

/// Carries out a plan. Before touching anything it checks again that no other process holds the
/// databases, that no interrupted operation appeared, and re-reads the chat DB's references; then
/// each entry is re-checked just before it is unlinked (see `SafeRemoval`).
public struct CleanExecutor: Sendable {
    public var directory: DataDirectory
    public var passphrase: SecretBytes?

    public init(directory: DataDirectory, passphrase: SecretBytes?) {
        self.directory = directory
        self.passphrase = passphrase
    }

    /// `progress`, when given, counts each planned file as it is dealt with.
    public func execute(_ plan: CleanPlan, progress: ProgressTracker? = nil) throws -> CleanResult {
        try DataDirectoryCare.refuseWhileInUse(directory)
        if plan.targets.leftovers || plan.targets.everything, let first = LeftoverFinder.interruptions(directory).first {
            throw CareError.interrupted(summary: first.summary, operation: first.operation)
        }
        // The plan came from a snapshot: a file the app has received since may now be referenced.
        var fresh: FilesTableReferences?
        if plan.items.contains(where: \.mustStayUnreferenced) {
            fresh = try ChatFileReferences.read(chatDatabase: directory.chatDatabase, passphrase: passphrase)
            if fresh == nil { throw CareError.chatDatabaseMissing(database: directory.chatDatabase) }
        }
        var removed: [CleanCategory: Usage] = [:]
        var result = CleanResult(removed: [], skipped: [], failures: [])
        var folders: [CleanItem] = []
        progress?.setTotals(items: plan.total.count, bytes: plan.total.bytes)
        for item in plan.items {
            if item.kind == .directory { folders.append(item); continue }
            defer {
                progress?.itemDone()
                progress?.addBytes(item.size)
            }
            if item.mustStayUnreferenced, fresh?.isReferenced(item.relativePath) == true {
                result.skipped.append(.init(path: item.path, category: item.category, reason: "the chat database now references it"))
                continue
            }
            CrashPoint.reach("clean.before-unlink")
            switch SafeRemoval.remove(item) {
            case .removed: removed[item.category, default: Usage()].add(item.size)
            case .changed(let why): result.skipped.append(.init(path: item.path, category: item.category, reason: why))
            case .failed(let error): result.failures.append(.init(path: item.path, category: item.category, reason: ErrorCause.text(of: error)))
            }
        }
        // Folders emptied by the removals go too, deepest first; one that still holds something stays.
        for folder in folders.sorted(by: { $0.relativePath.count > $1.relativePath.count }) {
            _ = SafeRemoval.remove(folder)
        }
        result.removed = CleanCategory.allCases.compactMap { c in removed[c].map { CategoryUsage(category: c, usage: $0) } }
        return result
    }
}
