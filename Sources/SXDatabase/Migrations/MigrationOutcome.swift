/// What `Migrator.migrate` did to one database: the FORMATS §5 result, plus the details a report
/// needs that the result does not carry.
public struct MigrationOutcome: Sendable, Equatable {
    public var dbFile: String
    public var result: DBMigrationResult
    /// Up migrations that were applied and committed, in order (also when a later one failed).
    public var applied: [String] = []
    /// Down migrations that were reverted and committed, in the order they ran (last first).
    public var reverted: [String] = []
    /// The copy made before the first change, if one was made.
    public var backupPath: String?
    /// The database had no migration recorded (so up migrations ran without confirmation).
    public var newDatabase = false
    /// The `migrations` table was created or given its `down` column.
    public var tableUpgraded = false
    /// Up migrations that were due but that sxkit knows by name only (so none was run).
    public var withoutSQL: [String] = []
    /// For an error: a sentence saying what went wrong (the SQLite message, the file problem).
    public var detail: String?

    public init(dbFile: String, result: DBMigrationResult = .ok) {
        self.dbFile = dbFile
        self.result = result
    }
}
