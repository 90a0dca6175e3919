import CSQLCipher
import SXCore
#if canImport(Glibc)
import Glibc
#endif

public struct RekeyOptions: Sendable, Equatable {
    /// Keep each `<db>.bak` (it still opens with the OLD passphrase) instead of securely removing it.
    public var keepBackup: Bool

    public init(keepBackup: Bool = false) {
        self.keepBackup = keepBackup
    }
}

/// What happened to one database.
public struct RekeyedDatabase: Sendable, Equatable, Codable {
    public var database: DatabaseTarget
    public var oldCipher: CipherFormat
    public var newCipher: CipherFormat
    /// Time spent on this database (lock, export, verification, backup).
    public var seconds: Double
    /// The kept backup, which opens with the old passphrase; nil when it was removed.
    public var backup: String?
}

public struct RekeyReport: Sendable, Equatable, Codable {
    public var databases: [RekeyedDatabase]
    /// What an earlier interrupted run had left, settled before this one started.
    public var recovery: RekeyRecoveryReport?
}

/// Sets, changes or removes the passphrase of every database of a set (FORMATS §3): all databases end
/// on the new passphrase, or none changes. Each phase runs for every database before the next starts:
///
/// 1. lock each database exclusively (refusing if another program has it open) and checkpoint its WAL;
/// 2. export each to `<db>.exported` keyed with the new passphrase and verify it reads back;
/// 3. journal `backup`; copy each `<db>` to `<db>.bak` durably;
/// 4. journal `swap` (from here a crash is finished forward by `RekeyRecovery`);
/// 5. rename each `.exported` over its database;
/// 6. securely remove the backups (unless kept), then the journal.
///
/// A failure before step 4 deletes what this run wrote; the originals were never touched.
public enum DatabaseRekey {
    /// The `CrashPoint` names on the way, in order (`SXKIT_CRASH_AT` kills the process there).
    public static let crashPoints = [
        "rekey.exported-1", "rekey.exported-2", "rekey.bak-copy", "rekey.backed-up", "rekey.journal-written",
        "rekey.between-swaps", "rekey.before-bak-removal", "rekey.before-journal-delete",
    ]

    public static func run(_ set: DatabaseSet, current: SecretBytes, new: SecretBytes,
                           options: RekeyOptions = RekeyOptions()) throws -> RekeyReport {
        guard !current.constantTimeEquals(new) else { throw RekeyError.samePassphrase }
        let recovery = try RekeyRecovery.leftovers(in: set) == nil ? nil : try RekeyRecovery.recover(set)
        for target in set.targets where RekeyFiles.exists(RekeyFiles.backup(target.path)) {
            throw RekeyError.backupExists(path: RekeyFiles.backup(target.path))
        }
        let clock = ContinuousClock()
        var elapsed = [Duration](repeating: .zero, count: set.targets.count)
        func timed<T>(_ index: Int, _ body: () throws -> T) rethrows -> T {
            let start = clock.now
            defer { elapsed[index] += clock.now - start }
            return try body()
        }

        var locked: [LockedDatabase] = []
        defer { locked.forEach { $0.release() } }
        for (i, target) in set.targets.enumerated() {
            locked.append(try timed(i) { try LockedDatabase(target, passphrase: current) })
        }
        let paths = set.targets.map(\.path)
        let journalPath = RekeyFiles.journal(set)
        var journal = RekeyJournal(phase: RekeyJournal.backupPhase, databases: paths, keepBackup: options.keepBackup)

        do {
            for (i, db) in locked.enumerated() {
                let exported = RekeyFiles.exported(db.target.path)
                // A stale hot journal beside the copy would be replayed into it.
                for stale in [exported] + RekeyFiles.companions(exported) { try RekeyFiles.remove(stale) }
                try timed(i) { try db.export(to: exported, passphrase: new) }
                CrashPoint.reach("rekey.exported-\(i + 1)")
            }
            try journal.write(to: journalPath)
            for (i, db) in locked.enumerated() {
                try timed(i) { try db.backUp(to: RekeyFiles.backup(db.target.path)) }
            }
            CrashPoint.reach("rekey.backed-up")
            journal.phase = RekeyJournal.swapPhase
            try journal.write(to: journalPath)
        } catch {
            let wrote = try? RekeyJournal.read(journalPath)
            _ = try? RekeyRecovery.rollBack(paths, journal: wrote, journalPath: wrote == nil ? nil : journalPath, found: "")
            throw translate(error)
        }
        CrashPoint.reach("rekey.journal-written")

        do {
            for (i, db) in locked.enumerated() {
                try db.swap(with: RekeyFiles.exported(db.target.path))
                if i < locked.count - 1 { CrashPoint.reach("rekey.between-swaps") }
            }
            locked.forEach { $0.release() }
            CrashPoint.reach("rekey.before-bak-removal")
            if !options.keepBackup {
                for path in paths { try RekeyFiles.secureRemove(RekeyFiles.backup(path)) }
            } else {
                RekeyFiles.protectKeptBackups(paths)
            }
            CrashPoint.reach("rekey.before-journal-delete")
            try RekeyRecovery.finish(journalPath)
        } catch {
            // Past the point of no return: finish forward, as recovery would.
            locked.forEach { $0.release() }
            do {
                _ = try RekeyRecovery.rollForward(journal, journalPath: journalPath, found: "")
            } catch {
                throw RekeyError.unfinished(cause: "\(error)")
            }
        }

        let newCipher: CipherFormat = new.isEmpty ? .plaintext : .sqlcipher4
        let databases = locked.enumerated().map { i, db in
            RekeyedDatabase(database: db.target, oldCipher: db.cipher, newCipher: newCipher,
                            seconds: Double(elapsed[i].components.seconds) + Double(elapsed[i].components.attoseconds) / 1e18,
                            backup: options.keepBackup ? RekeyFiles.backup(db.target.path) : nil)
        }
        return RekeyReport(databases: databases, recovery: recovery)
    }

    /// Says "no space" as such; other failures keep their own sentence.
    static func translate(_ error: any Error) -> any Error {
        switch error {
        case let error as RekeyError:
            return error
        // sqlcipher_export reports a full disk as a plain SQLITE_ERROR carrying SQLITE_FULL's message.
        case let error as DatabaseError where error.code == SQLITE_FULL || error.message.contains(String(cString: sqlite3_errstr(SQLITE_FULL))):
            return RekeyError.noSpace(path: error.path, cause: error.message)
        case let error as FileSystemError where error.isNoSpace:
            return RekeyError.noSpace(path: error.path, cause: String(cString: strerror(error.code)))
        default:
            return RekeyError.failedBeforeSwap(cause: "\(error)")
        }
    }
}
