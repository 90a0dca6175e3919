import Foundation
import SXCore
import SXDatabase
import SXSample

/// The database part of `sxkit demo`: inspect → test-key → rekey → inspect again → status/migrate,
/// through the same library calls the `db` commands make.
struct DatabaseDemo {
    let steps: DemoSteps
    let set: DatabaseSet
    let passphrase = SampleDataDirectory.defaultPassphrase
    static let newPassphrase = SecretBytes(Array("demo: a longer passphrase, with 'quotes' and ünïcode".utf8))

    init(steps: DemoSteps, set: DatabaseSet) throws {
        self.steps = steps
        self.set = set
    }

    func run() throws {
        steps.step("2. Inspect the databases without changing a byte (sxkit db inspect)")
        let before = DatabaseInspector().inspect(set, passphrase: passphrase)
        summarize(before)

        steps.step("3. Test passphrases (sxkit db test-key)")
        steps.say("the sample passphrase is \(DemoSteps.quoted(passphrase)); the wrong one tried is \"hunter2\"")
        for (label, secret) in [("the sample passphrase", passphrase), ("a wrong one", SecretBytes(Array("hunter2".utf8)))] {
            let results = set.targets.map { KeyTester.test($0, passphrase: secret) }
            steps.say("\(label): " + results.map { "\($0.database.label) \($0.outcome.rawValue)" }.joined(separator: ", "))
        }

        steps.step("4. Change the passphrase of both databases at once (sxkit db rekey)")
        let report = try DatabaseRekey.run(set, current: passphrase, new: Self.newPassphrase)
        for db in report.databases {
            steps.say("\(db.database.label): \(db.oldCipher.rawValue) → \(db.newCipher.rawValue) in \(String(format: "%.2f", db.seconds)) s")
        }
        let old = set.targets.map { KeyTester.test($0, passphrase: passphrase).outcome.rawValue }
        let new = set.targets.map { KeyTester.test($0, passphrase: Self.newPassphrase).outcome.rawValue }
        steps.say("old passphrase now: \(old.joined(separator: ", ")); new passphrase: \(new.joined(separator: ", "))")
        steps.say("the passphrase is now \(DemoSteps.quoted(Self.newPassphrase)) (was \(DemoSteps.quoted(passphrase)))")
        steps.say("the .bak copies under the old passphrase were erased (their salt overwritten) and removed")

        steps.step("5. Inspect again: same rows, new key")
        let after = DatabaseInspector().inspect(set, passphrase: Self.newPassphrase)
        let same = zip(before.databases, after.databases).allSatisfy { $0.details?.tables == $1.details?.tables }
        steps.say("every table has the same row count as before: \(same ? "yes" : "NO")")
        guard same else { throw DemoFailure("row counts changed across the passphrase change") }

        try migrations()
    }

    /// Status against SimpleX's lists, then a user-supplied step on top of them: up, and back down.
    private func migrations() throws {
        steps.step("6. Migration status against SimpleX's own lists (sxkit db status)")
        for target in set.targets {
            guard let role = target.role else { continue }
            let (status, _) = try Migrator(role: role).status(file: target.path, passphrase: Self.newPassphrase)
            let s = status.summary
            steps.say("\(target.label): \(s.known) of SimpleX's \(s.listed) \(role.rawValue) migrations, newest \(s.newest ?? "none"); "
                + "newer than sxkit: \(s.newerThanList.isEmpty ? "no" : "\(s.newerThanList.count)"); can go down: \(s.canGoDown.count) "
                + "(\(s.canGoDown.first ?? "") … \(s.canGoDown.last ?? "")); migrate would: \(MigrationText.describe(status))")
        }
        let chat = set.targets[0].path

        steps.step("7. Apply a user-supplied migration (sxkit db migrate --migrations DIR --confirm yesUp)")
        let extra = Migration(name: "20261121_demo_pinned_chats",
                              up: "CREATE TABLE pinned_chats (contact_id INTEGER PRIMARY KEY REFERENCES contacts ON DELETE CASCADE, pinned_at TEXT NOT NULL);",
                              down: "DROP TABLE pinned_chats;")
        let up = Migrator(migrations: SimpleXMigrations.chat + [extra])
            .migrate(file: chat, passphrase: Self.newPassphrase, confirmation: .yesUp)
        steps.say("applied: \(up.applied.joined(separator: ", ")); backup: \(up.backupPath.map(Path.basename) ?? "none")")
        steps.say("DBMigrationResult: \(up.result.coreJSON)")

        steps.step("8. Back to SimpleX's list: the extra step goes down with the SQL the database stored (sxkit db migrate --confirm …)")
        let refused = Migrator(role: .chat).migrate(file: chat, passphrase: Self.newPassphrase, confirmation: .yesUp, backup: .none)
        steps.say("with yesUp:     \(refused.result.coreJSON)")
        let down = Migrator(role: .chat).migrate(file: chat, passphrase: Self.newPassphrase, confirmation: .yesUpDown, backup: .none)
        steps.say("with yesUpDown: \(down.result.coreJSON); reverted \(down.reverted.joined(separator: ", "))")
    }

    private func summarize(_ report: DataDirectoryInspection) {
        for db in report.databases {
            var line = "\(db.database.label): \(db.classification.phrase)"
            if let d = db.details {
                line += ", \(ByteCount.format(Int64(d.pageCount * d.pageSize))), \(d.tables.count) tables, journal \(d.journalMode)"
                if let m = d.migrations { line += ", \(m.count) migrations up to \(m.last ?? "?")" }
            }
            steps.say(line)
            if let c = db.chat, let f = c.filesCheck {
                steps.say("  \(c.users ?? 0) users, \(c.contacts ?? 0) contacts, \(c.groups ?? 0) groups, \(c.chatItems ?? 0) chat items")
                steps.say("  files: \(f.referencedPresent + f.referencedMissing) referenced (\(f.referencedPresent) present, \(f.referencedMissing) missing; \(f.encrypted) encrypted, \(f.plaintext) plaintext), \(f.unreferenced) orphan")
            }
            for finding in db.findings { steps.say("  ! \(finding)") }
        }
    }
}
