import CSQLCipher
import SXCore
#if canImport(Glibc)
import Glibc
#endif

public struct RekeyOptions: Sendable, Equatable {
    /// Keep each `<db>.bak` (it still opens with the OLD passphrase) instead of securely removing it.
    public var keepBackup: Bool
    /// The desktop app's `settings.properties` that belongs to these databases: if it stored the old
    /// passphrase, it is put in step with the change (`DesktopSettingsChange`).
    public var desktopSettings: String?

    public init(keepBackup: Bool = false, desktopSettings: String? = nil) {
        self.keepBackup = keepBackup
        self.desktopSettings = desktopSettings
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
    /// What happened to the desktop app's stored passphrase; nil when there is no settings file.
    public var desktopSettings: DesktopSettingsOutcome?
}

/// Sets, changes or removes the passphrase of every database of a set (FORMATS §3): all databases end
/// on the new passphrase, or none changes. Each phase runs for every database before the next starts:
///
/// 1. lock each database exclusively (refusing if another program has it open) and checkpoint its WAL;
/// 2. export each to `<db>.exported` keyed with the new passphrase and verify it reads back;
/// 3. journal `backup`; stage the desktop settings' new content beside them (when they stored the old
///    passphrase); copy each `<db>` to `<db>.bak` durably;
/// 4. journal `swap` (from here a crash is finished forward by `RekeyRecovery`);
/// 5. rename each `.exported` over its database, then the staged settings over the settings;
/// 6. securely remove the backups (unless kept), then the journal.
///
/// A failure before step 4 deletes what this run wrote; the originals were never touched.
public enum DatabaseRekey {
    /// The `CrashPoint` names on the way, in order (`SXKIT_CRASH_AT` kills the process there).
    public static let crashPoints = [
        "rekey.exported-1", "rekey.exported-2", "rekey.settings-staged", "rekey.bak-copy", "rekey.backed-up", "rekey.journal-written",
        "rekey.between-swaps", "rekey.before-settings", "rekey.before-bak-removal", "rekey.before-journal-delete",
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
        // Every database's exported copy exists beside it until the swap (the backups are hard
        // links where the file system allows): refused before anything is written.
        try FreeSpace.require(paths.map { (RekeyFiles.size($0) ?? 0, $0) }, for: "changing the passphrase")
        let journalPath = RekeyFiles.journal(set)
        var journal = RekeyJournal(phase: RekeyJournal.backupPhase, databases: paths, keepBackup: options.keepBackup)
        // The keys are verified by now, so `current` is the passphrase the settings may hold.
        var settingsOutcome: DesktopSettingsOutcome?
        var settingsChange: DesktopSettingsChange?
        switch Self.planSettings(options.desktopSettings, current: current, new: new) {
        case .prepared(let change)?:
            settingsChange = change
            journal.desktopSettings = .init(path: change.path, kind: change.kind, identity: change.identity)
        case .outcome(let outcome)?:
            settingsOutcome = outcome
        case nil:
            break
        }

        do {
            for (i, db) in locked.enumerated() {
                let exported = RekeyFiles.exported(db.target.path)
                // A stale hot journal beside the copy would be replayed into it.
                for stale in [exported] + RekeyFiles.companions(exported) { try RekeyFiles.remove(stale) }
                try timed(i) { try db.export(to: exported, passphrase: new) }
                CrashPoint.reach("rekey.exported-\(i + 1)")
            }
            try journal.write(to: journalPath)
            if let settingsChange {
                try DesktopSettings.stage(settingsChange)
                CrashPoint.reach("rekey.settings-staged")
            }
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
            CrashPoint.reach("rekey.before-settings")
            if let staged = journal.desktopSettings { settingsOutcome = RekeyRecovery.installSettings(staged) }
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
                let finished = try RekeyRecovery.rollForward(journal, journalPath: journalPath, found: "")
                settingsOutcome = finished.desktopSettings ?? settingsOutcome
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
        return RekeyReport(databases: databases, recovery: recovery, desktopSettings: settingsOutcome)
    }

    /// The settings' plan; a file that cannot be read is reported and left alone, never a reason to
    /// stop the passphrase change.
    static func planSettings(_ path: String?, current: SecretBytes, new: SecretBytes) -> DesktopSettingsPlan? {
        guard let path else { return nil }
        do {
            return try DesktopSettings.planPassphraseChange(at: path, old: current, new: new)
        } catch {
            return .outcome(DesktopSettingsOutcome(path: path, action: .leftUnchanged,
                message: "the desktop app's settings (\(path)) could not be read (\(error)); they were left unchanged: if they store the passphrase, the app will ask for it: give it the new one"))
        }
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
