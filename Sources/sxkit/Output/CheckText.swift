import SXCore
import SXDatabase
import SXStorage

/// `sxkit check` as text: a short list like restic's, one line per part, then the verdict.
enum CheckText {
    /// Problem rows shown per database unless --verbose.
    static let rowLimit = 10

    static func render(_ report: ProfileCheckReport, quiet: Bool, verbose: Bool) -> String {
        let verdict = report.whole ? "profile is whole\n"
            : "profile is NOT whole: " + report.problems.joined(separator: "; ") + "\n"
        if quiet { return report.whole ? "" : verdict }
        var out = ""
        for database in report.databases { out += line(database, verbose: verbose) }
        if let files = report.files {
            var text = "files: \(files.referenced) referenced, \(files.present) present"
            if !files.missing.isEmpty { text += ", \(files.missing.count) missing: \(names(files.missing, verbose))" }
            if !files.escapingPaths.isEmpty {
                text += ", \(files.escapingPaths.count) with a path leaving the files folder (not followed): \(names(files.escapingPaths, verbose))"
            }
            out += text + "\n"
            if let crypto = report.cryptoFiles {
                out += "CryptoFiles: \(crypto.verified) verified, \(crypto.failed.count) failed"
                    + (crypto.failed.isEmpty ? "" : ":") + "\n"
                for failure in crypto.failed.prefix(verbose ? .max : rowLimit) { out += "  \(failure.path): \(failure.reason)\n" }
                if !verbose, crypto.failed.count > rowLimit { out += "  … \(crypto.failed.count - rowLimit) more (--verbose lists all)\n" }
            } else {
                out += "CryptoFiles: \(files.encrypted), tags not read (--read-data verifies them)\n"
            }
        } else {
            out += "files: not checked (the chat database's files table could not be read)\n"
        }
        out += "orphans: \(report.orphans.count)" + (report.orphans.isEmpty ? "" : ": \(names(report.orphans, verbose))") + "\n"
        out += "leftovers: \(report.leftovers.count)" + (report.leftovers.isEmpty ? "" : " (`sxkit storage` lists them, `sxkit clean` removes them)") + "\n"
        if verbose {
            for leftover in report.leftovers { out += "  \(leftover.path): \(leftover.kind), \(ByteCount.format(leftover.bytes))\n" }
        }
        for interruption in report.interruptions {
            out += "interrupted: \(interruption.summary) — \(ErrorText.words(.recover(interruption.operation)))\n"
        }
        return out + verdict
    }

    /// "chat database: ok (quick_check; SQLCipher 4 (4.6.1 community), journal delete)", then the
    /// problems found, indented.
    static func line(_ health: DatabaseHealth, verbose: Bool) -> String {
        var facts: [String] = []
        if !health.checks.isEmpty { facts.append(health.checks.joined(separator: " + ")) }
        switch health.format {
        case .sqlcipher4?: facts.append("SQLCipher 4" + (health.cipherVersion.map { " (\($0))" } ?? ""))
        case .sqlcipher3?: facts.append("SQLCipher 3 settings" + (health.cipherVersion.map { " (\($0))" } ?? ""))
        case .plaintext?: facts.append("plaintext SQLite")
        case nil: break
        }
        if let mode = health.journalMode { facts.append("journal \(mode)") }
        if let wal = health.walBytes { facts.append("-wal \(ByteCount.format(wal)), read from a private copy") }
        var out = "\(health.database.label): \(health.status.phrase)" + (facts.isEmpty ? "" : " (\(facts.joined(separator: "; ")))") + "\n"
        for problem in health.problems.prefix(verbose ? .max : rowLimit) { out += "  \(problem)\n" }
        if !verbose, health.problems.count > rowLimit { out += "  … \(health.problems.count - rowLimit) more (--verbose lists all)\n" }
        return out
    }

    static func names(_ names: [String], _ verbose: Bool) -> String {
        guard !verbose, names.count > rowLimit else { return names.map { FileNameBytes.display($0) }.joined(separator: ", ") }
        return names.prefix(rowLimit).map { FileNameBytes.display($0) }.joined(separator: ", ") + ", … (\(names.count - rowLimit) more)"
    }
}
