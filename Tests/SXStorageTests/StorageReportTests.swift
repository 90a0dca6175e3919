import Foundation
import Testing
import SXStorage
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// The storage report on the sample data directory, and the bad inputs it must survive.
@Suite(.ownThreads) struct StorageReportTests {
    @Test func splitsTheFilesFolderAndCountsTempAssetsAndDatabases() throws {
        let f = try CareFixture()
        let report = try f.care().storageReport()
        let files = try #require(report.files)
        #expect(files.referencedEncrypted?.count == f.referencedEncrypted)
        #expect(files.referencedPlaintext?.count == f.referencedPlaintext)
        #expect(files.referencedMissing?.count == SampleDataDirectory.missingFiles.count)
        #expect(files.orphans?.count == 1)
        let orphanSize = try #require(f.sample.files.first { $0.name == SampleDataDirectory.orphanFile })
        #expect(files.orphans?.bytes == Int64(try POSIXFile.status(Path.join(f.files, orphanSize.name)).st_size))
        #expect(files.total.count == f.sample.files.count)
        #expect(report.databases.map(\.exists) == [true, true])
        #expect(report.databases.allSatisfy { $0.bytes > 0 && $0.total >= $0.bytes })
        let tmp = try #require(report.tempFolders.first)
        #expect(tmp.path == f.dir.primaryTempFolder)
        #expect(tmp.files == Usage(count: 1, bytes: 4096))
        #expect(report.wallpapers?.files.count == 1)
        #expect(report.reclaimable.first { $0.target == "temp" }?.usage == Usage(count: 1, bytes: 4096))
        #expect(report.reclaimable.first { $0.target == "orphans" }?.usage == files.orphans)
        #expect(report.reclaimable.first { $0.target == "all-files" }?.usage.count == files.total.count)
        // Private folders killed runs left in the machine's $TMPDIR are reported too (issue 15, item 10);
        // other test runs may have left some there: none is in the data directory.
        #expect(report.leftovers.filter { Path.parent($0.path) != PrivateFolder.systemTemp }.isEmpty)
    }

    @Test func isReadOnly() throws {
        let f = try CareFixture()
        let before = try FolderSnapshot.take(f.dir.root)
        _ = try f.care().storageReport()
        _ = try f.care(nil).storageReport()
        let after = try FolderSnapshot.take(f.dir.root)
        #expect(before == after, "changed: \(before.differences(from: after))")
    }

    @Test func readsADatabaseWithAWALFromAPrivateCopyAndChangesNothing() throws {
        let f = try CareFixture()
        // A profile old enough to be in WAL mode (2021 to early 2022): a writer that keeps its connection
        // open leaves un-checkpointed frames in the -wal.
        let (writer, _) = try DatabaseOpener.open(f.dir.chatDatabase, passphrase: CareFixture.passphrase, mode: .readWrite)
        try writer.execute("""
            PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0;
            INSERT INTO files (file_id, file_name, file_path, file_size, chunk_size, user_id, updated_at) VALUES (99999, 'late.bin', 'late.bin', 10, 16384, 1, '2026-11-21 10:00:00')
            """)
        try f.folder.write("data/simplex_v1_files/late.bin", Array(repeating: 3, count: 10))
        let before = try FolderSnapshot.take(f.dir.root)
        let report = try f.care().storageReport()
        #expect((report.databases[0].wal ?? 0) > 0)
        // The new row lives only in the WAL: read, so late.bin is referenced, not an orphan.
        #expect(report.files?.referencedPlaintext?.count == f.referencedPlaintext + 1)
        #expect(report.files?.orphans?.count == 1)
        let after = try FolderSnapshot.take(f.dir.root)
        #expect(before == after, "changed: \(before.differences(from: after))")
        _ = writer
    }

    @Test func withoutAPassphraseCountsTheFilesFolderAsAWhole() throws {
        let f = try CareFixture()
        let report = try f.care(nil).storageReport()
        #expect(report.files?.orphans == nil)
        #expect(report.files?.total.count == f.sample.files.count)
        #expect(report.findings.contains { $0.contains("no passphrase was given") })
        #expect(report.reclaimable.first { $0.target == "orphans" }?.blockedBy == "needs the chat database's passphrase")
    }

