/// One named schema step (FORMATS §4): the SQL that applies it and, for steps that can be undone,
/// the SQL that reverts it. Plain values, in the spirit of GRDB's migrator: a list of them is the
/// schema an application expects.
public struct Migration: Sendable, Equatable, Codable {
    public var name: String
    public var up: String
    public var down: String?

    public init(name: String, up: String, down: String? = nil) {
        self.name = name
        self.up = up
        self.down = down
    }
}

/// Which of the two databases a built-in migration list belongs to.
public enum DatabaseRole: String, Sendable, Codable, CaseIterable {
    case chat
    case agent

    /// The app's migration list for this role.
    public var builtInMigrations: [Migration] {
        switch self {
        case .chat: ChatSchema.migrations
        case .agent: AgentSchema.migrations
        }
    }
}
