import Foundation
@testable import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("AtomicFileWriter", .ownThreads)
struct AtomicFileWriterTests {
    @Test func commitReplacesContentAndLeavesNoTempFile() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("out.bin", "old content")
        let writer = try AtomicFileWriter(destination: path)
        #expect(Path.parent(writer.tempPath) == tmp.root, "the temp file sits beside the destination")
        #expect(Path.basename(writer.tempPath).hasPrefix(".sxkit-tmp-out.bin."))
        try writer.write(Array("new ".utf8))
        try writer.write(Array("content".utf8))
        #expect(writer.bytesWritten == 11)
        #expect(try tmp.read("out.bin") == Array("old content".utf8), "nothing is visible before commit")
        try writer.commit()
        #expect(try tmp.read("out.bin") == Array("new content".utf8))
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: writer.tempPath))
    }

    @Test("bypassing the page cache (O_DIRECT blocks, or flush-behind where refused) keeps every byte, across block edges and odd pieces",
          arguments: ["/var/tmp", "/dev/shm"])
    func bypassingThePageCacheKeepsEveryByte(base: String) throws {
        let tmp = try TempFolder("sxkit-direct", in: base)
        let writer = try AtomicFileWriter(destination: tmp.root + "/big")
        writer.bypassPageCache = true
        let random = try #require(FileHandle(forReadingAtPath: "/dev/urandom"))
        let content = [UInt8](random.readData(ofLength: Int(AtomicFileWriter.flushBehindWindow) * 3 + 12_345))
        var at = 0, piece = 1
        while at < content.count {  // pieces of growing odd sizes, so window edges fall inside writes
            let end = min(content.count, at + piece)
            try content[at..<end].withUnsafeBytes { try writer.write($0) }
            at = end
            piece = piece * 3 + 1
        }
        try writer.commit()
        #expect(try tmp.read("big") == content)
    }

    /// Staging blocks go from finished writers to the next ones (wiped and emptied): every file gets
    /// exactly its own bytes, whatever the writer before it left in the block, and an aborted one too.
    @Test func aStagingBlockPassedOnCarriesNothingOver() throws {
        let tmp = try TempFolder("sxkit-direct", in: "/var/tmp")
        let sizes = [AtomicFileWriter.directBlock + 7, 3, 2 * AtomicFileWriter.directBlock - 1, 0, 4096, 100]
        for (n, size) in sizes.enumerated() {
            // One that fills a block part way and is aborted, before each that is kept.
            let dropped = try AtomicFileWriter(destination: tmp.file("dropped"))
            dropped.bypassPageCache = true
            try dropped.write([UInt8](repeating: 0xEE, count: 5000))
            dropped.abort()
            let writer = try AtomicFileWriter(destination: tmp.file("file-\(n)"))
            writer.bypassPageCache = true
            let content = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ n) }
            try writer.write(content)
            try writer.commit()
            #expect(try tmp.read("file-\(n)") == content, "file \(n) (\(size) bytes)")
        }
        #expect(!FileManager.default.fileExists(atPath: tmp.file("dropped")))
    }

    /// Many writers at once: past the first few, each stages in a small block instead of a whole
    /// one (a relay taking 50 uploads held 1 MiB for each), and every file still gets exactly its
    /// bytes, across the small blocks' edges. Other suites may hold whole blocks meanwhile, so only
    /// "at least this many small" is certain.
    @Test func writersPastTheFirstFewStageInSmallBlocksAndKeepEveryByte() throws {
        let tmp = try TempFolder("sxkit-direct", in: "/var/tmp")
        let count = AtomicFileWriter.maxWholeBlocks + 4
        let writers = try (0..<count).map { n in
            let writer = try AtomicFileWriter(destination: tmp.file("file-\(n)"))
            writer.bypassPageCache = true
            return writer
        }
        let sizes = (0..<count).map { 3 * AtomicFileWriter.smallStagingBlock + 1000 * $0 + 17 }
        let contents = sizes.enumerated().map { n, size in (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ n &* 13) } }
        // Every writer has begun (and taken its block) before any finishes; written in odd pieces.
        for (n, writer) in writers.enumerated() { try writer.write(Array(contents[n][0..<5])) }
        let capacities = writers.map(\.stagingCapacity)
        #expect(capacities.allSatisfy { $0 == AtomicFileWriter.directBlock || $0 == AtomicFileWriter.smallStagingBlock }, "\(capacities)")
        #expect(capacities.filter { $0 == AtomicFileWriter.smallStagingBlock }.count >= count - AtomicFileWriter.maxWholeBlocks, "\(capacities)")
        var at = [Int](repeating: 5, count: count), piece = 4001
        while zip(at, sizes).contains(where: { $0 < $1 }) {
            for (n, writer) in writers.enumerated() where at[n] < sizes[n] {
                let end = min(sizes[n], at[n] + piece)
                try writer.write(Array(contents[n][at[n]..<end]))
                at[n] = end
            }
            piece = piece * 2 + 1
        }
        for writer in writers { try writer.commit() }
        for n in 0..<count { #expect(try tmp.read("file-\(n)") == contents[n], "file \(n)") }
    }

    /// The pool lends at most its whole blocks at once, small ones past them, and keeps returned
    /// whole blocks for the next writers (the same memory, not new).
    @Test func theStagingPoolLendsAtMostItsWholeBlocksAndKeepsThemForTheNext() {
        var pool = StagingPool(wholeBlock: 8192, smallBlock: 4096, maxWhole: 3)
        let taken = (0..<5).map { _ in pool.take() }
        #expect(taken.map(\.capacity) == [8192, 8192, 8192, 4096, 4096])
        #expect(pool.inUse == 3)
        for block in taken { pool.giveBack(block) }
        #expect(pool.inUse == 0 && pool.spares.count == 3)
        let again = pool.take()
        #expect(again === taken[2])
        #expect(pool.inUse == 1 && pool.spares.count == 2)
        pool.giveBack(again)
        #expect(pool.inUse == 0 && pool.spares.count == 3)
    }

    /// A writer abandoned part way leaves its temp file (flushed, unlocked, 0600); a later one takes it
    /// over at a verified length and writes on: the kept bytes, then the new ones, on a disk file
    /// system (O_DIRECT: the kept tail past the last aligned block is read back and written again) and
    /// on tmpfs (no O_DIRECT), for lengths on and off the alignment.
    @Test("an abandoned temp file is taken over at a given length and written on", arguments: ["/var/tmp", "/dev/shm"])
    func anAbandonedTempFileIsTakenOver(base: String) throws {
        let tmp = try TempFolder("sxkit-adopt", in: base)
        let first = (0..<(3 * AtomicFileWriter.directBlock + 5000)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        for keep in [0, 4096, 4100, AtomicFileWriter.directBlock + 1, first.count] {
            let writer = try AtomicFileWriter(destination: tmp.file("out"), mode: 0o644)
            writer.bypassPageCache = true
            writer.keepIfInterrupted()
            try writer.write(first)
            writer.abandon()
            #expect(try tmp.read(Path.basename(writer.tempPath)) == first, "abandon flushes the staged tail")
            #expect(POSIXFile.linkStatus(writer.tempPath).map { $0.st_mode & 0o777 } == 0o600)
            #expect(TempOwnership.isStale(writer.tempPath))
            #expect(!LiveTemps.paths.contains(writer.tempPath))

            let fd = try #require(AtomicFileWriter.openStale(writer.tempPath))
            #expect(AtomicFileWriter.openStale(writer.tempPath) == nil, "held by this taker")
            let taken = try AtomicFileWriter(adopting: writer.tempPath, descriptor: fd, destination: tmp.file("out"), length: Int64(keep), mode: 0o644)
            taken.bypassPageCache = true
            #expect(taken.bytesWritten == Int64(keep))
            let more = (0..<(AtomicFileWriter.directBlock + 333)).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) }
            try taken.write(Array(more[0..<1000]))
            try taken.write(Array(more[1000...]))
            try taken.commit()
            #expect(try tmp.read("out") == Array(first[0..<keep]) + more, "kept \(keep) bytes")
            #expect(POSIXFile.linkStatus(tmp.file("out")).map { $0.st_mode & 0o022 } == 0)
        }
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
    }

    @Test func aTempFileALiveWriterHoldsCannotBeTakenOver() throws {
        let tmp = try TempFolder()
        let live = try AtomicFileWriter(destination: tmp.file("out"))
        try live.write([1, 2, 3])
        #expect(AtomicFileWriter.openStale(live.tempPath) == nil)
        #expect(AtomicFileWriter.openStale(tmp.file("missing")) == nil)
        live.abort()
    }

    /// A file asked to be world-readable is 0600 while it is written (a process killed meanwhile
    /// leaves nothing others can read, whatever the umask) and gets its mode only when finished.
    @Test func theTempFileIsPrivateUntilFinished() throws {
        let tmp = try TempFolder()
        let writer = try AtomicFileWriter(destination: tmp.file("shared.bin"), mode: 0o666)
        try writer.write(Array("partial".utf8))
        #expect(try POSIXFile.status(writer.tempPath).st_mode & 0o777 == 0o600)
        try writer.finishWriting(flush: false)
        // The process's umask, read without setting it (other tests run meanwhile).
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let umask = try #require(status.split(separator: "\n").first { $0.hasPrefix("Umask:") }.flatMap { mode_t($0.dropFirst(6).trimmingCharacters(in: .whitespaces), radix: 8) })
        #expect(try POSIXFile.status(writer.tempPath).st_mode & 0o777 == 0o666 & ~umask)
        try writer.publish(flushFolder: false)
        #expect(try POSIXFile.status(tmp.file("shared.bin")).st_mode & 0o777 == 0o666 & ~umask)
    }

    @Test func commitCreatesANewFile() throws {
        let tmp = try TempFolder()
        let path = tmp.root + "/fresh"
        let writer = try AtomicFileWriter(destination: path)
        try writer.write([1, 2, 3])
        try writer.commit()
        #expect(try tmp.read("fresh") == [1, 2, 3])
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.root) == ["fresh"])
    }

    @Test func abortLeavesTheDestinationUntouchedAndRemovesTheTemp() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("keep.txt", "original")
        let writer = try AtomicFileWriter(destination: path)
        try writer.write(Array("replacement".utf8))
        #expect(FileManager.default.fileExists(atPath: writer.tempPath))
        writer.abort()
        writer.abort()   // a second abort is harmless
        #expect(try tmp.read("keep.txt") == Array("original".utf8))
        #expect(!FileManager.default.fileExists(atPath: writer.tempPath))
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
    }

    @Test func releasingWithoutCommitRemovesTheTemp() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("keep.txt", "original")
        var writer: AtomicFileWriter? = try AtomicFileWriter(destination: path)
        try writer?.write(Array("half-written".utf8))
        let tempPath = try #require(writer?.tempPath)
        #expect(FileManager.default.fileExists(atPath: tempPath))
        writer = nil
        #expect(!FileManager.default.fileExists(atPath: tempPath))
        #expect(try tmp.read("keep.txt") == Array("original".utf8))
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
    }

    @Test func mode0600IsHonouredWhileWritingAndAfterCommit() throws {
        let tmp = try TempFolder()
        let path = tmp.root + "/key"
        let writer = try AtomicFileWriter(destination: path, mode: 0o600)
        #expect(try permissionBits(writer.tempPath) == 0o600)
        try writer.write([0xAA])
        try writer.commit()
        #expect(try permissionBits(path) == 0o600)
    }

    @Test func replacingKeepsTheWriterModeNotTheOldFileMode() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("key", "old")
        #expect(chmod(path, 0o666) == 0)
        try AtomicFileWriter.write([1], to: path, mode: 0o600)
        #expect(try permissionBits(path) == 0o600)
    }

    @Test func defaultModeIs0644MinusTheUmask() throws {
        let tmp = try TempFolder()
        let path = tmp.root + "/plain"
        try AtomicFileWriter.write([1], to: path)
        #expect(try permissionBits(path) == 0o644 & ~processUmask())
        try AtomicFileWriter.write([1], to: path, mode: 0o640)
        #expect(try permissionBits(path) == 0o640 & ~processUmask())
    }

    @Test func staticWriteReplacesAtomically() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("doc.json", "{\"old\":true}")
        let bytes = [UInt8]((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try AtomicFileWriter.write(bytes, to: path, mode: 0o600)
        #expect(try tmp.read("doc.json") == bytes)
        #expect(try permissionBits(path) == 0o600)
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
    }

    @Test func staticWriteOfNothingGivesAnEmptyFile() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("x", "something")
        try AtomicFileWriter.write([], to: path)
        #expect(try tmp.read("x").isEmpty)
    }

    @Test func longDestinationNamesStillGetATempFile() throws {
        let tmp = try TempFolder()
        let name = String(repeating: "n", count: 200)
        try AtomicFileWriter.write([7], to: tmp.root + "/" + name)
        #expect(try tmp.read(name) == [7])
    }

    @Test func folderThatDoesNotExistIsAFileSystemError() throws {
        let tmp = try TempFolder()
        let folder = tmp.root + "/no/such/folder"
        let error = #expect(throws: FileSystemError.self) {
            try AtomicFileWriter.write([1], to: folder + "/file")
        }
        #expect(error?.path == folder)
        #expect(error?.code == ENOENT)
        #expect(error?.isNoSpace == false)
        #expect(error?.description.contains(folder) == true)
    }

    @Test func folderWithoutWritePermissionIsAFileSystemError() throws {
        // Root ignores permission bits; the missing-folder test above covers the same path for root.
        guard getuid() != 0 else { return }
        let tmp = try TempFolder()
        let folder = try tmp.makeFolder("locked")
        #expect(chmod(folder, 0o500) == 0)
        let error = #expect(throws: FileSystemError.self) { try AtomicFileWriter.write([1], to: folder + "/file") }
        #expect(error?.code == EACCES)
    }

    @Test func destinationThatIsAFolderFailsOnPublishAndCleansUp() throws {
        let tmp = try TempFolder()
        let folder = try tmp.makeFolder("taken")
        try tmp.writeText("taken/inside", "kept")
        let error = #expect(throws: FileSystemError.self) { try AtomicFileWriter.write([1, 2], to: folder) }
        #expect(error?.path == folder)
        #expect(error?.operation == "replace")
        #expect(try tmp.read("taken/inside") == Array("kept".utf8))
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
    }

    @Test func finishThenPublishIsTheSameAsCommit() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("batch", "old")
        let writer = try AtomicFileWriter(destination: path)
        try writer.write(Array("new".utf8))
        try writer.finishWriting(flush: false)
        #expect(try tmp.read("batch") == Array("old".utf8))
        try POSIXFile.syncFileSystem(containing: tmp.root)
        try writer.publish(flushFolder: false)
        #expect(try tmp.read("batch") == Array("new".utf8))
        #expect(try atomicTempLeftovers(in: tmp.root).isEmpty)
    }
}