    @Test func wrongPassphraseIsAnError() throws {
        let f = try CareFixture()
        #expect(throws: CareError.wrongPassphrase(database: f.dir.chatDatabase)) {
            try f.care(SecretBytes(Array("wrong".utf8))).storageReport()
        }
    }

    @Test func missingFilesFolderIsReported() throws {
        let f = try CareFixture()
        try FileManager.default.removeItem(atPath: f.files)
        let report = try f.care().storageReport()
        #expect(report.files?.exists == false)
        #expect(report.files?.referencedMissing?.count == f.sample.files.filter(\.referenced).count + SampleDataDirectory.missingFiles.count)
        #expect(report.findings.contains { $0.contains("does not exist") })
    }

    @Test func unsafeDatabasePathsAreReportedAndNeverFollowed() throws {
        let f = try CareFixture()
        try f.updateChatDatabase("UPDATE files SET file_path = '../outside.bin' WHERE file_id = 1; UPDATE files SET file_path = '/etc/passwd' WHERE file_id = 2")
        let report = try f.care().storageReport()
        #expect(report.files?.unsafePaths == 2)
        #expect(report.files?.unsafePathExamples.sorted() == ["../outside.bin", "/etc/passwd"])
        #expect(report.findings.contains { $0.contains("outside the files folder") })
    }

    @Test func referencedSymlinkIsReportedNotFollowed() throws {
        let f = try CareFixture()
        let referenced = try #require(f.sample.files.first { $0.referenced && !$0.encrypted })
        let outside = try f.folder.write("outside.bin", Array(repeating: 7, count: 100_000))
        try FileManager.default.removeItem(atPath: Path.join(f.files, referenced.name))
        try FileManager.default.createSymbolicLink(atPath: Path.join(f.files, referenced.name), withDestinationPath: outside)
        let report = try f.care().storageReport()
        #expect(report.files?.referencedSymlinks == 1)
        #expect(report.files?.referencedPlaintext?.count == f.referencedPlaintext - 1)
        #expect(report.files?.total.bytes ?? 0 < Int64(f.sample.files.reduce(0) { $0 + $1.size }) + 100_000, "the link's target is not counted")
        #expect(report.findings.contains { $0.contains("symlinks") && $0.contains(referenced.name) })
    }

    @Test func folderThatIsNotADataDirectoryIsRefused() throws {
        let tmp = try TempFolder()
        try tmp.write("notes.txt", Array("hello".utf8))
        let dir = DataDirectory(root: tmp.path, layout: .desktop)
        #expect(throws: CareError.self) { try DataDirectoryCare(directory: dir, passphrase: nil).storageReport() }
        #expect(throws: CareError.self) { try DataDirectoryCare(directory: dir, passphrase: nil).plan(CleanTargets(temp: true)) }
    }

    @Test func aFilesOrTempFolderHoldingTheDatabasesOrTheFilesIsRefused() throws {
        let f = try CareFixture()
        let before = try FolderSnapshot.take(f.dir.root)
        let overrides = [FolderOverrides(files: f.dir.root), FolderOverrides(temp: f.dir.root), FolderOverrides(temp: Path.parent(f.dir.root)),
                         FolderOverrides(temp: f.files), FolderOverrides(files: Path.join(f.dir.primaryTempFolder, "files"))]
        for overrides in overrides {
            let dir = DataDirectory(root: f.dir.root, layout: .desktop, overrides: overrides, environment: [:])
            let care = DataDirectoryCare(directory: dir, passphrase: CareFixture.passphrase)
            #expect(throws: CareError.self) { try care.plan(CleanTargets(temp: true, orphans: true)) }
            #expect(throws: CareError.self) { try care.storageReport() }
        }
        #expect(try FolderSnapshot.take(f.dir.root) == before)
    }
}
