import Foundation
import Testing
import SXStorage
import SXCore
import SXSample
import SXTestSupport

/// Planning and carrying out a clean, and each safety rule, enforced in the library.
@Suite(.ownThreads) struct CleanTests {
    @Test func orphansAndTempRemovesOnlyThoseAndKeepsReferencedFiles() throws {
        let f = try CareFixture()
        let care = f.care()
        let plan = try care.plan(CleanTargets(temp: true, orphans: true))
        #expect(plan.totals.map(\.category) == [.temp, .orphans])
        #expect(plan.total.count == 2)
        let result = try care.execute(plan)
        #expect(result.failures.isEmpty && result.skipped.isEmpty)
        #expect(result.total == plan.total)
        #expect(!CareFixture.exists(Path.join(f.files, SampleDataDirectory.orphanFile)))
        #expect(!CareFixture.exists(Path.join(f.dir.primaryTempFolder, "download_part.tmp")))
        for file in f.sample.files where file.referenced { #expect(CareFixture.exists(Path.join(f.files, file.name))) }
        let after = try care.storageReport()
        #expect(after.files?.orphans?.count == 0)
        #expect(after.tempFolders[0].files.count == 0)
    }

    @Test func dryRunPlanChangesNothing() throws {
        let f = try CareFixture()
        let before = try FolderSnapshot.take(f.dir.root)
        let plan = try f.care().plan(CleanTargets(temp: true, orphans: true, leftovers: true, allFiles: true))
        #expect(plan.total.count > 0)
        #expect(try FolderSnapshot.take(f.dir.root) == before)
    }

    @Test func wrongPassphraseDeletesNothing() throws {
        let f = try CareFixture()
        let before = try FolderSnapshot.take(f.dir.root)
        let wrong = f.care(SecretBytes(Array("not the passphrase".utf8)))
        #expect(throws: CareError.wrongPassphrase(database: f.dir.chatDatabase)) { try wrong.plan(CleanTargets(temp: true, orphans: true)) }
        #expect(throws: CareError.passphraseNeeded(database: f.dir.chatDatabase)) { try f.care(nil).plan(CleanTargets(temp: true)) }
        // A plan made with the right passphrase cannot be carried out with a wrong one either.
        let plan = try f.care().plan(CleanTargets(orphans: true))
        #expect(throws: CareError.wrongPassphrase(database: f.dir.chatDatabase)) { try wrong.execute(plan) }
        #expect(try FolderSnapshot.take(f.dir.root) == before)
    }

    @Test func referencedFilesStayUnlessEveryFileIsAsked() throws {
        let f = try CareFixture()
        let plan = try f.care().plan(CleanTargets(orphans: true, leftovers: true))
        let referenced = Set(f.sample.files.filter(\.referenced).map(\.name))
        #expect(plan.items.allSatisfy { !referenced.contains($0.relativePath) })
        let all = try f.care().plan(CleanTargets(allFiles: true))
        #expect(all.totals.first { $0.category == .encryptedFiles }?.usage.count == f.referencedEncrypted)
        #expect(all.totals.first { $0.category == .plaintextFiles }?.usage.count == f.referencedPlaintext)
        #expect(all.totals.first { $0.category == .orphans }?.usage.count == 1)
        let result = try f.care().execute(all)
        #expect(result.removed.first { $0.category == .encryptedFiles }?.usage.count == f.referencedEncrypted)
        #expect(result.removed.first { $0.category == .plaintextFiles }?.usage.count == f.referencedPlaintext)
        #expect(CareFixture.exists(f.dir.chatDatabase) && CareFixture.exists(f.dir.agentDatabase))
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.files).isEmpty)
    }

    @Test func fileReferencedAfterThePlanIsKept() throws {
        let f = try CareFixture()
        let plan = try f.care().plan(CleanTargets(orphans: true))
        #expect(plan.items.map(\.relativePath) == [SampleDataDirectory.orphanFile])
        // The app receives the file between the plan and the clean.
        try f.updateChatDatabase("UPDATE files SET file_path = '\(SampleDataDirectory.orphanFile)' WHERE file_id = 1")
        let result = try f.care().execute(plan)
        #expect(result.total.count == 0)
        #expect(result.skipped.map(\.reason) == ["the chat database now references it"])
        #expect(CareFixture.exists(Path.join(f.files, SampleDataDirectory.orphanFile)))
    }

    @Test func fileReplacedOrChangedAfterThePlanIsKept() throws {
        let f = try CareFixture()
        try FileManager.default.createDirectory(atPath: Path.join(f.files, "sub"), withIntermediateDirectories: true)
        let a = try f.folder.write("data/simplex_v1_files/sub/a.bin", [1, 2, 3])
        let b = try f.folder.write("data/simplex_v1_files/b.bin", [1, 2, 3])
        let plan = try f.care().plan(CleanTargets(orphans: true))
        #expect(plan.total.count == 3)
        // b grows; sub becomes a symlink to a folder outside with a file of the same name.
        try f.folder.write("data/simplex_v1_files/b.bin", [1, 2, 3, 4])
        let outside = try f.folder.write("elsewhere/a.bin", [1, 2, 3])
        try FileManager.default.removeItem(atPath: Path.join(f.files, "sub"))
        try FileManager.default.createSymbolicLink(atPath: Path.join(f.files, "sub"), withDestinationPath: Path.parent(outside))
        let result = try f.care().execute(plan)
        #expect(result.total.count == 1, "only the untouched orphan goes")
        #expect(Set(result.skipped.map(\.path)) == [a, b])
        #expect(CareFixture.exists(outside) && CareFixture.exists(b))
    }

    @Test func symlinksAreRemovedOnlyInsideTempAndNeverFollowed() throws {
        let f = try CareFixture()
        let outside = try f.folder.write("outside/precious.bin", Array(repeating: 1, count: 1000))
        let outsideFolder = Path.parent(outside)
        let tmp = f.dir.primaryTempFolder
        try FileManager.default.createSymbolicLink(atPath: Path.join(tmp, "link-file"), withDestinationPath: outside)
        try FileManager.default.createSymbolicLink(atPath: Path.join(tmp, "link-folder"), withDestinationPath: outsideFolder)
        try FileManager.default.createSymbolicLink(atPath: Path.join(f.files, "link-orphan"), withDestinationPath: outside)
        let plan = try f.care().plan(CleanTargets(temp: true, allFiles: true))
        #expect(plan.kept.contains { $0.contains("1 symlink(s) in the files folder are kept") })
        let result = try f.care().execute(plan)
        #expect(result.failures.isEmpty)
        #expect(!CareFixture.exists(Path.join(tmp, "link-file")) && !CareFixture.exists(Path.join(tmp, "link-folder")))
        #expect(CareFixture.exists(Path.join(f.files, "link-orphan")))
        #expect(try FolderSnapshot.take(outsideFolder).entries.count == 1)
        #expect(try FileBytes.read(outside, limit: 10_000).count == 1000)
    }

    @Test func unsafeDatabasePathsAreNeverFollowed() throws {
        let f = try CareFixture()
        let outside = try f.folder.write("data/outside.bin", [9, 9, 9])
        try f.updateChatDatabase("UPDATE files SET file_path = '../outside.bin' WHERE file_id = 1; UPDATE files SET file_path = '\(outside)' WHERE file_id = 2")
        let plan = try f.care().plan(CleanTargets(orphans: true, allFiles: true))
        #expect(plan.items.allSatisfy { $0.path.hasPrefix(f.files + "/") })
        _ = try f.care().execute(plan)
        #expect(CareFixture.exists(outside))
    }

    @Test func olderThanKeepsNewerTempFiles() throws {
        let f = try CareFixture()
        let tmp = f.dir.primaryTempFolder
        let old = try f.folder.write("data/tmp/old/part.bin", [1, 2, 3])
        CareFixture.age(old, seconds: 3 * 86400)
        CareFixture.age(Path.join(tmp, "download_part.tmp"), seconds: 86400)
        let plan = try f.care().plan(CleanTargets(temp: true, olderThanSeconds: 2 * 86400))
        #expect(plan.total == Usage(count: 1, bytes: 3))
        #expect(plan.kept.contains { $0.contains("1 temp file(s)") })
        _ = try f.care().execute(plan)
        #expect(!CareFixture.exists(old) && !CareFixture.exists(Path.parent(old)), "the emptied folder goes too")
        #expect(CareFixture.exists(Path.join(tmp, "download_part.tmp")))
    }

    @Test func theDesktopUITempFolderIsReportedAndCleanedWhenItIsOurs() throws {
        let f = try CareFixture()
        let ui = try f.folder.write("simplex/preview.jpg", Array(repeating: 1, count: 500))
        #expect(f.dir.tempFolders.contains(Path.parent(ui)))
        let report = try f.care().storageReport()
        #expect(report.tempFolders.map(\.path) == f.dir.tempFolders)
        #expect(report.tempFolders.first { $0.path == Path.parent(ui) }?.files == Usage(count: 1, bytes: 500))
        #expect(report.tempFolders.first { $0.path.hasSuffix("migration_temp_files") }?.exists == false)
        _ = try f.care().execute(try f.care().plan(CleanTargets(temp: true)))
        #expect(!CareFixture.exists(ui) && CareFixture.exists(Path.parent(ui)), "the folder itself stays")
    }

    @Test func leftoversAreRemovedUnlessARecoveryNeedsThem() throws {
        let f = try CareFixture()
        let migration = try f.folder.write("data/simplex_v1_chat.db.migration-backup", [1, 2, 3, 4])
        let atomic = try f.folder.write("data/.sxkit-tmp-simplex_v1_chat.db.bak.x1", [1])
        let inFiles = try f.folder.write("data/simplex_v1_files/.sxkit-tmp-IMG.x2", [1, 2])
        let exported = try f.folder.write("data/simplex_v1_agent.db.exported", [5])
        #expect(throws: CareError.self) { try f.care().plan(CleanTargets(leftovers: true)) }
        do {
            _ = try f.care().plan(CleanTargets(leftovers: true))
        } catch let error as CareError {
            #expect(error.remedy == .recover(.passphraseChange))
            #expect(!"\(error)".contains("sxkit"), "a library error names no command")
        }
        let report = try f.care().storageReport()
        #expect(report.leftovers.first { $0.path == exported }?.neededForRecovery == true)
        #expect(report.reclaimable.first { $0.target == "leftovers" }?.blockedBy == "an interrupted passphrase change must be settled first")
        try FileManager.default.removeItem(atPath: exported)
        let plan = try f.care().plan(CleanTargets(leftovers: true))
        // Stale private folders that other runs left in the machine's $TMPDIR are leftovers too.
        #expect(Set(plan.items.map(\.path).filter { $0.hasPrefix(f.folder.path + "/") }) == [migration, atomic, inFiles])
        _ = try f.care().execute(plan)
        #expect(![migration, atomic, inFiles].contains(where: CareFixture.exists))
    }

    @Test func interruptedImportIsPointedToArchiveRecover() throws {
        let f = try CareFixture()
        try f.folder.write("data/.sxkit-import-staging/files/x.bin", [1])
        do {
            _ = try f.care().plan(CleanTargets(everything: true))
            Issue.record("--everything must refuse while an import is interrupted")
        } catch let error as CareError {
            #expect(error.remedy == .recover(.archiveImport))
        }
    }

    @Test func databasesHeldByAnotherProcessAreRefused() throws {
        let f = try CareFixture()
        let before = try FolderSnapshot.take(f.dir.root)
        let holder = try LockHolder(f.dir.chatDatabase)
        defer { holder.stop() }
        #expect(throws: CareError.inUse(database: f.dir.chatDatabase)) { try f.care().plan(CleanTargets(temp: true)) }
        #expect(try FolderSnapshot.take(f.dir.root) == before)
    }

    @Test func everythingRemovesTheDatabasesToo() throws {
        let f = try CareFixture()
        let plan = try f.care().plan(CleanTargets(everything: true))
        #expect(plan.totals.map(\.category).contains(.databases))
        let result = try f.care().execute(plan)
        #expect(result.failures.isEmpty)
        #expect(!CareFixture.exists(f.dir.chatDatabase) && !CareFixture.exists(f.dir.agentDatabase))
        #expect(!CareFixture.exists(f.dir.chatDatabase + "-wal"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.files).isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.dir.assetsFolder!).isEmpty)
    }
}

/// Another process holding SQLite's shared-lock bytes on a database, as the app would.
final class LockHolder {
    let process = Process()

    init(_ database: String) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", "import fcntl,sys,time\nf=open(sys.argv[1],'rb')\nfcntl.lockf(f,fcntl.LOCK_SH,510,0x40000002,0)\nprint('locked',flush=True)\ntime.sleep(60)", database]
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        _ = out.fileHandleForReading.availableData
    }

    func stop() {
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }
}
