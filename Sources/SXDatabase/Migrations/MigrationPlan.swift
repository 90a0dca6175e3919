/// One row of a database's `migrations` table.
public struct AppliedMigration: Sendable, Equatable, Codable {
    public var name: String
    /// When it was applied, as the table holds it.
    public var ts: String
    /// The SQL that reverts it; nil when it cannot be reverted (or the table predates the column).
    public var down: String?

    public init(name: String, ts: String, down: String? = nil) {
        self.name = name
        self.ts = ts
        self.down = down
    }
}

/// What reconciling the app's list with the database's list requires (FORMATS §4).
public enum MigrationPlan: Sendable, Equatable, Encodable {
    /// Both lists are the same.
    case nothing
    /// The app has these after the common prefix: run them up, in order.
    case up([Migration])
    /// The database has these after the common prefix, in ascending name order; each has down SQL.
    /// They are reverted last first.
    case down([AppliedMigration])
    /// The lists cannot be reconciled.
    case error(MTRError)

    /// Walks both lists from the start while names match. `database` must be ordered by name, as
    /// `MigrationsTable.read` returns it; `app` is taken in the order given.
    public static func compare(app: [Migration], database: [AppliedMigration]) -> MigrationPlan {
        var i = 0
        while i < app.count, i < database.count {
            guard MigrationName.same(app[i].name, database[i].name) else {
                return .error(.different(appMigration: app[i].name, dbMigration: database[i].name))
            }
            i += 1
        }
        if i < app.count { return .up(Array(app[i...])) }
        if i < database.count {
            let extra = Array(database[i...])
            let withoutDown = extra.filter { $0.down == nil }.map(\.name)
            return withoutDown.isEmpty ? .down(extra) : .error(.noDown(dbMigrations: withoutDown))
        }
        return .nothing
    }

    /// The work this plan would ask to confirm, in the words of FORMATS §5; nil for nothing and errors.
    public var pendingWork: MigrationError? {
        switch self {
        case .up(let ups): .upgrade(upMigrations: ups.map(UpMigration.init))
        case .down(let downs): .downgrade(downMigrations: downs.map(\.name))
        case .nothing, .error: nil
        }
    }

    private enum Key: String, CodingKey {
        case type, upMigrations, downMigrations, mtrError
    }

    /// `{"type":"nothing"}`, `{"type":"up","upMigrations":[{upName, withDown}]}`,
    /// `{"type":"down","downMigrations":[name]}` or `{"type":"error","mtrError":…}`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .nothing:
            try c.encode("nothing", forKey: .type)
        case .up(let ups):
            try c.encode("up", forKey: .type)
            try c.encode(ups.map(UpMigration.init), forKey: .upMigrations)
        case .down(let downs):
            try c.encode("down", forKey: .type)
            try c.encode(downs.map(\.name), forKey: .downMigrations)
        case .error(let error):
            try c.encode("error", forKey: .type)
            try c.encode(error, forKey: .mtrError)
        }
    }
}

/// Migration names compare as SQLite compares them (BINARY collation: UTF-8 bytes), not as Swift
/// compares strings (canonical equivalence), so that the app's order and `ORDER BY name` agree.
public enum MigrationName {
    public static func same(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    public static func precedes(_ a: String, _ b: String) -> Bool {
        a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Whether `names` are strictly increasing (sorted, no duplicates), as an app list must be.
    public static func strictlyIncreasing(_ names: [String]) -> Bool {
        zip(names, names.dropFirst()).allSatisfy { precedes($0, $1) }
    }
}
