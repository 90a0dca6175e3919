import Foundation
import SXCore
import SXTestSupport
import Testing

@Suite("Stale temp files and data-directory names", .ownThreads)
struct StaleTempFileTests {
    @Test func aDeadWritersTempFileIsStaleAndALiveOnesIsNot() throws {
        let tmp = try TempFolder()
        let destination = Path.join(tmp.root, "archive.zip")
        // What a killed writer leaves: the prefix, the destination's name, six mkstemp characters, no lock.
        let dead = try tmp.writeText(".sxkit-tmp-archive.zip.Ab3dE9", "partial")
        // A helper file of the dead writer goes with it; one of the live writer stays.
        let deadHelper = try tmp.writeText(".sxkit-tmp-archive.zip.Ab3dE9.replaced", "old")
        // Same prefix but another destination, and a name without the six characters: not ours to count.
        try tmp.writeText(".sxkit-tmp-archive.zip.old.Ab3dE9", "other")
        try tmp.writeText(".sxkit-tmp-archive.zip.", "short")
        let live = try AtomicFileWriter(destination: destination)
        try live.write(Array("in progress".utf8))

        #expect(AtomicFileWriter.isLockedByLiveWriter(live.tempPath))
        #expect(!AtomicFileWriter.isLockedByLiveWriter(dead))
        let liveHelper = live.tempPath + ".replaced"
        try tmp.writeText(Path.basename(liveHelper), "old")
        #expect(AtomicFileWriter.staleTempFiles(of: destination) == [dead, deadHelper])
        #expect(AtomicFileWriter.removeStaleTempFiles(of: destination) == 2)
        #expect(FileManager.default.fileExists(atPath: liveHelper))
        #expect(!FileManager.default.fileExists(atPath: dead))
        #expect(FileManager.default.fileExists(atPath: live.tempPath), "a live writer's temp file is never removed")
        try live.commit()
        #expect(try tmp.read("archive.zip") == Array("in progress".utf8))
    }

    /// A child being spawned by another thread holds a copy of every descriptor until its exec (a
    /// `dup` stands for it here): a lock let go through `release` is free at once all the same.
    @Test func aReleasedLockIsFreeWhileACopyOfItsDescriptorLives() throws {
        let tmp = try TempFolder()
        let folder = Path.join(tmp.root, "work")
        try Folders.create(folder, permissions: 0o700)
        let first = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        #expect(TempOwnership.tryClaim(first, path: folder) == .claimed)
        let copy = dup(first)
        try #require(copy >= 0)
        defer { close(copy) }
        let second = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { close(second) }
        #expect(TempOwnership.tryClaim(second, path: folder) == .busy)
        TempOwnership.release(first)
        #expect(TempOwnership.tryClaim(second, path: folder) == .claimed)
    }

    @Test func everyCompanionAndBackupNameIsDefinedOnce() {
        #expect(DataDirectoryNames.companions(of: "x.db") == ["x.db-journal", "x.db-wal", "x.db-shm"])
        #expect(DataDirectoryNames.backup(of: "/d/simplex_v1_chat.db") == "/d/simplex_v1_chat.db.bak")
        #expect(DataDirectoryNames.exported(of: "a.db") == "a.db.exported")
        #expect(DataDirectoryNames.migrationBackup(of: "a.db") == "a.db.migration-backup")
        #expect(DataDirectoryNames.rekeyJournal(of: "a_chat.db") == "a_chat.db.rekey-journal")
        #expect(DataDirectoryNames.filesJournal(of: "a_chat.db") == "a_chat.db.files-journal")
        #expect(DataDirectoryNames.manifestJournal(of: "keys.json") == "keys.json.journal")
        #expect(AtomicFileWriter.tempPrefix == ".sxkit-tmp-")
    }
}
