import Foundation
@testable import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("InputFiles.expand", .ownThreads)
struct InputFilesTests {
    /// top/a.txt, top/sub/b.bin, top/sub/deeper/c, plus a temp leftover and links.
    private func tree() throws -> TempFolder {
        let tmp = try TempFolder("sxkit-inputs")
        try tmp.write("top/a.txt", Array("aaaa".utf8))
        try tmp.write("top/sub/b.bin", [1, 2, 3, 4, 5, 6])
        try tmp.write("top/sub/deeper/c", [])
        try tmp.write("top/.sxkit-tmp-a.txt.X1b2c3", [9, 9])
        try tmp.write("top/.hidden", [7])
        try FileManager.default.createSymbolicLink(atPath: tmp.root + "/top/link-to-a", withDestinationPath: tmp.root + "/top/a.txt")
        try FileManager.default.createSymbolicLink(atPath: tmp.root + "/top/sub/link-to-outside", withDestinationPath: "/etc")
        return tmp
    }

    @Test func recursesAndNamesFilesRelativeToTheFolderArgument() throws {
        let tmp = try tree()
        let (files, _) = InputFiles.expand([tmp.root + "/top"])
        #expect(files.map(\.relativePath) == ["top/.hidden", "top/a.txt", "top/sub/b.bin", "top/sub/deeper/c"])
        #expect(files.map(\.path) == files.map { tmp.root + "/" + $0.relativePath })
        #expect(files.map(\.size) == [1, 4, 6, 0])
    }

    @Test func symlinksAreReportedAndNotFollowed() throws {
        let tmp = try tree()
        let (files, problems) = InputFiles.expand([tmp.root + "/top"])
        #expect(!files.contains { $0.path.hasPrefix("/etc") })
        #expect(files.filter { $0.path.hasSuffix("a.txt") }.count == 1)
        #expect(problems.map(\.path) == [tmp.root + "/top/link-to-a", tmp.root + "/top/sub/link-to-outside"])
        #expect(problems.allSatisfy { $0.reason.contains("symbolic link") })
    }

    @Test func aSymlinkNamedDirectlyIsReportedToo() throws {
        let tmp = try tree()
        let (files, problems) = InputFiles.expand([tmp.root + "/top/link-to-a"])
        #expect(files.isEmpty)
        #expect(problems == [InputFiles.Problem(path: tmp.root + "/top/link-to-a", reason: "is a symbolic link; links are not followed")])
    }

    @Test func missingPathIsReported() throws {
        let tmp = try tree()
        let missing = tmp.root + "/nope.txt"
        let (files, problems) = InputFiles.expand([missing, tmp.root + "/top/a.txt"])
        #expect(files.map(\.relativePath) == ["a.txt"])
        #expect(problems.count == 1)
        #expect(problems.first?.path == missing)
        #expect(problems.first?.reason == String(cString: strerror(ENOENT)))
    }

    @Test func atomicTempFilesAreSkipped() throws {
        let tmp = try tree()
        let (files, problems) = InputFiles.expand([tmp.root + "/top", tmp.root + "/top/.sxkit-tmp-a.txt.X1b2c3"])
        #expect(!files.contains { $0.relativePath.contains(".sxkit-tmp-") })
        #expect(!problems.contains { $0.path.contains(".sxkit-tmp-") })
    }

    @Test func excludedPathsAreSkippedFilesAndFolders() throws {
        let tmp = try tree()
        let (files, _) = InputFiles.expand([tmp.root + "/top"],
                                           skipping: [tmp.root + "/top/a.txt", tmp.root + "/top/sub/deeper"])
        #expect(files.map(\.relativePath) == ["top/.hidden", "top/sub/b.bin"])
    }

    @Test func pathsAreNormalisedAndDuplicatesListedOnce() throws {
        let tmp = try tree()
        let (files, problems) = InputFiles.expand([tmp.root + "/top/sub/../a.txt", tmp.root + "/top/./a.txt", tmp.root + "/top"],
                                                  skipping: [tmp.root + "/top/sub"])
        #expect(problems.map(\.path) == [tmp.root + "/top/link-to-a"], "the link inside the excluded folder is not visited")
        #expect(files.map(\.path) == [tmp.root + "/top/a.txt", tmp.root + "/top/.hidden"])
        #expect(files.first?.relativePath == "a.txt", "the first naming decides the relative path")
    }

    @Test func singleFileKeepsItsModeAndSize() throws {
        let tmp = try tree()
        let path = tmp.root + "/top/sub/b.bin"
        #expect(chmod(path, 0o640) == 0)
        let (files, problems) = InputFiles.expand([path])
        #expect(problems.isEmpty)
        #expect(files == [InputFiles.File(path: path, relativePath: "b.bin", size: 6, mode: 0o640)])
    }

    @Test func relativeArgumentsBecomeAbsolute() throws {
        let tmp = try tree()
        // A path relative to the working folder, spelled with `..` to reach the temp tree.
        let cwd = FileManager.default.currentDirectoryPath
        let hops = Path.absolute(cwd).split(separator: "/").map { _ in ".." }.joined(separator: "/")
        let relative = hops + tmp.root + "/top/sub"
        let (files, problems) = InputFiles.expand([relative])
        #expect(problems.count == 1)
        #expect(files.map(\.relativePath) == ["sub/b.bin", "sub/deeper/c"])
        #expect(files.first?.path == tmp.root + "/top/sub/b.bin")
    }

    @Test func specialFilesAreReportedOnlyWhenNamed() throws {
        let tmp = try tree()
        let fifo = tmp.root + "/top/sub/pipe"
        #expect(mkfifo(fifo, 0o600) == 0)
        let (inside, insideProblems) = InputFiles.expand([tmp.root + "/top/sub"])
        #expect(inside.map(\.relativePath) == ["sub/b.bin", "sub/deeper/c"])
        #expect(insideProblems.map(\.path) == [tmp.root + "/top/sub/link-to-outside"], "a fifo met while recursing is skipped quietly")
        let (named, namedProblems) = InputFiles.expand([fifo])
        #expect(named.isEmpty)
        #expect(namedProblems == [InputFiles.Problem(path: fifo, reason: "is not a regular file")])
    }

    @Test func emptyFolderGivesNothing() throws {
        let tmp = try TempFolder()
        let folder = try tmp.makeFolder("empty")
        let (files, problems) = InputFiles.expand([folder])
        #expect(files.isEmpty)
        #expect(problems.isEmpty)
    }
}
