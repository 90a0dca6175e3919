import CSQLCipher
import Foundation
import SXCore

/// One source database, opened with its current passphrase and held under an exclusive lock from
/// before the export until after the swap, so nothing can write to it in between.
///
/// `locking_mode = EXCLUSIVE` is set before the first read: SQLite then keeps every lock it takes,
/// and a WAL database keeps its index in heap memory, which needs the file to itself, so any other
/// connection makes the open fail with SQLITE_BUSY instead of being silently shut out later.
final class LockedDatabase {
    let target: DatabaseTarget
    let cipher: CipherFormat
    let wasWAL: Bool
    /// Whether `<db>-wal` was there before this run opened the database: a WAL database closed
    /// cleanly has none, and a run that stops before the swap must leave none either.
    private let walExisted: Bool
    private var swapped = false
    let facts: DatabaseFacts
    private var connection: DatabaseConnection?
    /// Descriptors of the database file opened by sxkit itself. They stay open until the connection
    /// is closed: closing one would release every POSIX lock this process holds on the file.
    private var pinned: [Int32] = []

    /// How long to wait for a lock someone else holds before calling the database in use.
    static let busyTimeoutMilliseconds = 300

    init(_ target: DatabaseTarget, passphrase: SecretBytes) throws {
        self.target = target
        // ATTACH creates the new copy with the main connection's open flags, hence readWriteCreate;
        // a missing database must still fail rather than be created empty.
        guard RekeyFiles.exists(target.path) else { throw FileSystemError("open", path: target.path, code: ENOENT) }
        walExisted = RekeyFiles.exists(DataDirectoryNames.wal(of: target.path))
        do {
            let (db, cipher) = try DatabaseOpener.open(target.path, passphrase: passphrase, mode: .readWriteCreate) { db in
                try db.busyTimeout(ms: Self.busyTimeoutMilliseconds)
                try db.execute("PRAGMA locking_mode = EXCLUSIVE")
            }
            try db.execute("BEGIN EXCLUSIVE; COMMIT;")
            wasWAL = try db.scalarText("PRAGMA journal_mode")?.lowercased() == "wal"
            if wasWAL {
                // TRUNCATE leaves the WAL empty, so the database file alone is complete before it is copied.
                let busy = try db.scalarInt("PRAGMA wal_checkpoint(TRUNCATE)")
                guard busy == 0 else { throw RekeyError.databaseInUse(path: target.path) }
                // When this connection closes after the swap, SQLite must not delete `<db>-wal`,
                // which by then may belong to the new database.
                var persist: Int32 = 1
                sqlite3_file_control(db.handle, "main", SQLITE_FCNTL_PERSIST_WAL, &persist)
            }
            facts = try DatabaseFacts(db, schema: "main")
            self.cipher = cipher
            connection = db
        } catch let error as DatabaseError where error.code == SQLITE_BUSY || error.code == SQLITE_LOCKED {
            throw RekeyError.databaseInUse(path: target.path)
        }
    }

    deinit { release() }

    /// Closes the connection (dropping the lock), then the pinned descriptors.
    func release() {
        if connection != nil, wasWAL, !walExisted, !swapped {
            // The `-wal` this connection made (PERSIST_WAL keeps it at close), emptied by the
            // checkpoint: removed while the lock still keeps every other connection out. Never after
            // the swap: the name then belongs to the new database, which others may have opened.
            let wal = DataDirectoryNames.wal(of: target.path)
            if RekeyFiles.size(wal) == 0 { unlink(wal) }
        }
        connection = nil
        for fd in pinned { close(fd) }
        pinned.removeAll()
    }

    /// Writes `<db>.exported` keyed with `passphrase` (FORMATS §3) and checks that it reads back with
    /// it, holding the same schema, row counts and settings.
    func export(to path: String, passphrase: SecretBytes) throws {
        guard let db = connection else { preconditionFailure("export after release") }
        let quotedPath = path.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''")
        try db.executeQuoting(passphrase, between: "ATTACH DATABASE '\(quotedPath)' AS exported KEY '", and: "';",
                              operation: "attach the new copy to", redacted: "ATTACH DATABASE '\(quotedPath)' AS exported KEY '…'")
        do {
            // sqlcipher_export copies schema and rows but neither of these settings: auto_vacuum must
            // be set while the new file is still empty, the header values after.
            try db.execute("PRAGMA exported.auto_vacuum = \(facts.autoVacuum)")
            try db.execute("SELECT sqlcipher_export('exported')")
            try db.execute("PRAGMA exported.user_version = \(facts.userVersion); PRAGMA exported.application_id = \(facts.applicationID)")
        } catch {
            try? db.execute("DETACH DATABASE exported")
            throw error
        }
        try db.execute("DETACH DATABASE exported")
        try verifyExport(path, passphrase: passphrase)
        // The copy replaces the database, so it takes the database's permissions (often 0600), not the umask's.
        if let st = POSIXFile.linkStatus(target.path), chmod(path, st.st_mode & 0o7777) != 0 {
            throw FileSystemError("set permissions on", path: path)
        }
        try RekeyFiles.fsyncFile(path)
    }

