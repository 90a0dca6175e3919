import SXCore

/// Brings a database's schema to an app's migration list (FORMATS §4).
///
/// `migrations` must be ordered by name (byte order), as the built-in lists and
/// `MigrationFolder.load` are; the database's rows are compared with it in that order.
public struct Migrator: Sendable {
    public let migrations: [Migration]

    public init(migrations: [Migration]) {
        self.migrations = migrations
    }

    /// The built-in list for `role`.
    public init(role: DatabaseRole) {
        self.init(migrations: role.builtInMigrations)
    }

    /// What `migrate` would have to do; reads only.
    public func plan(_ db: DatabaseConnection) throws -> MigrationPlan {
        MigrationPlan.compare(app: migrations, database: try MigrationsTable.read(db).rows)
    }

    /// Migrates the database behind `db`, an open connection with its key applied (the caller applies
    /// the core's connection settings it wants; the core's `auto_vacuum = FULL` is applied here before
    /// the first write). Never throws: every outcome is a `DBMigrationResult`.
    ///
    /// Order: read the table and compare (no write); refuse what `confirmation` does not allow; copy
    /// the database to the backup path when it holds anything; create or upgrade the table; run each
    /// up in its own transaction then VACUUM, or each down in its own transaction, last first.
    ///
    /// A backup that cannot be written stops everything before the first change and is reported as
    /// `errorSQL`, as the core reports its own failed backup copy (simplex-chat `Mobile.hs`
    /// `chatMigrateInitKey`: any exception but a wrong key becomes `DBMErrorSQL dbFile (show e)`).
    public func migrate(db: DatabaseConnection, dbFile: String? = nil, confirmation: MigrationConfirmation,
                        backup: MigrationBackupPolicy = .besideDatabase) -> MigrationOutcome {
        let file = dbFile ?? db.path
        var outcome = MigrationOutcome(dbFile: file)
        let state: MigrationsTable.State
        do {
            state = try MigrationsTable.read(db)
        } catch {
            return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: "cannot read the migrations table: \(error)"), "\(error)")
        }
        outcome.newDatabase = state.isNew
        let plan = MigrationPlan.compare(app: migrations, database: state.rows)

        if case .error(let mismatch) = plan {
            return failed(outcome, .errorMigration(dbFile: file, migrationError: .migrationError(mtrError: mismatch)), nil)
        }
        if let work = plan.pendingWork, !(state.isNew || confirmation.allows(work)) {
            return failed(outcome, .errorMigration(dbFile: file, migrationError: work), nil)
        }
        // An up migration is never faked: without its SQL nothing is run (the core's list always has it).
        if case .up(let ups) = plan {
            let missing = ups.filter { $0.up == nil }.map(\.name)
            if !missing.isEmpty {
                outcome.withoutSQL = missing
                return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: Self.withoutSQLSentence(missing)), nil)
            }
        }
        // Nothing to run and a current table: nothing is written, so nothing is backed up.
        if plan == .nothing, !state.needsSetup || !state.exists { return outcome }

        if state.holdsData, let path = backup.path(for: db.path), Self.isFile(db.path) {
            do {
                try DatabaseBackup.copy(db, to: path)
                outcome.backupPath = path
            } catch {
                let sentence = "no migration was run, because the backup copy to '\(path)' failed: \(error)"
                return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: sentence), sentence)
            }
        }
        do {
            // The core's open ends with `auto_vacuum = FULL`; on a FULL file it rewrites page 1, so
            // sxkit runs it here, once the work is allowed and backed up (the up path's VACUUM then
            // makes any file FULL, as the core's does).
            try db.applyChatCoreAutoVacuum()
            if state.needsSetup {
                try MigrationsTable.ensure(db)
                outcome.tableUpgraded = true
            }
        } catch {
            return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: "cannot prepare the database (auto_vacuum, migrations table): \(error)"), "\(error)")
        }

        switch plan {
        case .up(let ups):
            for migration in ups {
                do {
                    try runUp(migration, on: db)
                } catch {
                    return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: "up migration \(migration.name) failed and was rolled back: \(error)"), "\(error)")
                }
                outcome.applied.append(migration.name)
            }
            do {
                try db.execute("VACUUM")
            } catch {
                return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: "the up migrations were applied, but VACUUM after them failed: \(error)"), "\(error)")
            }
        case .down(let downs):
            for migration in downs.reversed() {
                do {
                    try runDown(migration, on: db)
                } catch {
                    return failed(outcome, .errorSQL(dbFile: file, migrationSQLError: "down migration \(migration.name) failed and was rolled back: \(error)"), "\(error)")
                }
                outcome.reverted.append(migration.name)
            }
        case .nothing, .error:
            break
        }
        return outcome
    }

    /// Opens `path` for writing with `passphrase` (SQLCipher 4, else 3; empty = plaintext) and the
    /// core's connection settings, as the core opens it before migrating, and migrates it. A missing file, a wrong passphrase and a file that
    /// is not a database are `errorNotADatabase`, with `detail` saying which.
    public func migrate(file path: String, passphrase: SecretBytes, confirmation: MigrationConfirmation,
                        backup: MigrationBackupPolicy = .besideDatabase) -> MigrationOutcome {
        let outcome = MigrationOutcome(dbFile: path)
        if (try? DatabaseFileKind.classify(path: path)) == .missing {
            return failed(outcome, .errorNotADatabase(dbFile: path), "there is no file at '\(path)'")
        }
        let db: DatabaseConnection
        do {
            (db, _) = try DatabaseOpener.open(path, passphrase: passphrase, mode: .readWrite, coreSettings: true)
            // The core's busy_timeout is 100 ms, but it retries BUSY and LOCKED for up to 3 s in its own
            // loop (simplexmq `Agent/Store/SQLite/Common.hs:107-118`, dbBusyLoop); SQLite's handler gets that budget.
            try db.busyTimeout(ms: 3000)
        } catch {
            return failed(outcome, .errorNotADatabase(dbFile: path), "\(error)")
        }
        return migrate(db: db, dbFile: path, confirmation: confirmation, backup: backup)
    }

    /// Like `migrate(file:…)`, with the mode given by name as FORMATS §4 spells it; an unknown name
    /// (or `console` without `ask`) is `invalidConfirmation` and nothing is opened.
    public func migrate(file path: String, passphrase: SecretBytes, confirmationName: String,
                        ask: ((MigrationError) -> Bool)? = nil,
                        backup: MigrationBackupPolicy = .besideDatabase) -> MigrationOutcome {
        guard let confirmation = MigrationConfirmation(name: confirmationName, ask: ask) else {
            return failed(MigrationOutcome(dbFile: path), .invalidConfirmation,
                          "'\(confirmationName)' is not a confirmation mode; use one of \(MigrationConfirmation.names.joined(separator: ", "))")
        }
        return migrate(file: path, passphrase: passphrase, confirmation: confirmation, backup: backup)
    }

    // MARK: Steps

    /// One transaction: record the migration (with its down SQL, so it can be reverted by a later
    /// app that no longer knows it, and the core's `ts` text), then run its SQL, as the core does
    /// (simplexmq `Agent/Store/SQLite/Migrations.hs:55-57`: insert, then exec).
    private func runUp(_ migration: Migration, on db: DatabaseConnection) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            do {
                let insert = try db.prepare("INSERT INTO migrations (name, down, ts) VALUES (?1, ?2, ?3)")
                try insert.bind(migration.name, at: 1)
                try insert.bind(migration.down.map(ColumnValue.text) ?? .null, at: 2)
                try insert.bind(MigrationsTable.timestampNow(), at: 3)
                try insert.step()
            }
            try db.execute(migration.up ?? "")
            try db.execute("COMMIT")
        } catch {
            db.rollbackIfOpen()
            throw error
        }
    }

    /// One transaction: run the down SQL the database recorded, then forget the migration.
    private func runDown(_ migration: AppliedMigration, on db: DatabaseConnection) throws {
        try db.execute("BEGIN IMMEDIATE")
        do {
            try db.execute(migration.down ?? "")
            do {
                let delete = try db.prepare("DELETE FROM migrations WHERE name = ?1")
                try delete.bind(migration.name, at: 1)
                try delete.step()
            }
            try db.execute("COMMIT")
        } catch {
            db.rollbackIfOpen()
            throw error
        }
    }

    /// Why up migrations known by name only were not run (no CLI flag here: the caller adds how to supply SQL).
    static func withoutSQLSentence(_ names: [String]) -> String {
        let one = names.count == 1
        let which = names.count <= 3 ? names.joined(separator: ", ") : "\(names[0]) … \(names[names.count - 1])"
        return "nothing was run: sxkit knows \(one ? "this migration" : "these \(names.count) migrations") by name only and has no SQL to apply \(one ? "it" : "them"): "
            + which
    }

    private func failed(_ outcome: MigrationOutcome, _ result: DBMigrationResult, _ detail: String?) -> MigrationOutcome {
        var outcome = outcome
        outcome.result = result
        outcome.detail = detail
        return outcome
    }

    /// In-memory and temporary databases have no file to copy.
    private static func isFile(_ path: String) -> Bool {
        !path.isEmpty && path != ":memory:" && POSIXFile.linkStatus(path) != nil
    }
}
