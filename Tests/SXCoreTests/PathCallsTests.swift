import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SXCore
import SXTestSupport
import Testing

/// The String-path libc calls of `PathCalls.swift`, called from outside SXCore as every module calls
/// them: a name that is not UTF-8 reaches the kernel as its bytes. Each result is checked through a
/// C call given the bytes directly, and against what Swift's own String bridging would have opened.
@Suite(.ownThreads) struct PathCallsTests {
    /// `folder/<name bytes>` as the carried String and as the raw bytes.
    static func latin1(_ folder: String, _ stem: String) -> (carried: String, raw: [UInt8]) {
        let raw = Array((folder + "/" + stem).utf8) + [0xE9]
        return (FileNameBytes.string(raw), raw)
    }

    /// A `stat` by the raw bytes, bypassing everything under test.
    static func rawStatus(_ raw: [UInt8]) -> stat? {
        var st = stat()
        let rc = (raw + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { Glibc.fstatat(AT_FDCWD, $0.baseAddress!, &st, AT_SYMLINK_NOFOLLOW) }
        }
        return rc == 0 ? st : nil
    }

    @Test func everyCallFindsTheFileByItsBytes() throws {
        let dir = try TempFolder()
        let file = Self.latin1(dir.path, "caf")
        // What String bridging would hand the kernel: the carrier's UTF-8 (EE BF A9), another name.
        #expect(Array(file.carried.utf8) != file.raw)

        let fd = open(file.carried, O_WRONLY | O_CLOEXEC | O_CREAT | O_EXCL, 0o600)
        #expect(fd >= 0)
        #expect(write(fd, "abc", 3) == 3)
        close(fd)
        #expect(Self.rawStatus(file.raw)?.st_size == 3)
        #expect(Glibc.access(file.carried, F_OK) != 0, "the bridged spelling names no file")
        #expect(access(file.carried, R_OK) == 0)
        var st = stat()
        #expect(stat(file.carried, &st) == 0 && st.st_size == 3)
        #expect(lstat(file.carried, &st) == 0 && st.st_mode & S_IFMT == S_IFREG)
        #expect(chmod(file.carried, 0o640) == 0 && Self.rawStatus(file.raw)!.st_mode & 0o777 == 0o640)
        var fs = statvfs()
        #expect(statvfs(file.carried, &fs) == 0 && fs.f_bsize > 0)

        let moved = Self.latin1(dir.path, "moved")
        #expect(rename(file.carried, moved.carried) == 0)
        #expect(Self.rawStatus(file.raw) == nil && Self.rawStatus(moved.raw) != nil)
        let linked = Self.latin1(dir.path, "hard")
        #expect(link(moved.carried, linked.carried) == 0 && Self.rawStatus(linked.raw)?.st_nlink == 2)
        let symbolic = Self.latin1(dir.path, "sym")
        #expect(symlink(moved.carried, symbolic.carried) == 0 && Self.rawStatus(symbolic.raw)!.st_mode & S_IFMT == S_IFLNK)
        #expect(Path.resolved(symbolic.carried) == moved.carried, "realpath's answer is carried back losslessly")

        let folder = Self.latin1(dir.path, "dir")
        #expect(mkdir(folder.carried, 0o700) == 0 && Self.rawStatus(folder.raw)!.st_mode & S_IFMT == S_IFDIR)
        let innerRaw = folder.raw + Array("/in".utf8) + [0xE9]
        let inner = (carried: FileNameBytes.string(innerRaw), raw: innerRaw)
        let folderFD = open(folder.carried, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        #expect(folderFD >= 0)
        let innerName = Path.basename(inner.carried)
        let innerFD = openat(folderFD, innerName, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        #expect(innerFD >= 0 && Self.rawStatus(inner.raw) != nil)
        close(innerFD)
        #expect(fstatat(folderFD, innerName, &st, 0) == 0)
        #expect(try Folders.names(in: folder.carried) == [innerName])
        #expect(unlinkat(folderFD, innerName, 0) == 0 && Self.rawStatus(inner.raw) == nil)
        close(folderFD)
        #expect(opendir(folder.carried).map { closedir($0) } == 0)
        #expect(rmdir(folder.carried) == 0 && Self.rawStatus(folder.raw) == nil)

        for name in [moved, linked, symbolic] { #expect(unlink(name.carried) == 0 && Self.rawStatus(name.raw) == nil) }
        #expect(try Folders.names(in: dir.path).isEmpty)
    }

    @Test func foldersAtomicWritesAndPrivateFoldersWorkUnderANameThatIsNotUTF8() throws {
        let dir = try TempFolder()
        let top = Self.latin1(dir.path, "top")
        let deep = top.carried + "/a/b"
        try Folders.create(deep, permissions: 0o700)
        #expect(Self.rawStatus(top.raw + Array("/a/b".utf8))!.st_mode & 0o777 == 0o700)
        #expect(Folders.isFolder(deep) && POSIXFile.exists(deep))
        try AtomicFileWriter.write([1, 2, 3], to: deep + "/f\u{EFE9}", mode: 0o600)
        #expect(Self.rawStatus(top.raw + Array("/a/b/f".utf8) + [0xE9])?.st_size == 3)
        #expect(try FileBytes.read(deep + "/f\u{EFE9}", limit: 10) == [1, 2, 3])
        let scratch = try PrivateFolder(label: "paths", root: top.carried)
        #expect(Self.rawStatus(FileNameBytes.bytes(scratch.path)) != nil)
        scratch.remove()
        try Folders.remove(top.carried)
        #expect(Self.rawStatus(top.raw) == nil)
        #expect(try Folders.names(in: dir.path).isEmpty)
    }
}
