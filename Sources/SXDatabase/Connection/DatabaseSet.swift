import SXCore

/// One database a command works on, and which of the two it is when that is known.
public struct DatabaseTarget: Sendable, Equatable, Codable {
    /// `chat` or `agent`; nil for a `--db` file whose name does not say.
    public var role: DatabaseRole?
    public var path: String

    public init(role: DatabaseRole?, path: String) {
        self.role = role
        self.path = path
    }

    /// What to call it in messages: "chat database", or the file name.
    public var label: String { role.map { "\($0.rawValue) database" } ?? Path.basename(path) }
}

/// The databases a command works on: a data directory's chat and agent DBs (which always travel
/// together), or one file given with `--db`.
public struct DatabaseSet: Sendable, Equatable {
    public var targets: [DatabaseTarget]
    /// The data directory, when the set came from one.
    public var dataDirectory: DataDirectory?

    public init(dataDirectory: DataDirectory) {
        self.dataDirectory = dataDirectory
        targets = [DatabaseTarget(role: .chat, path: dataDirectory.chatDatabase),
                   DatabaseTarget(role: .agent, path: dataDirectory.agentDatabase)]
    }

    /// One file; its role comes from `role`, else from a `…_chat.db` / `…_agent.db` name.
    public init(file: String, role: DatabaseRole? = nil) {
        let path = Path.absolute(file)
        let name = Path.basename(path)
        let guessed: DatabaseRole? = name.hasSuffix("_chat.db") ? .chat : name.hasSuffix("_agent.db") ? .agent : nil
        dataDirectory = nil
        targets = [DatabaseTarget(role: role ?? guessed, path: path)]
    }
}
