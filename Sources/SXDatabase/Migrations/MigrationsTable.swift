import CSQLCipher
#if canImport(Glibc)
import Glibc
#endif

/// The `migrations` table of FORMATS §4: `name TEXT NOT NULL PRIMARY KEY, ts TEXT NOT NULL, down TEXT`.
/// Reading never writes, so status works on an immutable connection; `ensure` creates or upgrades it.
public enum MigrationsTable {
    public static let createSQL = "CREATE TABLE IF NOT EXISTS migrations (name TEXT NOT NULL PRIMARY KEY, ts TEXT NOT NULL, down TEXT)"

    /// What a database holds, read without writing.
    public struct State: Sendable, Equatable {
        /// The table exists.
        public var exists: Bool
        /// The table has a `down` column (false when it does not exist).
        public var hasDownColumn: Bool
        /// Its rows, ordered by name.
        public var rows: [AppliedMigration]
        /// Schema objects other than the migrations table (tables, indexes, views, triggers).
        public var otherSchemaObjects: Int

        /// No migration was ever recorded: FORMATS §4 migrates such a database up without asking.
        public var isNew: Bool { rows.isEmpty }
        /// Whether anything in it could be lost, so a backup is due before changing it.
        public var holdsData: Bool { !rows.isEmpty || otherSchemaObjects > 0 }
        /// Whether `ensure` would change it.
        public var needsSetup: Bool { !exists || !hasDownColumn }
    }

    public static func read(_ db: DatabaseConnection) throws -> State {
        let exists = try db.scalarInt("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'migrations'") ?? 0 > 0
        let others = try db.scalarInt(
            "SELECT count(*) FROM sqlite_master WHERE name <> 'migrations' AND name NOT LIKE 'sqlite_autoindex_migrations%'") ?? 0
        guard exists else {
            return State(exists: false, hasDownColumn: false, rows: [], otherSchemaObjects: Int(others))
        }
        let hasDown = try db.scalarInt("SELECT count(*) FROM pragma_table_info('migrations') WHERE name = 'down'") ?? 0 > 0
        let statement = try db.prepare("SELECT name, ts, \(hasDown ? "down" : "NULL") FROM migrations ORDER BY name")
        var rows: [AppliedMigration] = []
        while try statement.step() {
            rows.append(AppliedMigration(name: statement.text(0) ?? "", ts: statement.text(1) ?? "", down: statement.text(2)))
        }
        return State(exists: true, hasDownColumn: hasDown, rows: rows, otherSchemaObjects: Int(others))
    }

    /// A `ts` as the core writes it: sqlcipher-simple's `ToField UTCTime` (`utcTimeToBuilder`), i.e.
    /// `YYYY-MM-DD HH:MM:SS` in UTC, then `.` and the fraction without trailing zeros (nothing when it
    /// is zero); the core binds `getCurrentTime` (simplexmq `Agent/Store/SQLite/Migrations.hs:57`).
    public static func timestamp(unixSeconds: Int64, microseconds: Int) -> String {
        var t = time_t(unixSeconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        var fraction = String(microseconds % 1_000_000)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
            + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// Now, as `timestamp(unixSeconds:microseconds:)`.
    static func timestampNow() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return timestamp(unixSeconds: Int64(now.tv_sec), microseconds: Int(now.tv_nsec / 1000))
    }

    /// Creates the table, or adds the `down` column to a table made before it existed.
    public static func ensure(_ db: DatabaseConnection) throws {
        try db.execute(createSQL)
        if try db.scalarInt("SELECT count(*) FROM pragma_table_info('migrations') WHERE name = 'down'") ?? 0 == 0 {
            try db.execute("ALTER TABLE migrations ADD COLUMN down TEXT")
        }
    }
}

extension DatabaseConnection {
    /// False while a transaction is open. After a failed statement SQLite may already have rolled the
    /// transaction back on its own (SQLITE_FULL, SQLITE_IOERR, …), so rollback asks this first.
    var inTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// Rolls back the open transaction, if any; a failure here changes nothing the caller can act on.
    func rollbackIfOpen() {
        if inTransaction { try? execute("ROLLBACK") }
    }
}
