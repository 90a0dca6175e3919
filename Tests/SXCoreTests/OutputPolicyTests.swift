import Foundation
import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("One overwrite rule, output folders, and errors in words", .ownThreads)
struct OutputPolicyTests {
    @Test func refusesEveryExistingOutputAndNamesThem() throws {
        let dir = try TempFolder()
        let a = try dir.write("a", [1])
        let b = try dir.write("b", [2])
        let missing = dir.file("c")
        #expect(throws: ExistingOutputError(paths: [a, b])) { try OutputPolicy.refuse.check([a, missing, b]) }
        try OutputPolicy.refuse.check([missing])
        try OutputPolicy.replace.check([a, b, missing])
        let error = ExistingOutputError(paths: [a, b])
        #expect(error.description.hasPrefix("'\(a)' and 1 more output(s) already exist"))
        #expect(!error.description.contains("--"), "a domain error names no flag")
        #expect(ExistingOutputError(paths: [a]).what == "'\(a)' already exists")
    }

    @Test func aDanglingLinkIsAnExistingOutput() throws {
        let dir = try TempFolder()
        let link = dir.file("link")
        #expect(symlink(dir.file("nowhere"), link) == 0)
        #expect(throws: ExistingOutputError(paths: [link])) { try OutputPolicy.refuse.check([link]) }
    }

    @Test func aFolderIsNeverReplacedByAFile() throws {
        let dir = try TempFolder()
        try FileManager.default.createDirectory(atPath: dir.file("sub"), withIntermediateDirectories: true)
        #expect(throws: ExistingOutputError(paths: [dir.file("sub")], isFolder: true)) { try OutputPolicy.replace.check([dir.file("sub")]) }
    }

    @Test func outputFoldersAreCreatedAndAFileInTheWayIsNamed() throws {
        let dir = try TempFolder()
        #expect(OutputFolder.isFolderSyntax("new/"))
        #expect(!OutputFolder.isFolderSyntax("new") && !OutputFolder.isFolderSyntax("/"))
        try OutputFolder.create(dir.file("new/deeper/"))
        #expect(try POSIXFile.status(dir.file("new/deeper")).st_mode & S_IFMT == S_IFDIR)
        try OutputFolder.create(dir.file("new"))  // existing: fine
        let file = try dir.write("file", [1])
        #expect(throws: OutputFolderError.notAFolder(path: file)) { try OutputFolder.create(file) }
        #expect(throws: OutputFolderError.notAFolder(path: file)) { try OutputFolder.create(file + "/below") }
        #expect(throws: OutputFolderError.notAFolder(path: file)) { try OutputFolder.check(file + "/below/deeper") }
        try OutputFolder.check(dir.file("not/yet/there"))
        #expect(!FileManager.default.fileExists(atPath: dir.file("not")), "check creates nothing")
    }

    @Test func foundationAndCodableErrorsBecomeWordsNotDumps() throws {
        let dir = try TempFolder()
        let file = try dir.write("file", [1])
        var caught: (any Error)?
        do { try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true) } catch { caught = error }
        let error = try #require(caught)
        let text = ErrorCause.text(of: error)
        #expect(text == String(cString: strerror(EEXIST)), "\(text)")
        #expect(!text.contains("Domain="))

        struct Shape: Decodable { var size: Int; var name: String }
        for (json, expected) in [(#"{"size":"big","name":"x"}"#, "'size' is not a number"),
                                 (#"{"size":1}"#, "the field 'name' is missing"),
                                 ("[1]", "the document is not an object"),
                                 ("{", "it is not valid JSON")] {
            do {
                _ = try JSONDecoder().decode(Shape.self, from: Data(json.utf8))
                Issue.record("\(json) decoded")
            } catch {
                #expect(ErrorCause.text(of: error) == expected, "\(json): \(ErrorCause.text(of: error))")
            }
        }
        #expect(ErrorCause.text(of: FileSystemError("open", path: "/x", code: ENOENT)) == "cannot open '/x': No such file or directory")
    }

    /// swift-nio's IOError keeps the errno in a field named `errnoCode`: found without importing it.
    @Test func anErrnoFieldIsFound() {
        struct LikeIOError: Error { let errnoCode: Int32; let failureDescription = "bind(descriptor:ptr:bytes:)" }
        #expect(ErrorCause.errno(of: LikeIOError(errnoCode: EADDRINUSE)) == EADDRINUSE)
        #expect(ErrorCause.text(of: LikeIOError(errnoCode: EADDRINUSE)) == String(cString: strerror(EADDRINUSE)))
        struct Opaque: Error {}
        #expect(ErrorCause.text(of: Opaque()) == "an unexpected Opaque error")
    }
}
