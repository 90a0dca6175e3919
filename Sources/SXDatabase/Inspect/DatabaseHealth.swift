import Foundation
import SXCore

/// Whether one database is whole, as `sxkit check` reports it: opened with the passphrase (which
/// cipher settings, which SQLCipher), then SQLite's own checks. Field names are the `--json`
/// document's.
public struct DatabaseHealth: Sendable, Codable, Equatable {
    public enum Status: String, Sendable, Codable {
        /// Opened, and every check it ran said "ok".
        case ok
        /// Opened (or starts like a database), but a check found damage, or a page could not be read.
        case damaged
        case missing
        /// Not a database at all (empty, another kind of file, bytes that are not SQLCipher's).
        case notADatabase
        /// Encrypted, and no passphrase was given.
        case passphraseNeeded
        /// Encrypted, and the passphrase opens it with neither SQLCipher 4 nor 3 settings. A damaged
        /// first page reads the same way: SQLCipher cannot tell the two apart.
        case wrongPassphrase
    }

    public var database: DatabaseTarget
    public var status: Status
    /// How the file is encrypted, once opened.
    public var format: CipherFormat?
    /// `PRAGMA cipher_version` of the SQLCipher that opened it (for an encrypted database).
    public var cipherVersion: String?
    /// "wal" or "delete" (the rollback journal SimpleX's core uses), once opened.
    public var journalMode: String?
    /// Bytes of the `-wal` file beside the database, when there is one (read from a private copy).
    public var walBytes: Int64?
    /// The checks that ran, in order: `quick_check`, or `integrity_check` and `cipher_integrity_check`.
    public var checks: [String]
    /// What is wrong, in words: the checks' rows that are not "ok", or why the file did not open.
    public var problems: [String]

    public var isOK: Bool { status == .ok }
}

/// Runs the checks of `DatabaseHealth` without changing a byte or a timestamp of the database: it
/// is opened `immutable=1`, or from a private copy when it has WAL frames (`ReadOnlySnapshot`).
///
/// What the pragmas return (SQLite's pragma documentation; SQLCipher API documentation,
/// `cipher_integrity_check`, added in SQLCipher 4.2.0 per its CHANGELOG): `quick_check` and
/// `integrity_check` return the single row "ok" when they find nothing, else one row per problem;
/// `cipher_integrity_check` checks every page's HMAC on its own and returns one row per page that
/// fails (no rows when all verify). A page SQLCipher cannot decrypt also makes the SQLite checks
/// stop with an error, which is reported as a problem like any row.
public enum DatabaseHealthCheck {
    /// Checks `target`. `deep` runs `integrity_check` and `cipher_integrity_check` (every page read
    /// twice, indexes cross-checked) instead of `quick_check`. `whileOpen` runs on the same read-only
    /// connection after the checks (the chat database's files table is read there, so the
    /// passphrase's key derivation is paid once); its error becomes a problem of its own.
    public static func run(_ target: DatabaseTarget, passphrase: SecretBytes?, deep: Bool, tempRoot: String? = nil,
                           whileOpen: ((DatabaseConnection) throws -> Void)? = nil) -> DatabaseHealth {
        var health = DatabaseHealth(database: target, status: .ok, format: nil, cipherVersion: nil, journalMode: nil,
                                    walBytes: POSIXFile.linkStatus(DataDirectoryNames.wal(of: target.path)).map { Int64($0.st_size) },
                                    checks: [], problems: [])
        let key: SecretBytes
        switch ReadAccess.of(target.path) {
        case .missing:
            health.status = .missing
            health.problems.append("the file does not exist")
            return health
        case .unusable(let reason):
            health.status = .notADatabase
            health.problems.append(reason)
            return health
        case .plaintext:
            key = SecretBytes([])
        case .encrypted:
            guard let passphrase, !passphrase.isEmpty else {
                health.status = .passphraseNeeded
                health.problems.append("the database is encrypted and no passphrase was given")
                return health
            }
            key = passphrase
        }
        let snapshot: ReadOnlySnapshot
        do {
            snapshot = try ReadOnlySnapshot(of: target.path, tempRoot: tempRoot)
        } catch {
            health.status = .damaged
            health.problems.append("cannot make a private copy to read the WAL from: \(ErrorCause.text(of: error))")
            return health
        }
        defer { snapshot.remove() }
        let db: DatabaseConnection, format: CipherFormat
        do {
            (db, format) = try DatabaseOpener.open(snapshot.databasePath, passphrase: key, mode: snapshot.mode)
        } catch let error as DatabaseError where error.isNotADatabase {
            if case .plaintextSQLite? = error.fileKind {
                health.status = .damaged
                health.problems.append("the file starts like a SQLite database but cannot be read (truncated or damaged): \(error.message)")
            } else {
                health.status = .wrongPassphrase
                health.problems.append(PassphraseWording.wrong(target.path))
            }
            return health
        } catch {
            health.status = .damaged
            health.problems.append("the database cannot be opened: \(ErrorCause.text(of: error))")
            return health
        }
        health.format = format
        if format != .plaintext { health.cipherVersion = (try? db.scalarText("PRAGMA cipher_version")) ?? nil }
        if deep {
            let report = DatabaseDetailsReader(db: db, format: format).integrity()
            health.checks = format == .plaintext ? ["integrity_check"] : ["integrity_check", "cipher_integrity_check"]
            // The HMAC failures first: they name the damaged pages, while integrity_check lists every
            // b-tree that could not be read because of them.
            health.problems += lines(report.cipherIntegrityCheck ?? [], of: "cipher_integrity_check")
            if report.integrityCheck != ["ok"] { health.problems += lines(report.integrityCheck, of: "integrity_check") }
        } else {
            health.checks = ["quick_check"]
            let rows = rows(of: "quick_check", db)
            if rows != ["ok"] { health.problems += lines(rows, of: "quick_check") }
        }
        health.journalMode = journalMode(target.path, db: db, format: format, key: key, snapshot: snapshot, tempRoot: tempRoot)
        if let whileOpen {
            do {
                try whileOpen(db)
            } catch {
                health.problems.append("cannot be read: \(ErrorCause.text(of: error))")
            }
        }
        if !health.problems.isEmpty { health.status = .damaged }
        return health
    }

