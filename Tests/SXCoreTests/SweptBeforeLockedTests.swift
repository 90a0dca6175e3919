import Foundation
@testable import SXCore
import SXTestSupport
import Testing

/// Another run's sweep can remove a new private folder or temp file in the instant between its
/// creation and its lock, when it still looks stale. CI once saw it: a database check's probe got a
/// folder that was already gone, and reported no journal mode.
@Suite("Temps swept before they are locked", .ownThreads)
struct SweptBeforeLockedTests {
    @Test func aFolderSweptBeforeItIsOpenedIsReplacedByAnother() throws {
        let tmp = try TempFolder()
        var swept: [String] = []
        let folder = try PrivateFolder(label: "race", root: tmp.root) { made in
            if swept.isEmpty {
                #expect(PrivateFolder.removeStale(label: "race", in: tmp.root) == 1)
                swept.append(made)
            }
        }
        #expect(swept.count == 1 && folder.path != swept[0])
        #expect(POSIXFile.linkStatus(folder.path) != nil, "the folder handed out exists")
        #expect(!TempOwnership.isStale(folder.path), "and is locked")
        try AtomicFileWriter.write(Array("x".utf8), to: Path.join(folder.path, "page1.db"), mode: 0o600)
        folder.remove()
        #expect(POSIXFile.linkStatus(folder.path) == nil)
    }

    @Test func aFolderSweptEveryTimeIsAnErrorNotAMissingFolder() throws {
        let tmp = try TempFolder()
        var sweeps = 0
        #expect(throws: FileSystemError.self) {
            _ = try PrivateFolder(label: "race", root: tmp.root) { _ in
                sweeps += PrivateFolder.removeStale(label: "race", in: tmp.root)
            }
        }
        #expect(sweeps == 8)
        #expect(try Folders.names(in: tmp.root).isEmpty, "nothing left behind")
    }

    @Test func aTempFileSweptBeforeItIsLockedIsReplacedByAnother() throws {
        let tmp = try TempFolder()
        let destination = Path.join(tmp.root, "state.json")
        var swept: [String] = []
        let writer = try AtomicFileWriter(destination: destination, mode: 0o600) { made in
            if swept.isEmpty {
                #expect(AtomicFileWriter.removeStaleTempFiles(of: destination) == 1)
                swept.append(made)
            }
        }
        #expect(swept.count == 1 && writer.tempPath != swept[0])
        try writer.write(Array("{}".utf8))
        try writer.commit()
        #expect(try tmp.read("state.json") == Array("{}".utf8))
        #expect(try Folders.names(in: tmp.root) == ["state.json"])
    }

    @Test func aTempFileSweptEveryTimeIsAnErrorBeforeAnythingIsWritten() throws {
        let tmp = try TempFolder()
        let destination = Path.join(tmp.root, "state.json")
        var sweeps = 0
        #expect(throws: FileSystemError.self) {
            _ = try AtomicFileWriter(destination: destination, mode: 0o600) { _ in
                sweeps += AtomicFileWriter.removeStaleTempFiles(of: destination)
            }
        }
        #expect(sweeps == 8)
        #expect(try Folders.names(in: tmp.root).isEmpty, "nothing left behind")
    }
}
