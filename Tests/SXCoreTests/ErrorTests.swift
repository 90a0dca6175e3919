import Foundation
import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Errors and small-file reads", .ownThreads)
struct ErrorTests {
    @Test func fileSystemErrorReadsAsASentence() {
        let error = FileSystemError("open", path: "/x/y", code: ENOENT)
        #expect(error.description == "cannot open '/x/y': No such file or directory")
        #expect(!error.isNoSpace)
        #expect(error.exitStatus == .failed)
    }

    @Test func noSpaceCodesAreRecognised() {
        for code in [ENOSPC, EDQUOT, EFBIG] {
            let error = FileSystemError("write", path: "/f", code: code)
            #expect(error.isNoSpace, "errno \(code)")
            #expect(error.description.contains("free some space"))
            #expect(error.description.contains("nothing was replaced"))
        }
        #expect(!FileSystemError("write", path: "/f", code: EACCES).isNoSpace)
    }

    @Test func exitStatuses() {
        // Only the command line decides that the command line is wrong (2); a library's refusal is 1.
        #expect(UsageError("bad").exitStatus == .failed)
        #expect(UsageError("bad").description == "bad")
        #expect(PassphraseError("p").exitStatus == .failed)
        #expect(ExitStatus.ok.rawValue == 0)
        #expect(ExitStatus.failed.rawValue == 1)
        #expect(ExitStatus.usage.rawValue == 2)
        #expect(ExitStatus.partial.rawValue == 3)
    }

    @Test func fileBytesReadsUpToTheLimit() throws {
        let tmp = try TempFolder()
        let bytes = [UInt8]((0..<200_000).map { UInt8(truncatingIfNeeded: $0) })
        let path = try tmp.write("f", bytes)
        #expect(try FileBytes.read(path, limit: 200_000) == bytes)
        let error = #expect(throws: UsageError.self) { try FileBytes.read(path, limit: 199_999) }
        #expect(error?.description.contains(path) == true)
        #expect(try FileBytes.read(try tmp.write("empty", []), limit: 0) == [])
    }

    @Test func fileBytesOfAFolderIsAFileSystemError() throws {
        let tmp = try TempFolder()
        let error = #expect(throws: FileSystemError.self) { try FileBytes.read(tmp.root, limit: 10) }
        #expect(error?.code == EISDIR)
        #expect(error?.path == tmp.root)
    }

    @Test func linkStatusDoesNotFollowLinks() throws {
        let tmp = try TempFolder()
        try FileManager.default.createSymbolicLink(atPath: tmp.root + "/dangling", withDestinationPath: tmp.root + "/nowhere")
        let st = try #require(POSIXFile.linkStatus(tmp.root + "/dangling"))
        #expect(st.st_mode & S_IFMT == S_IFLNK)
        #expect(POSIXFile.linkStatus(tmp.root + "/nowhere") == nil)
        #expect(throws: FileSystemError.self) { try POSIXFile.status(tmp.root + "/dangling") }
    }
}
