import SXDatabase

/// The sentences `db migrate` and `db status` print for migration outcomes and plans.
enum MigrationText {
    static func describe(_ outcome: MigrationOutcome) -> String {
        let backup = outcome.backupPath.map { "; backup: \($0)" } ?? ""
        switch outcome.result {
        case .ok:
            if !outcome.applied.isEmpty {
                let how = outcome.newDatabase ? " (new database, no confirmation needed)" : ""
                return "applied \(count(outcome.applied.count, "up migration")): \(names(outcome.applied))\(how)\(backup)"
            }
            if !outcome.reverted.isEmpty {
                return "reverted \(count(outcome.reverted.count, "migration")): \(names(outcome.reverted))\(backup)"
            }
            return outcome.tableUpgraded
                ? "nothing to do; added the down column to the migrations table\(backup)"
                : "nothing to do"
        case .errorMigration(_, .upgrade(let ups)):
            return "refused: \(count(ups.count, "up migration")) pending (\(names(ups.map(\.upName)))); run with --confirm yesUp to apply"
        case .errorMigration(_, .downgrade(let downs)):
            return "refused: the database has \(count(downs.count, "migration")) the list does not know (\(names(downs))); run with --confirm yesUpDown to revert"
        case .errorMigration(_, .migrationError(let error)):
            return "cannot migrate: \(describe(error))"
        case .errorSQL(_, let message):
            let before = outcome.applied.isEmpty ? "" : "; applied before it: \(names(outcome.applied))"
            let reverted = outcome.reverted.isEmpty ? "" : "; reverted before it: \(names(outcome.reverted))"
            return "FAILED: \(message)\(before)\(reverted)\(backup)"
        case .errorNotADatabase:
            return "cannot open: \(outcome.detail ?? "the passphrase is wrong or the file is not a database")"
        case .invalidConfirmation:
            return "invalid confirmation: \(outcome.detail ?? "unknown mode")"
        }
    }

    static func describe(_ error: MTRError) -> String {
        switch error {
        case .noDown(let names):
            "the database has migrations the list does not know, and \(self.names(names)) \(names.count == 1 ? "has" : "have") no down SQL; use the app version (or --migrations folder) that made \(names.count == 1 ? "it" : "them")"
        case .different(let app, let db):
            "the lists differ: the list has \(app) where the database has \(db)"
        }
    }

    /// What `migrate` would do, for `db status`.
    static func describe(_ status: MigrationStatus) -> String {
        switch status.plan {
        case .nothing:
            return status.migrationsTable == .withoutDownColumn ? "nothing to run (the migrations table gets its down column)" : "nothing to do"
        case .up(let ups):
            let how = status.needsConfirmation ? "needs --confirm yesUp" : "new database: runs without asking"
            return "apply \(count(ups.count, "up migration")): \(names(ups.map(\.name))) (\(how))"
        case .down(let downs):
            return "revert \(count(downs.count, "migration")), last first: \(names(downs.map(\.name))) (needs --confirm yesUpDown)"
        case .error(let error):
            return "nothing: \(describe(error))"
        }
    }

    /// The console confirmation question.
    static func question(_ work: MigrationError, database: DatabaseTarget) -> String {
        switch work {
        case .upgrade(let ups):
            "\(database.label) (\(database.path)): apply \(count(ups.count, "up migration")): \(names(ups.map(\.upName)))?"
        case .downgrade(let downs):
            "\(database.label) (\(database.path)): revert \(count(downs.count, "migration")) the list does not know: \(names(downs))?"
        case .migrationError(let error):
            "\(database.label): \(describe(error))"
        }
    }

    static func names(_ list: [String]) -> String { list.joined(separator: ", ") }

    static func count(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
}
