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
        case .errorSQL(_, let message) where !outcome.withoutSQL.isEmpty:
            return "refused: \(message); give their SQL as NAME.up.sql files with --migrations DIR, or let SimpleX Chat apply them"
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
            let missing = status.summary.pendingWithoutSQL
            if !missing.isEmpty {
                return "nothing: \(count(ups.count, "up migration")) pending, and sxkit has no SQL for \(missing.count == ups.count ? "any of them" : "\(missing.count) of them: \(short(missing))"); give it as NAME.up.sql files with --migrations DIR, or let SimpleX Chat apply them"
            }
            let how = status.needsConfirmation ? "needs --confirm yesUp" : "new database: runs without asking"
            return "apply \(count(ups.count, "up migration")): \(names(ups.map(\.name))) (\(how))"
        case .down(let downs):
            return "revert \(count(downs.count, "migration")), last first: \(names(downs.map(\.name))) (needs --confirm yesUpDown)"
        case .error(let error):
            return "nothing: \(describe(error))"
        }
    }

    /// `db status`'s lines for one database: what the table records, in the list's terms.
    static func summary(_ status: MigrationStatus, list: String) -> [(String, String)] {
        let s = status.summary
        var lines: [(String, String)] = [("list", list)]
        if status.migrationsTable == .missing {
            lines.append(("recorded", "nothing: the database has no migrations table"))
        } else {
            lines.append(("recorded", s.recorded == 0 ? "no migration" : "\(s.recorded): \(short(status.migrations.filter { $0.state != .pending }.map(\.name)))"))
            lines.append(("known", "\(s.known) of the list's \(s.listed)"))
            if let newest = s.newest {
                lines.append(("newest", "\(newest), applied \(s.newestAppliedAt ?? "?")"))
            }
            lines.append(("newer than sxkit", s.newerThanList.isEmpty ? "no" : "yes, \(s.newerThanList.count): \(short(s.newerThanList))"))
            let cannot = s.cannotGoDown.isEmpty ? "" : "; \(s.cannotGoDown.count) cannot (no down SQL stored)"
            lines.append(("can go down", s.canGoDown.isEmpty ? "none\(cannot)" : "\(s.canGoDown.count): \(short(s.canGoDown))\(cannot)"))
            if status.migrationsTable == .withoutDownColumn {
                lines.append(("down column", "missing (made before it existed; migrate adds it)"))
            }
        }
        let noSQL = s.pendingWithoutSQL.isEmpty ? "" : s.pendingWithoutSQL.count == s.pending.count
            ? " (sxkit has no SQL for them)" : " (sxkit has no SQL for \(s.pendingWithoutSQL.count))"
        lines.append(("pending", s.pending.isEmpty ? "none" : "\(s.pending.count): \(short(s.pending))\(noSQL)"))
        lines.append(("migrate would", describe(status)))
        return lines
    }

    /// Up to four names, else the first and the last.
    static func short(_ list: [String]) -> String {
        list.count <= 4 ? names(list) : "\(list[0]) … \(list[list.count - 1])"
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