/// A real full file system: a 64 KiB tmpfs. Needs permission to mount; without it there is nothing
/// to test and the test returns early.
@Suite("AtomicFileWriter on a full file system", .ownThreads, .serialized)
struct AtomicFileWriterFullDiskTests {
    private static func run(_ tool: String, _ arguments: [String]) -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return false }
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test func noSpaceLeftIsReportedAndTheDestinationIsUntouched() throws {
        let tmp = try TempFolder("sxkit-fulldisk")
        let mountPoint = try tmp.makeFolder("small")
        guard Self.run("/usr/bin/mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", mountPoint]) else { return }
        defer { _ = Self.run("/usr/bin/umount", [mountPoint]) }

        let path = Path.join(mountPoint, "file.bin")
        try AtomicFileWriter.write(Array("precious".utf8), to: path)
        let big = [UInt8](repeating: 0x5A, count: 1 << 20)

        let error = #expect(throws: FileSystemError.self) { try AtomicFileWriter.write(big, to: path) }
        #expect(error?.isNoSpace == true)
        #expect(error?.code == ENOSPC)
        #expect(error?.path == path)
        #expect(error?.description.contains("free some space") == true)
        #expect(try FileBytes.read(path, limit: 1024) == Array("precious".utf8))
        #expect(try atomicTempLeftovers(in: mountPoint).isEmpty, "the failed temp file must not keep eating the space")

        // The space is back: a small write succeeds afterwards.
        try AtomicFileWriter.write(Array("after".utf8), to: path)
        #expect(try FileBytes.read(path, limit: 1024) == Array("after".utf8))
    }
}
