import Foundation
import SXCore
import SXDatabase
import SXSample
import SXTestSupport
import Testing

/// `sxkit migrate send/receive` end to end through a folder relay: the sample profile moves to a
/// second data directory with identical files and row counts, and every interruption resumes.
@Suite(.ownThreads) struct MigrateCommandTests {
    struct Setup {
        let temp: TempFolder
        let source: SampleDataDirectory
        let pass: String
        var relay: String { temp.file("relay") }
        var descriptions: String { temp.file("desc") }
        var target: String { temp.file("target") }

        init() throws {
            temp = try TempFolder("sxkit-migrate-cli")
            for folder in ["relay", "desc"] { try FileManager.default.createDirectory(atPath: temp.file(folder), withIntermediateDirectories: true) }
            source = try SampleCopies.create(at: temp.file("source"), options: .init(photos: 2, documents: 3, chatItems: 60))
            pass = try temp.write("pass", Array(ArchiveImportCommandTests.newPassphrase.utf8))
            chmod(pass, 0o600)  // a private passphrase file: no warning on stderr
        }

        func send(_ extra: [String] = [], environment: [String: String] = [:]) throws -> CLIResult {
            try CLI.run(["migrate", "send", "--data-dir", source.directory.root, "--relay", relay, "-o", descriptions,
                         "--passphrase-file", pass] + extra, environment: environment)
        }

        func receive(passphraseFile: String? = nil, _ extra: [String] = [], environment: [String: String] = [:]) throws -> CLIResult {
            try CLI.run(["migrate", "receive", try recipientDescription(), "--data-dir", target, "--passphrase-file", passphraseFile ?? pass] + extra,
                        environment: environment)
        }

        func recipientDescription() throws -> String {
            let name = try #require(try FileManager.default.contentsOfDirectory(atPath: descriptions).first { $0.hasSuffix(".recipient-1.yaml") })
            return Path.join(descriptions, name)
        }

        /// The profile arrived whole: the same file contents and the same rows in both databases.
        func expectMoved() throws {
            #expect(try contentHashes(target) == contentHashes(source.directory.root))
            for db in ["simplex_v1_chat.db", "simplex_v1_agent.db"] {
                #expect(try rowCounts(Path.join(target, db)) == rowCounts(Path.join(source.directory.root, db)))
            }
        }

        /// No archive, chunk or state left in either temp folder, but the target's record of the
        /// finished import (by which a rerun reports it done).
        func expectNoWorkLeft() throws {
            for root in [source.directory.root, target] {
                let tmp = Path.join(root, "tmp")
                let left = (try? FileManager.default.contentsOfDirectory(atPath: tmp)) ?? []
                let work = left.filter { $0.hasPrefix("sxkit-") && !(root == target && Self.isImportRecord($0)) }
                #expect(work.isEmpty, "work left in \(tmp): \(left)")
            }
        }

        static func isImportRecord(_ name: String) -> Bool { name.hasPrefix("sxkit-migrate-receive-") && name.hasSuffix(".imported") }
    }

