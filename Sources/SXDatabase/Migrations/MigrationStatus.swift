#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// Where each migration stands, and what `migrate` would do: the app's list against the table.
public struct MigrationStatus: Sendable, Equatable, Encodable {
    public enum State: String, Sendable, Encodable {
        /// In both lists.
        case applied
        /// In the app's list only: would be run up.
        case pending
        /// In the database only: unknown to this app.
        case dbOnly
    }

    public struct Entry: Sendable, Equatable, Encodable {
        public var name: String
        public var state: State
        /// When it was applied (the table's `ts`); nil for pending.
        public var appliedAt: String?
        /// For a recorded migration: the database holds its down SQL. For a pending one: the app has
        /// down SQL for it, so it could be reverted after being applied.
        public var canGoDown: Bool

        /// Under sxkit's JSON vocabulary an item's state is its `status`.
        enum CodingKeys: String, CodingKey {
            case name, appliedAt, canGoDown
            case state = "status"
        }

        public init(name: String, state: State, appliedAt: String?, canGoDown: Bool) {
            self.name = name
            self.state = state
            self.appliedAt = appliedAt
            self.canGoDown = canGoDown
        }
    }

    public enum TableState: String, Sendable, Encodable {
        case missing
        /// Made before the `down` column existed; `migrate` adds it.
        case withoutDownColumn
        case current
    }

    /// Every migration of either list, ordered by name.
    public var migrations: [Entry]
    public var plan: MigrationPlan
    /// No migration recorded: `migrate` would run up migrations without asking.
    public var newDatabase: Bool
    public var migrationsTable: TableState
    /// `migrate` would ask before running the plan (`--confirm` decides).
    public var needsConfirmation: Bool

    /// What a real profile's table says, in the terms of the list (for the built-in lists: SimpleX's
    /// migrations that sxkit knows).
    public struct Summary: Sendable, Equatable, Encodable {
        /// Rows in the database's table.
        public var recorded: Int
        /// Rows whose migration is in the list, and how long the list is.
        public var known: Int
        public var listed: Int
        /// The last row by name, and when it was applied.
        public var newest: String?
        public var newestAppliedAt: String?
        /// Rows after the list's last name: the database was migrated by a newer app than the list.
        public var newerThanList: [String]
        /// Rows that can be reverted (their `down` is not NULL), and those that cannot.
        public var canGoDown: [String]
        public var cannotGoDown: [String]
        /// In the list, not in the database; and of those, the ones the list has no SQL for.
        public var pending: [String]
        public var pendingWithoutSQL: [String]
    }

    public var summary: Summary

    public init(app: [Migration], table: MigrationsTable.State) {
        let plan = MigrationPlan.compare(app: app, database: table.rows)
        var entries: [Entry] = []
        var recorded: [[UInt8]: AppliedMigration] = [:]
        for row in table.rows { recorded[Array(row.name.utf8)] = row }
        var known: Set<[UInt8]> = []
        for migration in app {
            let key = Array(migration.name.utf8)
            known.insert(key)
            if let row = recorded[key] {
                entries.append(Entry(name: row.name, state: .applied, appliedAt: row.ts, canGoDown: row.down != nil))
            } else {
                entries.append(Entry(name: migration.name, state: .pending, appliedAt: nil, canGoDown: migration.hasDown))
            }
        }
        for row in table.rows where !known.contains(Array(row.name.utf8)) {
            entries.append(Entry(name: row.name, state: .dbOnly, appliedAt: row.ts, canGoDown: row.down != nil))
        }
        migrations = entries.sorted { MigrationName.precedes($0.name, $1.name) }
        self.plan = plan
        newDatabase = table.isNew
        migrationsTable = !table.exists ? .missing : table.hasDownColumn ? .current : .withoutDownColumn
        needsConfirmation = plan.pendingWork != nil && !table.isNew
        let last = app.last.map { Array($0.name.utf8) }
        let pending = app.filter { recorded[Array($0.name.utf8)] == nil }
        summary = Summary(
            recorded: table.rows.count,
            known: table.rows.filter { known.contains(Array($0.name.utf8)) }.count,
            listed: app.count,
            newest: table.rows.last?.name,
            newestAppliedAt: table.rows.last?.ts,
            newerThanList: table.rows.filter { row in
                !known.contains(Array(row.name.utf8)) && last.map { $0.lexicographicallyPrecedes(row.name.utf8) } ?? true
            }.map(\.name),
            canGoDown: table.rows.filter { $0.down != nil }.map(\.name),
            cannotGoDown: table.rows.filter { $0.down == nil }.map(\.name),
            pending: pending.map(\.name),
            pendingWithoutSQL: pending.filter { $0.up == nil }.map(\.name))
    }
}

extension Migrator {
    /// The status of the database behind `db`; reads only.
    public func status(_ db: DatabaseConnection) throws -> MigrationStatus {
        MigrationStatus(app: migrations, table: try MigrationsTable.read(db))
    }

    /// The status of the database at `path`, read without changing a byte of it (immutable, or
    /// from a private copy when it has WAL frames). Throws `DatabaseError` for a wrong passphrase or
    /// a file that is not a database (its description says which), `FileSystemError` for a missing file.
    public func status(file path: String, passphrase: SecretBytes) throws -> (MigrationStatus, CipherFormat) {
        if (try DatabaseFileKind.classify(path: path)) == .missing {
            throw FileSystemError("read", path: path, code: ENOENT)
        }
        let snapshot = try ReadOnlySnapshot(of: path)
        defer { snapshot.remove() }
        let (db, cipher) = try DatabaseOpener.open(snapshot.databasePath, passphrase: passphrase, mode: snapshot.mode)
        return (try status(db), cipher)
    }
}
