import SXArchive
import SXCore
import Testing

/// The typed archive failures: each case's sentence is built once, and its remedy follows its case.
@Suite struct ArchiveFailureTests {
    @Test(arguments: [
        (ArchiveFailure.notAZip(path: "/a.zip", reason: .empty), "'/a.zip' is empty (0 bytes), not a ZIP archive"),
        (.notAZip(path: "/a.zip", reason: .noZipSignature), "'/a.zip' is not a ZIP archive"),
        (.truncated(detail: "a read at byte 9 came back short"), "the archive is truncated: a read at byte 9 came back short"),
        (.damaged(detail: "the archive's ZIP64 end record is missing"), "the archive's ZIP64 end record is missing: the archive is damaged"),
        (.entryNotRegular(entry: "x", kind: "symbolic link"), "entry 'x' is a symbolic link; a chat archive holds only regular files"),
        (.zipBomb(detail: "the archive has 9 entries, more than the limit of 8"),
         "the archive has 9 entries, more than the limit of 8; refusing a likely zip bomb"),
        (.unreadable(path: "/a.zip", step: .nextEntry, cause: "bad header"), "cannot read the next entry of '/a.zip': bad header"),
        (.unwritable(path: "/o.zip", operation: "finish", cause: "no"), "cannot finish '/o.zip': no"),
        (.output(path: "/o.zip", problem: .exists), "'/o.zip' already exists; choose another name"),
        (.output(path: "/out", problem: .folderMissing), "the folder '/out' does not exist; create it first"),
        (.databaseInUse(path: "/d/chat.db", settling: false),
         "'/d/chat.db' is open in another program (SimpleX Chat?); close it and run the import again; nothing was changed"),
        (.importBlocked(existing: ["/d/chat.db", "/d/chat.db.bak"], appMayHaveRun: true),
         "cannot finish the import: both '/d/chat.db' and '/d/chat.db.bak' exist (was SimpleX Chat started in between?); move one away, then settle the import again"),
        (.importBlocked(existing: ["/d/previous"], appMayHaveRun: false),
         "cannot finish the import: '/d/previous' exists already; move it away, then settle the import again"),
        (.journalPhaseUnknown(path: "/d/j", phase: "later"), "the import journal '/d/j' names an unknown phase 'later'"),
        (ArchiveFailure("anything else", remedy: .chooseDataDirectory), "anything else"),
    ] as [(ArchiveFailure, String)])
    func eachCaseSaysItsSentence(failure: ArchiveFailure, sentence: String) {
        #expect(failure.description == sentence)
        #expect(failure.message == sentence)
        #expect(!sentence.contains("--"), "a library sentence names no flag")
    }

    @Test func theRemedyFollowsTheCase() {
        #expect(ArchiveFailure.output(path: "/o.zip", problem: .exists).remedy == .replaceExisting)
        #expect(ArchiveFailure.output(path: "/o.zip", problem: .isAFolder).remedy == nil)
        #expect(ArchiveFailure.databaseInUse(path: "/d/chat.db", settling: true).remedy == .recover(.archiveImport))
        #expect(ArchiveFailure.databaseInUse(path: "/d/chat.db", settling: false).remedy == nil)
        #expect(ArchiveFailure.importBlocked(existing: ["/p"], appMayHaveRun: false).remedy == .recover(.archiveImport))
        #expect(ArchiveFailure.zipBomb(detail: "big").remedy == nil)
        #expect(ArchiveFailure("kept", remedy: .chooseDataDirectory).remedy == .chooseDataDirectory)
        #expect(ArchiveFailure.truncated(detail: "short").exitStatus == .failed)
    }
}