    @Test func movesTheSampleProfileWithIdenticalFilesAndRowCounts() throws {
        let s = try Setup()
        let sent = try s.send()
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("exported ") && sent.stdout.contains("recipient description: "))
        #expect(try POSIXFile.status(try s.recipientDescription()).st_mode & 0o777 == 0o600)
        let received = try s.receive(["--json"])
        #expect(received.status == 0, "\(received.stderr)")
        let lines = received.stdout.split(separator: "\n")
        #expect(lines.first?.contains(#""type":"rcvFileStart""#) == true)
        // NDJSON: every line an object; the last one the summary.
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let fields = try #require(objects.last)
        #expect(fields["type"] as? String == "migrationReceived")
        #expect(fields["output"] as? String == s.target)
        #expect(fields["downloadedChunks"] as? Int == 1)
        #expect((fields["importReport"] as? [String: Any])?["archiveErrors"] as? [Any] != nil)
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    @Test func aWrongPassphraseChangesNothingAndTheRightOneFinishesWithoutDownloadingAgain() throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        let wrong = try s.temp.write("wrong", Array("not the passphrase".utf8))
        let refused = try s.receive(passphraseFile: wrong)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the passphrase is wrong: it does not open") && refused.stderr.contains("nothing was changed"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Path.join(s.target, "simplex_v1_chat.db")))
        // The archive kept for the rerun holds the whole profile: readable by its owner alone (issue 15, item 10).
        let waiting = (FileManager.default.enumerator(atPath: s.target)?.allObjects as? [String] ?? []).filter { $0.hasSuffix(".zip") }
        #expect(waiting.count == 1, "\(waiting)")
        // The message says where it waits, and that the same command takes it from there.
        #expect(waiting.count == 1 && refused.stderr.contains("the archive received is kept as '\(Path.join(s.target, waiting[0]))'")
                && refused.stderr.contains("the same command into '\(s.target)' imports it from there without downloading it again")
                && refused.stderr.contains("give the right one with --passphrase-file FILE"), "\(refused.stderr)")
        for name in waiting {
            #expect(POSIXFile.linkStatus(Path.join(s.target, name)).map { $0.st_mode & 0o777 } == 0o600, "\(name) is readable by others")
        }
        // The relay no longer needs to be there: the verified archive waits in the target's temp folder.
        try FileManager.default.removeItem(atPath: s.relay)
        let done = try s.receive(["--json"])
        #expect(done.status == 0, "\(done.stderr)")
        #expect(done.stdout.contains(#""downloadedChunks":0"#), "\(done.stdout)")
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    /// Run again once it has finished (or was killed after the last of its work was removed): the same
    /// migration into the same data directory is reported done, downloads nothing (the relay may have
    /// deleted the file by then) and changes nothing. Once the app (here, SQLCipher) has opened the
    /// databases, that profile is no longer taken for the one the migration brought: refused as any
    /// profile already there, imported over with --force.
    @Test func aRerunOfAFinishedMigrationReportsItDoneUntilTheProfileIsUsed() throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        #expect(try s.receive().status == 0)
        let records = try FileManager.default.contentsOfDirectory(atPath: Path.join(s.target, "tmp")).filter(Setup.isImportRecord)
        #expect(records.count == 1, "\(records)")
        try FileManager.default.removeItem(atPath: s.relay)
        let before = try FolderSnapshot.take(s.target)
        let again = try s.receive(["--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let summary = try #require(again.stdout.split(separator: "\n").last)
        let doc = try JSONSerialization.jsonObject(with: Data(summary.utf8)) as? [String: Any]
        #expect(doc?["alreadyImported"] as? Bool == true && doc?["downloadedChunks"] as? Int == 0, "\(summary)")
        let forced = try s.receive(["--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains("was imported into \(s.target) by an earlier run") && forced.stdout.contains("nothing was imported twice"),
                "\(forced.stdout)")
        #expect(try FolderSnapshot.take(s.target) == before)
        try s.expectMoved()

        // The app opens the profile and writes: the database no longer is as the import left it.
        do {
            let (connection, _) = try DatabaseOpener.open(Path.join(s.target, "simplex_v1_chat.db"),
                                                          passphrase: SecretBytes(Array(ArchiveImportCommandTests.newPassphrase.utf8)), mode: .readWrite)
            try connection.execute("PRAGMA user_version = 99")
        }
        try #require(FolderSnapshot.take(s.target) != before, "the database was not written")
        let used = try FolderSnapshot.take(s.target)
        let refused = try s.receive()
        #expect(refused.status == 1, "\(refused.stdout)")
        #expect(refused.stderr.contains("already holds a profile"), "\(refused.stderr)")
        #expect(try FolderSnapshot.take(s.target) == used)
    }

    @Test func refusesATargetThatAlreadyHoldsAProfileUnlessForced() throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        _ = try SampleCopies.create(at: s.target, options: .init(photos: 1, documents: 1, seed: 9, chatItems: 10))
        let before = try FolderSnapshot.take(s.target)
        let refused = try s.receive()
        #expect(refused.status == 1, "an existing profile is refused like any existing output")
        #expect(refused.stderr.contains("already holds a profile") && refused.stderr.contains("pass --force"), "\(refused.stderr)")
        #expect(try FolderSnapshot.take(s.target) == before)
        // The old profile's databases become .bak and its files and wallpapers are moved aside whole.
        let replaced = try s.receive(["--force"])
        #expect(replaced.status == 0, "\(replaced.stderr)")
        #expect(replaced.stdout.contains("the previous files and wallpapers were moved to \(s.target)/simplex_v1_previous_"), "\(replaced.stdout)")
        #expect(replaced.stdout.contains("the previous databases are kept as"))
        #expect(try rowCounts(Path.join(s.target, "simplex_v1_chat.db")) == rowCounts(Path.join(s.source.directory.root, "simplex_v1_chat.db")))
    }

    @Test(arguments: ["migrate-send-exported", "transfer-send-uploaded-chunk", "transfer-send-described", "migrate-send-sent"])
    func aKilledSendResumesTheSameArchive(point: String) throws {
        let s = try Setup()
        let killed = try s.send(["--parallel", "1"], environment: ["SXKIT_CRASH_AT": point])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let resumed = try s.send()
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(resumed.stdout.contains("resumed the archive exported at"), "\(resumed.stdout)")
        #expect(try s.receive().status == 0)
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    /// Killed while removing the work of a migration it had finished, then run again at once (in the
    /// same second): a new migration, under a name of its own; the old work is gone.
    @Test func aSendKilledWhileCleaningUpIsFollowedByANewOne() throws {
        let s = try Setup()
        let killed = try s.send(environment: ["SXKIT_CRASH_AT": "migrate-send-renamed"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let again = try s.send()
        #expect(again.status == 0, "\(again.stderr)")
        let senders = try FileManager.default.contentsOfDirectory(atPath: s.descriptions).filter { $0.hasSuffix(".sender.yaml") }
        #expect(senders.count == 2, "\(senders)")
        #expect(try s.receive().status == 0)
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    /// Killed anywhere in its import, into an empty data directory: the rerun finishes that import
    /// (or, killed before its swap, imports once) and never imports a second time over it, which
    /// left `.bak` copies of the just-imported databases (6 of 6 swap-phase kills) that then blocked
    /// later imports; a private copy of a database made to test the passphrase is gone too.
    @Test(arguments: ["import.passphrase-copy", "import.staged", "import.journal-written", "import.chat-db-swapped",
                      "import.agent-db-swapped", "import.folder-replaced", "import.files-moved", "import.staging-removed",
                      "migrate-receive-imported", "migrate-receive-archive-removed", "migrate-receive-work-removed",
                      "migrate-receive-record-written", "migrate-receive-mark-removed"])
    func aReceiveKilledInItsImportImportsOnce(point: String) throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        let killed = try s.receive(environment: ["SXKIT_CRASH_AT": point])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let finished = try s.receive()
        #expect(finished.status == 0, "\(finished.stderr)")
        let swapBegun = !["import.passphrase-copy", "import.staged"].contains(point)
        #expect(finished.stdout.contains("nothing was imported twice") == swapBegun, "\(finished.stdout)")
        let all = FileManager.default.enumerator(atPath: s.target)?.allObjects as? [String] ?? []
        #expect(all.filter { $0.hasSuffix(".bak") || $0.contains("simplex_v1_previous_") || $0.contains("sxkit-import-") }.isEmpty, "\(all)")
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    /// The same over a profile (--force): its databases become `.bak` once, and a rerun after a kill
    /// once the import was done does not try to make them again.
    @Test func aForcedReceiveKilledAfterItsImportFinishesOnTheNextRun() throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        _ = try SampleCopies.create(at: s.target, options: .init(photos: 1, documents: 1, seed: 9, chatItems: 10))
        let killed = try s.receive(["--force"], environment: ["SXKIT_CRASH_AT": "migrate-receive-imported"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let finished = try s.receive(["--force"])
        #expect(finished.status == 0, "\(finished.stderr)")
        #expect(finished.stdout.contains("nothing was imported twice"), "\(finished.stdout)")
        #expect(finished.stdout.contains("the previous databases are kept as"), "\(finished.stdout)")
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    /// Killed before its import could begin, over a profile that already had a `.bak` (which makes
    /// any import refuse): the rerun must not take that old backup for the import's and report the
    /// migration done; it is refused, and the profile is as it was.
    @Test func aKilledReceiveIsNotReportedDoneOnAnOldBackup() throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        _ = try SampleCopies.create(at: s.target, options: .init(photos: 1, documents: 1, seed: 9, chatItems: 10))
        let old = Path.join(s.target, "simplex_v1_chat.db.bak")
        #expect(shell("cp '\(Path.join(s.target, "simplex_v1_chat.db"))' '\(old)'") == 0)
        let killed = try s.receive(["--force"], environment: ["SXKIT_CRASH_AT": "migrate-receive-mark-written"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let before = try FolderSnapshot.take(s.target)
        let rerun = try s.receive(["--force"])
        #expect(rerun.status == 1, "\(rerun.stdout) \(rerun.stderr)")
        #expect(!rerun.stdout.contains("nothing was imported twice"), "\(rerun.stdout)")
        #expect(rerun.stderr.contains(".bak"), "\(rerun.stderr)")
        // The profile as it was (its temp folder holds the migration's own work).
        let outsideTemp = { (snapshot: FolderSnapshot) in snapshot.entries.filter { !$0.key.hasPrefix("tmp/") && $0.key != "tmp" } }
        #expect(outsideTemp(try FolderSnapshot.take(s.target)) == outsideTemp(before))
    }

    @Test(arguments: ["transfer-receive-placed", "migrate-receive-downloaded", "import.chat-db-swapped", "import.folder-replaced"])
    func aKilledReceiveFinishesOnTheNextRun(point: String) throws {
        let s = try Setup()
        #expect(try s.send().status == 0)
        let killed = try s.receive(environment: ["SXKIT_CRASH_AT": point])
        #expect(killed.status != 0)
        let finished = try s.receive()
        #expect(finished.status == 0, "\(finished.stderr)")
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }
}