    /// One problem a line, named by its check. A row may hold several lines, and SQLite heads a
    /// damaged database's rows with "*** in database main ***", which says nothing on its own.
    static func lines(_ rows: [String], of pragma: String) -> [String] {
        rows.flatMap { $0.split(separator: "\n") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !($0.hasPrefix("*** in database ") && $0.hasSuffix(" ***")) }
            .map { "\(pragma): \($0)" }
    }

    /// The rows a check pragma returns; an error that stops it is one row saying so.
    static func rows(of pragma: String, _ db: DatabaseConnection) -> [String] {
        do {
            return try db.rows("PRAGMA \(pragma)").compactMap { $0.first?.textValue }
        } catch let error as DatabaseError {
            return ["stopped: \(error.message) (\(error.codeName))"]
        } catch {
            return ["stopped: \(ErrorCause.text(of: error))"]
        }
    }

    /// WAL frames mean WAL mode (the private copy's connection, opened read-only rather than
    /// immutable, reports it). Otherwise page 1 says (header bytes 18 and 19 are 2 for WAL, 1 for a
    /// rollback journal; SQLite's file format, "The database header"): an immutable connection
    /// always reports "delete". The decrypted page is read through the `sqlite_dbpage` table where
    /// the SQLite build has it, which costs nothing; else `JournalModeProbe` reads it, at the price
    /// of a second key derivation.
    private static func journalMode(_ path: String, db: DatabaseConnection, format: CipherFormat, key: SecretBytes,
                                    snapshot: ReadOnlySnapshot, tempRoot: String?) -> String? {
        if snapshot.isCopy { return (try? db.scalarText("PRAGMA journal_mode")) ?? nil }
        if let versions = try? db.rows("SELECT substr(data, 19, 2) FROM sqlite_dbpage WHERE pgno = 1").first?.first,
           case .blob(let bytes) = versions, bytes.count == 2 {
            return bytes == [2, 2] ? "wal" : "delete"
        }
        guard let pageSize = (try? db.scalarInt(format == .plaintext ? "PRAGMA page_size" : "PRAGMA cipher_page_size")) ?? nil,
              let wal = JournalModeProbe.isWAL(path: path, pageSize: Int(pageSize), passphrase: key, format: format, tempRoot: tempRoot)
        else { return nil }
        return wal ? "wal" : "delete"
    }
}
