/// One named schema step (the core's `Migration {name, up, down}`, simplexmq
/// `src/Simplex/Messaging/Agent/Store/Shared.hs:31`): the SQL that applies it and, for steps that can be
/// undone, the SQL that reverts it. A list of them, ordered by name, is the schema an app expects.
/// SimpleX's own migrations are known to sxkit by name only (`SimpleXMigrations`): `up` is nil.
public struct Migration: Sendable, Equatable, Codable {
    public var name: String
    /// The SQL that applies it; nil when sxkit knows the migration by name only and cannot apply it.
    public var up: String?
    public var down: String?
    /// Whether the app that defines it can revert it: `down != nil` when the SQL is at hand, the
    /// defining list's own fact for a migration known by name only.
    public var hasDown: Bool

    public init(name: String, up: String, down: String? = nil) {
        self.name = name
        self.up = up
        self.down = down
        hasDown = down != nil
    }

    /// A migration known by its name only (and whether its app has down SQL for it).
    public init(name: String, knownOnly hasDown: Bool) {
        self.name = name
        up = nil
        down = nil
        self.hasDown = hasDown
    }
}

/// Which of the two databases a built-in migration list belongs to.
public enum DatabaseRole: String, Sendable, Codable, CaseIterable {
    case chat
    case agent

    /// SimpleX's migration list for this role, known by name (`SimpleXMigrations`).
    public var builtInMigrations: [Migration] {
        switch self {
        case .chat: SimpleXMigrations.chat
        case .agent: SimpleXMigrations.agent
        }
    }
}