    private func verifyExport(_ path: String, passphrase: SecretBytes) throws {
        let (copy, cipher) = try DatabaseOpener.open(path, passphrase: passphrase, mode: .readWrite)
        let expected: CipherFormat = passphrase.isEmpty ? .plaintext : .sqlcipher4
        guard cipher == expected else {
            throw RekeyError.verificationFailed(path: path, detail: "it opened as \(cipher.rawValue), not \(expected.rawValue)")
        }
        let found = try DatabaseFacts(copy, schema: "main")
        if let difference = facts.difference(from: found) {
            throw RekeyError.verificationFailed(path: path, detail: difference)
        }
        if wasWAL {
            // The journal mode lives in the file header; set it on the copy so WAL stays WAL.
            guard try copy.scalarText("PRAGMA journal_mode = WAL")?.lowercased() == "wal" else {
                throw RekeyError.verificationFailed(path: path, detail: "it cannot be switched to WAL mode")
            }
        }
    }

    /// Copies the (checkpointed, locked) database file to `destination` durably.
    /// The backup is a hard link when the file system allows it: the old file is never written again
    /// (the lock keeps writers out, and the swap renames a new file over the name), so a second name
    /// for it is as good as a copy and costs nothing. Otherwise the bytes are copied.
    func backUp(to destination: String) throws {
        if link(target.path, destination) == 0 {
            try POSIXFile.fsyncDirectory(Path.parent(destination))
            CrashPoint.reach("rekey.bak-copy")
            return
        }
        guard [EXDEV, EPERM, EOPNOTSUPP, EMLINK].contains(errno) else {
            throw FileSystemError("link the backup", path: destination)
        }
        let fd = try POSIXFile.open(target.path, flags: O_RDONLY)
        pinned.append(fd)
        try RekeyFiles.copyDurably(from: fd, sourcePath: target.path, to: destination)
    }

    /// Replaces the database with its verified copy. The WAL is empty (checkpointed under the lock),
    /// and it and the -shm go first: frames or an index left beside the new file would be read as its own.
    func swap(with exported: String) throws {
        swapped = true
        try RekeyRecovery.replace(target.path, with: exported)
    }
}

/// What a database must keep through an export.
struct DatabaseFacts: Equatable {
    var schema: [[ColumnValue]]
    var rowCounts: [String: Int64]
    var userVersion: Int64
    var applicationID: Int64
    var autoVacuum: Int64

    init(_ db: DatabaseConnection, schema name: String) throws {
        schema = try db.rows("SELECT type, name, tbl_name, sql FROM \(name).sqlite_master ORDER BY type, name")
        var counts: [String: Int64] = [:]
        for row in try db.rows("SELECT name FROM \(name).sqlite_master WHERE type = 'table' AND coalesce(rootpage, 1) > 0") {
            guard case .text(let table) = row[0] else { continue }
            let quoted = "\"" + table.split(separator: "\"", omittingEmptySubsequences: false).joined(separator: "\"\"") + "\""
            counts[table] = try db.scalarInt("SELECT count(*) FROM \(name).\(quoted)") ?? 0
        }
        rowCounts = counts
        userVersion = try db.scalarInt("PRAGMA \(name).user_version") ?? 0
        applicationID = try db.scalarInt("PRAGMA \(name).application_id") ?? 0
        autoVacuum = try db.scalarInt("PRAGMA \(name).auto_vacuum") ?? 0
    }

    /// A phrase naming the first difference, or nil when the copy matches.
    func difference(from copy: DatabaseFacts) -> String? {
        if schema != copy.schema { return "its schema differs" }
        for (table, count) in rowCounts.sorted(by: { $0.key < $1.key }) where copy.rowCounts[table] != count {
            return "table \(table) has \(copy.rowCounts[table].map(String.init) ?? "no") rows instead of \(count)"
        }
        if userVersion != copy.userVersion { return "user_version is \(copy.userVersion) instead of \(userVersion)" }
        if applicationID != copy.applicationID { return "application_id is \(copy.applicationID) instead of \(applicationID)" }
        if autoVacuum != copy.autoVacuum { return "auto_vacuum is \(copy.autoVacuum) instead of \(autoVacuum)" }
        return nil
    }
}
