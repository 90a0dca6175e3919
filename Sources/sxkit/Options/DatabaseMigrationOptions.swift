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
        "With --db: which database it is, and so which of SimpleX's lists applies (default: from a …_chat.db / …_agent.db name).",
        valueName: "chat|agent"))
    var role: Role?

    @Option(name: .customLong("migrations"), help: ArgumentHelp(
        "SQL for migrations, as NAME.up.sql and optional NAME.down.sql: a NAME of SimpleX's list gives that migration the SQL sxkit does not carry, any other NAME is added to the list by name. With a data directory it holds chat/ and/or agent/ subfolders. For a --db file that is neither chat nor agent, the folder is the whole list.",
        valueName: "dir"), completion: .directory)
    var folder: String?

    /// One database with the list it is compared with, and a few words saying what that list is.
    struct Work {
        var target: DatabaseTarget
        var list: [Migration]
        var listDescription: String
    }

    /// Checks what ArgumentParser cannot see from here alone: `--role` only makes sense with `--db`.
    func validate(with selection: DatabaseSelectionOptions) throws {
        if role != nil, selection.databaseFile == nil {
            throw ValidationError("--role applies only with --db (a data directory's databases have known roles)")
        }
    }

    /// Each selected database with the list it is compared with: SimpleX's list for its role, with
    /// the folder's migrations joined in; the folder alone for a file of no known role.
    func resolve(_ selection: DatabaseSelectionOptions, writes: Bool) throws -> [Work] {
        let set = try selection.resolveNoticingLeftovers(role: role?.databaseRole, writes: writes)
        var folderLists: [DatabaseRole?: [Migration]] = [:]
        if let folder {
            if selection.databaseFile != nil {
                folderLists[set.targets[0].role] = try MigrationFolder.load(folder)
            } else {
                for (role, list) in try MigrationFolder.loadPerRole(folder) { folderLists[role] = list }
            }
        }
        return try set.targets.map { target in
            guard let role = target.role else {
                guard let list = folderLists[nil] else {
                    throw CommandLineError("cannot tell whether '\(target.path)' is the chat or the agent database: give --role chat|agent, or --migrations DIR")
                }
                return Work(target: target, list: list, listDescription: "the \(list.count) migrations of \(folder ?? "")")
            }
            let builtIn = role.builtInMigrations
            let simplex = "SimpleX's \(builtIn.count) \(role.rawValue) migrations (\(role == .chat ? "simplex-chat" : "simplexmq") 6.5)"
            guard let extra = folderLists[role] else { return Work(target: target, list: builtIn, listDescription: simplex) }
            let known = Set(builtIn.map(\.name))
            let supplied = extra.filter { known.contains($0.name) }.count
            let added = extra.count - supplied
            var parts: [String] = []
            if supplied > 0 { parts.append("SQL for \(supplied)") }
            if added > 0 { parts.append("\(added) more") }
            return Work(target: target, list: MigrationFolder.merge(extra, into: builtIn),
                        listDescription: simplex + ", " + parts.joined(separator: " and ") + " from \(folder ?? "")")
        }
    }
}

/// Aligned labels: "chat database " / "agent database".
func paddedLabels(_ targets: [DatabaseTarget]) -> [String] {
    let width = targets.map { $0.label.count }.max() ?? 0
    return targets.map { $0.label.padding(toLength: width, withPad: " ", startingAt: 0) }
}
