import ArgumentParser
import SXCore
import SXDatabase

/// `--role` and `--migrations`: which migration list each database is compared with.
struct MigrationListOptions: ParsableArguments {
    /// The role names, local to the CLI so the library's enum stays free of ArgumentParser.
    enum Role: String, ExpressibleByArgument, CaseIterable {
        case chat, agent
        var databaseRole: DatabaseRole { self == .chat ? .chat : .agent }
    }

    @Option(name: .customLong("role"), help: ArgumentHelp(
        "With --db: which database it is, and so which built-in list applies (default: from a …_chat.db / …_agent.db name).",
        valueName: "chat|agent"))
    var role: Role?

    @Option(name: .customLong("migrations"), help: ArgumentHelp(
        "Use the migrations in this folder (NAME.up.sql, optional NAME.down.sql) instead of the built-in lists. With a data directory it must hold chat/ and/or agent/ subfolders; a missing one keeps the built-in list.",
        valueName: "dir"), completion: .directory)
    var folder: String?

    /// Checks what ArgumentParser cannot see from here alone: `--role` only makes sense with `--db`.
    func validate(with selection: DatabaseSelectionOptions) throws {
        if role != nil, selection.databaseFile == nil {
            throw ValidationError("--role applies only with --db (a data directory's databases have known roles)")
        }
    }

    /// Each selected database with the list it is compared with.
    func resolve(_ selection: DatabaseSelectionOptions, writes: Bool) throws -> [(DatabaseTarget, [Migration])] {
        let set = try selection.resolveNoticingLeftovers(role: role?.databaseRole, writes: writes)
        guard let folder else {
            return try set.targets.map { target in
                guard let role = target.role else {
                    throw UsageError("cannot tell whether '\(target.path)' is the chat or the agent database: give --role chat|agent, or --migrations DIR")
                }
                return (target, role.builtInMigrations)
            }
        }
        if selection.databaseFile != nil {
            let list = try MigrationFolder.load(folder)
            return set.targets.map { ($0, list) }
        }
        let lists = try MigrationFolder.loadPerRole(folder)
        return set.targets.map { target in
            let role = target.role ?? .chat
            return (target, lists[role] ?? role.builtInMigrations)
        }
    }
}

/// Aligned labels: "chat database " / "agent database".
func paddedLabels(_ targets: [DatabaseTarget]) -> [String] {
    let width = targets.map { $0.label.count }.max() ?? 0
    return targets.map { $0.label.padding(toLength: width, withPad: " ", startingAt: 0) }
}
