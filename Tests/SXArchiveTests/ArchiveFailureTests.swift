import SXArchive
import SXCore
import SXTestSupport
import Testing

/// The typed archive failures: each case's sentence is built once, and its remedy follows its case.
@Suite(.ownThreads) struct ArchiveFailureTests {
    @Test(arguments: [
        (ArchiveFailure.notAZip(path: "/a.zip", reason: .empty), "'/a.zip' is empty (0 bytes), not a ZIP archive"),
        (.notAZip(path: "/a.zip", reason: .noZipSignature), "'/a.zip' is not a ZIP archive"),
        (.truncated(.shortRead(offset: 9)), "the archive is truncated: a read at byte 9 came back short"),
        (.damaged(.zip64RecordMissing), "the archive's ZIP64 end record is missing: the archive is damaged"),
        (.entryNotRegular(entry: "x", kind: "symbolic link"), "entry 'x' is a symbolic link; a chat archive holds only regular files"),
        (.zipBomb(.tooManyEntries(count: 9, limit: 8)),
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
    ] as [(ArchiveFailure, String)])
    func eachCaseSaysItsSentence(failure: ArchiveFailure, sentence: String) {
        #expect(failure.description == sentence)
        #expect(failure.message == sentence)
        #expect(!sentence.contains("--"), "a library sentence names no flag")
    }

    /// The ZIP structure checks: every sentence as it was before the checks had cases of their own.
    @Test(arguments: [
        (ArchiveFailure.structure(.noEntries), "the archive is empty: it has no entries, not even the chat database"),
        (.structure(.spansDisks), "the archive spans several disks, which a chat archive never does"),
        (.structure(.centralDirectoryTooLarge(bytes: 300, limit: 256)), "the archive's central directory is 300 bytes, more than the limit of 256"),
        (.structure(.centralDirectoryMisplaced(declaredOffset: 77)),
         "the archive's central directory is not where its end record says (byte 77): the archive is damaged, truncated or has data prepended"),
        (.structure(.moreEntriesThanDeclared(declared: 3)), "the archive's central directory holds more than the 3 entries its end record declares"),
        (.structure(.centralRecordDamaged(number: 2)), "the archive's central directory is damaged at entry #2"),
        (.structure(.nameNotUTF8(number: 4)), "entry #4 has a name that is not valid UTF-8; chat archives name every entry in UTF-8"),
        (.structure(.entriesOverlap("a", "b")), "entries 'a' and 'b' overlap inside the archive (a zip-bomb trick); refusing it"),
        (.structure(.entryPastData(entry: "a")), "entry 'a' points past the end of the archive's data: the archive is damaged or truncated"),
        (.structure(.zip64FieldDamaged(entry: "a")), "entry 'a' has a damaged ZIP64 field"),
        (.structure(.localNameDiffers(entry: "a", localName: "b")),
         "entry 'a' is named 'b' in its local header: the central directory and the local headers disagree"),
        (.structure(.localMethodDiffers(entry: "a")),
         "entry 'a' has a different compression method or encryption flag in its local header than in the central directory"),
        (.structure(.localFieldDiffers(entry: "a", field: .size, central: 600, local: 7)),
         "entry 'a' declares size 7 in its local header but 600 in the central directory: the archive is damaged or forged"),
        (.structure(.localFieldDiffers(entry: "a", field: .descriptorCRC, central: 1, local: 2)),
         "entry 'a' declares CRC (in its data descriptor) 2 in its local header but 1 in the central directory: the archive is damaged or forged"),
    ] as [(ArchiveFailure, String)])
    func structureSentences(failure: ArchiveFailure, sentence: String) {
        #expect(failure.description == sentence)
        #expect(failure.remedy == nil)
    }

    /// The chat-archive layout checks and what libarchive reads back, one case per entry problem.
    @Test(arguments: [
        (ArchiveFailure.entryRefused(entry: "f/a", .appearsTwice),
         "entry 'f/a' appears twice in the archive; refusing it, since which copy wins would depend on the tool"),
        (.entryRefused(entry: "f/A", .collides(earlier: "f/a")),
         "entries 'f/a' and 'f/A' would be the same file on a case-insensitive or Unicode-normalising file system; refusing the archive"),
        (.entryRefused(entry: "/tmp/e\u{1}vil", .unsafeName(reason: "the name is an absolute path")),
         "entry '/tmp/e?vil' is refused: the name is an absolute path"),
        (.entryRefused(entry: "f/sub", .directoryWithoutSlash),
         "entry 'f/sub' claims to be a directory but its name does not end in '/'; the archive is forged"),
        (.entryRefused(entry: "f/x", .unknownFileType(mode: 0o170000)), "entry 'f/x' has an unknown file type (mode 170000)"),
        (.entryRefused(entry: "f/a", .encrypted), "entry 'f/a' is encrypted; chat archives are not, and sxkit does not import encrypted entries"),
        (.entryRefused(entry: "f/", .directoryWithData), "directory entry 'f/' carries data"),
        (.entryRefused(entry: "f/a", .unsupportedMethod(14)), "entry 'f/a' is compressed with method 14; chat archives use deflate (8) or none (0)"),
        (.entryRefused(entry: "f/s", .storedSizeMismatch(stored: 100, size: 1 << 30)),
         "entry 'f/s' is stored uncompressed, yet declares 100 bytes stored for 1073741824: the archive is damaged or forged"),
        (.entryRefused(entry: "f/a", .readsBackNamed("f/b")), "entry 'f/a' reads back as 'f/b': the archive is damaged or forged"),
        (.entryRefused(entry: "f/a", .readsBackAsType(mode: 0o120000)),
         "entry 'f/a' reads back as a file of another type (mode 120000); a chat archive holds only regular files"),
        (.entryRefused(entry: "f/a", .dataUnreadable(cause: "bad stream")), "entry 'f/a' is damaged (bad stream); the archive cannot be read past it"),
        (.notAChatArchive(missing: "simplex_v1_agent.db"),
         "the archive has no simplex_v1_agent.db: it is not a chat archive (a chat archive holds both databases)"),
    ] as [(ArchiveFailure, String)])
    func entrySentences(failure: ArchiveFailure, sentence: String) {
        #expect(failure.description == sentence)
        #expect(failure.remedy == nil)
    }

    /// Space, import, export and writer failures.
    @Test(arguments: [
        (ArchiveFailure.notEnoughSpace(purpose: .importing, folder: "/d", needed: 2048, available: 1024, spare: 0),
         "importing the archive needs 2.00 KiB on the file system of '/d', which has 1.00 KiB free (keeping 0 B spare); free some space and run the command again; nothing was changed"),
        (.backupInTheWay(path: "/d/simplex_v1_chat.db.bak"),
         "'/d/simplex_v1_chat.db.bak' is in the way: the import keeps the current database there; move it away or delete it, then run the import again; nothing was changed"),
        (.archivedDatabaseDamaged(entry: "simplex_v1_chat.db", problem: "its data is damaged"),
         "the archive's simplex_v1_chat.db is damaged: its data is damaged; nothing was changed"),
        (.archivedDatabaseUnusable(role: .agent, entry: "simplex_v1_agent.db", outcome: .wrongPassphrase, cause: "the passphrase is wrong"),
         "the archive's agent database (simplex_v1_agent.db) cannot be used: the passphrase is wrong (an archive's databases keep the passphrase they had when exported); nothing was changed"),
        (.noSpaceToImport(cause: "No space left on device"),
         "no space left to import the archive (No space left on device); the staging folder was deleted and nothing was changed"),
        (.importInterrupted(cause: "rename failed"),
         "the import stopped while putting the archive's data in place: rename failed; its recovery finishes it"),
        (.exportSource(path: "/d/simplex_v1_agent.db", problem: .noDatabase),
         "there is no database at '/d/simplex_v1_agent.db' (the data directory must hold simplex_v1_chat.db and simplex_v1_agent.db)"),
        (.exportSource(path: "/d/simplex_v1_chat.db", problem: .beingWritten),
         "another program is writing to '/d/simplex_v1_chat.db'; close SimpleX Chat (and any other program using the database) and retry"),
        (.exportSource(path: "/d/simplex_v1_chat.db", problem: .uncopyable(cause: "it changed while being read")),
         "cannot archive '/d/simplex_v1_chat.db': it changed while being read"),
        (.writerOutOfMemory(path: "/o.zip", allocating: .writer), "cannot start a ZIP writer: out of memory"),
        (.writerOutOfMemory(path: "/o.zip", allocating: .entry), "cannot describe an entry of '/o.zip': out of memory"),
        (.methodNotWritable(method: 12, path: "/o.zip"), "cannot write ZIP method 12 into '/o.zip'"),
    ] as [(ArchiveFailure, String)])
    func importExportAndWriterSentences(failure: ArchiveFailure, sentence: String) {
        #expect(failure.description == sentence)
        #expect(!sentence.contains("--"), "a library sentence names no flag")
    }

    @Test func theRemedyFollowsTheCase() {
        #expect(ArchiveFailure.output(path: "/o.zip", problem: .exists).remedy == .replaceExisting)
        #expect(ArchiveFailure.output(path: "/o.zip", problem: .isAFolder).remedy == nil)
        #expect(ArchiveFailure.databaseInUse(path: "/d/chat.db", settling: true).remedy == .recover(.archiveImport))
        #expect(ArchiveFailure.databaseInUse(path: "/d/chat.db", settling: false).remedy == nil)
        #expect(ArchiveFailure.importBlocked(existing: ["/p"], appMayHaveRun: false).remedy == .recover(.archiveImport))
        #expect(ArchiveFailure.importInterrupted(cause: "x").remedy == .recover(.archiveImport))
        #expect(ArchiveFailure.exportSource(path: "/d/chat.db", problem: .noDatabase).remedy == .chooseDataDirectory)
        #expect(ArchiveFailure.exportSource(path: "/d/chat.db", problem: .beingWritten).remedy == nil)
        #expect(ArchiveFailure.backupInTheWay(path: "/d/chat.db.bak").remedy == nil)
        #expect(ArchiveFailure.notEnoughSpace(purpose: .importing, folder: "/", needed: 1, available: 0, spare: 0).remedy == nil)
        #expect(ArchiveFailure.zipBomb(.tooManyEntries(count: 9, limit: 8)).remedy == nil)
        #expect(ArchiveFailure.truncated(.endMissing).exitStatus == .failed)
    }

    /// The checks throw the case itself, with its data, so a caller can match it rather than its text.
    @Test func hostileArchivesAreRefusedWithTheirCase() throws {
        let folder = try TempFolder("sx-failure-case")
        func archive(_ body: String) throws -> String { try ZipFixture.make(folder, "in.zip", body) }
        #expect(throws: ArchiveFailure.structure(.noEntries)) { try ChatArchiveCheck.run(try archive("zipfile.ZipFile(out, 'w').close()")) }
        #expect(throws: ArchiveFailure.entryRefused(entry: "simplex_v1_files/a.txt", .appearsTwice)) {
            try ChatArchiveCheck.run(try archive("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/a.txt'), b'second')"))
        }
        #expect(throws: ArchiveFailure.entryRefused(entry: "simplex_v1_files/A.TXT", .collides(earlier: "simplex_v1_files/a.txt"))) {
            try ChatArchiveCheck.run(try archive("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/A.TXT'), b'x')"))
        }
        #expect(throws: ArchiveFailure.notAChatArchive(missing: "simplex_v1_agent.db")) {
            try ChatArchiveCheck.run(try archive("with zipfile.ZipFile(out, 'w') as z:\n base(z, agent=False)"))
        }
        #expect(throws: ArchiveFailure.structure(.localFieldDiffers(entry: "simplex_v1_files/a.txt", field: .size, central: 600, local: 7))) {
            try ChatArchiveCheck.run(try archive("with zipfile.ZipFile(out, 'w') as z:\n base(z)\npatch('local', 'simplex_v1_files/a.txt', 'usize', 7)"))
        }
        let sound = try archive("with zipfile.ZipFile(out, 'w') as z:\n base(z)")
        do {
            _ = try ArchiveVerify.run(sound, passphrase: nil, limits: ArchiveLimits(spareBytes: Int64.max / 4), tempRoot: folder.path)
            Issue.record("verify went ahead without the space it needs")
        } catch let failure as ArchiveFailure {
            guard case .notEnoughSpace(.checkingDatabases, _, 12288, _, Int64.max / 4) = failure else {
                Issue.record("not the space case with its numbers: \(failure)")
                return
            }
        }
    }

    @Test(arguments: [
        (ArchiveFailure.truncated(.endsBeforeRecords(fileSize: 100, recordsEnd: 130)), "the archive is truncated: it ends at byte 100, but its records reach byte 130"),
        (.truncated(.endMissing), "the archive is truncated: it starts like a ZIP, but its end (the central directory) is missing"),
        (.truncated(.entryDataMissing(entry: "a.jpg", bytes: 512)), "the archive is truncated: entry 'a.jpg' needs 512 bytes of data, and the file ends before them"),
        (.damaged(.entryRunsIntoCentralDirectory(entry: "a.jpg")), "entry 'a.jpg' runs into the central directory: the archive is damaged"),
        (.damaged(.zip64LocatorMissing), "the archive's ZIP64 end locator is missing: the archive is damaged"),
        (.damaged(.zip64RecordMisplaced), "the archive's ZIP64 end record is out of place: the archive is damaged"),
        (.damaged(.entryOnAnotherDisk(entry: "b")), "entry 'b' says it starts on another disk: the archive is damaged"),
        (.damaged(.localHeaderMissing(entry: "b", offset: 77)), "entry 'b' has no local header where the central directory says (byte 77): the archive is damaged"),
        (.damaged(.fewerEntriesRead(read: 3, listed: 5)), "libarchive found 3 entries in the archive, the central directory lists 5: the archive is damaged"),
        (.damaged(.moreEntriesRead), "libarchive found more entries in the archive than its central directory lists: the archive is damaged"),
        (.zipBomb(.expandsBeyondLimit(limit: 1 << 30, reachedAt: "big.bin")),
         "the archive would expand to more than 1.00 GiB (reached at entry 'big.bin'); refusing a likely zip bomb"),
        (.zipBomb(.archiveRatio(archiveBytes: 1 << 20, expandedBytes: 2 << 30, ratio: 1000)),
         "the archive (1.00 MiB) would expand to 2.00 GiB, more than 1000:1; refusing a likely zip bomb"),
        (.zipBomb(.entryRatio(entry: "e", compressed: 1024, uncompressed: 2 << 20, ratio: 1000)),
         "entry 'e' would expand from 1.00 KiB to 2.00 MiB, more than 1000:1; refusing a likely zip bomb"),
        (.zipBomb(.inflatesBeyondDeclared(entry: "e", declared: 10)), "entry 'e' inflates to more than the 10 bytes its headers declare; refusing a likely zip bomb"),
    ])
    func truncationDamageAndZipBombSentences(failure: ArchiveFailure, sentence: String) {
        #expect(failure.description == sentence)
        #expect(failure.remedy == nil)
    }
}
