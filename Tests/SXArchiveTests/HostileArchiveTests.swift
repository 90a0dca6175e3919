import Foundation
import SXArchive
import SXCore
import SXTestSupport
import Testing

/// Every hostile or broken archive is refused whole, by import and by verify, with a sentence naming
/// the problem — and the data directory stays byte-identical, nothing is left in the temp folder.
@Suite(.ownThreads) struct HostileArchiveTests {
    /// Imports `archive`, expecting a refusal whose message contains every word of `words`.
    func expectRefused(_ body: String, _ words: [String], limits: ArchiveLimits = ArchiveLimits(), verifyToo: Bool = true,
                       sourceLocation: SourceLocation = #_sourceLocation) throws {
        let folder = try TempFolder("sx-hostile")
        let data = try ZipFixture.dataDirectory(folder)
        let archive = try ZipFixture.make(folder, "in.zip", body)
        let before = try FolderSnapshot.take(data.root)
        for attempt in verifyToo ? ["import", "verify"] : ["import"] {
            do {
                if attempt == "import" {
                    _ = try ArchiveImport.run(archive: archive, into: data, passphrase: SecretBytes(Array("x".utf8)), replaceExisting: true,
                                              limits: limits, tempRoot: folder.file("tmp"))
                } else {
                    _ = try ArchiveVerify.run(archive, passphrase: nil, limits: limits, tempRoot: folder.file("tmp"))
                }
                Issue.record("\(attempt) accepted the archive", sourceLocation: sourceLocation)
            } catch let failure as ArchiveFailure {
                for word in words {
                    #expect(failure.message.contains(word), "\(attempt): '\(failure.message)' lacks '\(word)'", sourceLocation: sourceLocation)
                }
            }
        }
        let after = try FolderSnapshot.take(data.root)
        #expect(after == before, "changed: \(after.differences(from: before))", sourceLocation: sourceLocation)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("tmp")).isEmpty, sourceLocation: sourceLocation)
    }

    /// An interrupted passphrase change is not the import's to settle: it refuses before reading
    /// the archive, with the operation whose recovery comes first.
    @Test func importRefusesWhileAPassphraseChangeIsUnsettled() throws {
        let folder = try TempFolder("sx-hostile")
        let data = try ZipFixture.dataDirectory(folder)
        try folder.write("data/simplex_v1_chat.db.exported", [1, 2, 3])
        let before = try FolderSnapshot.take(data.root)
        do {
            _ = try ArchiveImport.run(archive: folder.file("never-read.zip"), into: data, passphrase: SecretBytes(Array("x".utf8)),
                                      tempRoot: folder.file("tmp"))
            Issue.record("the import went ahead")
        } catch let pending as PendingRecovery {
            #expect(pending.operation == .passphraseChange)
            #expect(pending.remedy == .recover(.passphraseChange))
            #expect(pending.summary.contains("no database had been replaced"), "\(pending.summary)")
        }
        #expect(try FolderSnapshot.take(data.root) == before)
    }

    @Test func dotDotName() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/../../evil.sh'), b'x')",
                          ["simplex_v1_files/../../evil.sh", "'..'"])
    }

    @Test func absoluteName() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('/tmp/evil'), b'x')", ["/tmp/evil", "absolute"])
    }

    @Test func backslashName() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files\\\\..\\\\x'), b'x')", ["backslash"])
    }

    @Test func driveLetterName() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('C:/evil'), b'x')", ["C:/evil", "drive letter"])
    }

    @Test func dotAndEmptyComponents() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/./x'), b'x')", ["'.' component"])
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files//x'), b'x')", ["empty component"])
    }

    @Test func symlinkEntry() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/link', 0o120777), b'/etc/passwd')",
                          ["simplex_v1_files/link", "symbolic link"])
    }

    @Test func deviceAndFifoEntries() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/dev', 0o020644), b'')",
                          ["simplex_v1_files/dev", "device"])
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/fifo', 0o010644), b'')",
                          ["simplex_v1_files/fifo", "FIFO"])
    }

    @Test func aDirectoryModeOnAFileNameIsForged() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/sub', 0o040755), b'')",
                          ["simplex_v1_files/sub", "forged"])
    }

    @Test func layoutDirectoriesAreAccepted() throws {
        let folder = try TempFolder("sx-hostile")
        let archive = try ZipFixture.make(folder, "in.zip", """
            with zipfile.ZipFile(out, 'w') as z:
             z.writestr(info('simplex_v1_files/', 0o040755), b'')
             z.writestr(info('simplex_v1_assets/', 0o040755), b'')
             z.writestr(info('simplex_v1_assets/wallpapers/', 0o040755), b'')
             base(z)
            """)
        let plan = try ChatArchiveCheck.run(archive)
        #expect(plan.items.count == 6)
        #expect(plan.dataItems.count == 3)
    }

    @Test func duplicateNames() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/a.txt'), b'second')",
                          ["simplex_v1_files/a.txt", "twice"])
    }

    @Test func namesThatCollideAfterNormalisation() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/A.TXT'), b'x')",
                          ["simplex_v1_files/A.TXT", "case-insensitive"])
        try expectRefused("""
            with zipfile.ZipFile(out, 'w') as z:
             base(z)
             z.writestr(info(unicodedata.normalize('NFC', 'simplex_v1_files/caf\\u00e9.txt')), b'x')
             z.writestr(info(unicodedata.normalize('NFD', 'simplex_v1_files/caf\\u00e9.txt')), b'y')
            """, ["Unicode-normalising"])
    }

    /// Not hostile, only outside the layout: skipped with an `import` ArchiveError by import and
    /// named by verify, as SimpleX's import ignores them (simplex-chat `Archive.hs` `importArchive`).
    @Test func namesOutsideTheLayoutAreSkippedNotRefused() throws {
        let folder = try TempFolder("sx-outside")
        let archive = try ZipFixture.make(folder, "in.zip", """
            with zipfile.ZipFile(out, 'w') as z:
             base(z)
             z.writestr(info('notes.txt'), b'x')
             z.writestr(info('simplex_v1_files/sub/x.jpg'), b'y')
             z.writestr(zipfile.ZipInfo('simplex_v1_files/sub/'), b'')
             z.writestr(info('simplex_v1_assets/other/theme.json'), b'{}')
            """)
        let plan = try ChatArchiveCheck.run(archive)
        #expect(plan.items.filter { $0.skipped != nil }.map(\.record.name) == ["notes.txt", "simplex_v1_files/sub/x.jpg", "simplex_v1_files/sub/", "simplex_v1_assets/other/theme.json"])
        #expect(plan.skippedErrors.count == 4)
        #expect(plan.skippedErrors.allSatisfy { if case .import(let text) = $0 { text.contains("skipped") } else { false } })
        let verify = try ArchiveVerify.run(archive, passphrase: nil, tempRoot: folder.path)
        #expect(verify.archiveErrors == plan.skippedErrors)
        #expect(!verify.entries.contains { $0.name.contains("sub/") || $0.name == "notes.txt" })
    }

    @Test func encryptedEntry() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\npatch('local', 'simplex_v1_files/a.txt', 'flags', 1)\npatch('central', 'simplex_v1_files/a.txt', 'flags', 1)",
                          ["simplex_v1_files/a.txt", "encrypted"])
    }

    @Test func highRatioBomb() throws {
        try expectRefused("""
            data = b'\\0' * (24 << 20)
            with zipfile.ZipFile(out, 'w', compresslevel=9) as z:
             base(z)
             z.writestr(info('simplex_v1_files/zeros.bin'), data)
            i = zipfile.ZipFile(out).getinfo('simplex_v1_files/zeros.bin')
            assert i.file_size > 1000 * i.compress_size, (i.file_size, i.compress_size)
            """, ["simplex_v1_files/zeros.bin", "zip bomb", "1000:1"])
    }

    @Test func declaredTotalOverTheCap() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)", ["expand to more than"], limits: ArchiveLimits(maxTotalBytes: 10_000))
    }

    @Test func tooManyEntries() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n for i in range(5): z.writestr(info('simplex_v1_files/f%d' % i), b'x')",
                          ["8 entries", "limit of 6"], limits: ArchiveLimits(maxEntries: 6))
    }

    @Test func notEnoughFreeSpace() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)", ["free"], limits: ArchiveLimits(spareBytes: Int64.max / 4))
    }

    /// Headers that under-declare the size: caught while inflating, by counting the bytes that come out.
    @Test func lyingSizeIsCaughtWhileExtracting() throws {
        try expectRefused("""
            with zipfile.ZipFile(out, 'w') as z:
             z.writestr(info('simplex_v1_chat.db'), b''.join(b'%d relay chunk contact\\n' % i for i in range(300000)))
             z.writestr(info('simplex_v1_agent.db'), os.urandom(4096))
            patch('local', 'simplex_v1_chat.db', 'usize', 4096)
            patch('central', 'simplex_v1_chat.db', 'usize', 4096)
            """, ["simplex_v1_chat.db", "more than the 4096 bytes its headers declare"])
    }

    @Test func storedEntryWithMismatchedSizes() throws {
        try expectRefused("""
            with zipfile.ZipFile(out, 'w') as z:
             base(z)
             z.writestr(info('simplex_v1_files/s.bin', method=zipfile.ZIP_STORED), b'x' * 100)
            patch('local', 'simplex_v1_files/s.bin', 'usize', 1 << 30)
            patch('central', 'simplex_v1_files/s.bin', 'usize', 1 << 30)
            """, ["simplex_v1_files/s.bin", "stored"])
    }

    @Test func centralDirectoryDisagreesWithLocalHeaders() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\npatch('local', 'simplex_v1_files/a.txt', 'name', 'simplex_v1_files/b.txt')",
                          ["simplex_v1_files/a.txt", "simplex_v1_files/b.txt", "local header"])
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\npatch('local', 'simplex_v1_files/a.txt', 'usize', 7)",
                          ["simplex_v1_files/a.txt", "size 7"])
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\npatch('local', 'simplex_v1_files/a.txt', 'crc', 0x12345678)",
                          ["simplex_v1_files/a.txt", "CRC"])
    }

    @Test func truncatedArchive() throws {
        try expectRefused("""
            with zipfile.ZipFile(out, 'w') as z:
             base(z)
            data = open(out, 'rb').read()
            open(out, 'wb').write(data[:len(data) // 2])
            """, ["truncated"])
    }

    @Test func notAZip() throws {
        try expectRefused("open(out, 'wb').write(b'just some text, not an archive\\n' * 10)", ["not a ZIP archive"])
        try expectRefused("open(out, 'wb').write(b'')", ["empty"])
    }

    @Test func emptyZip() throws {
        try expectRefused("zipfile.ZipFile(out, 'w').close()", ["empty", "no entries"])
    }

    @Test func missingDatabases() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z, agent=False)", ["simplex_v1_agent.db", "not a chat archive"])
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n z.writestr(info('simplex_v1_agent.db'), b'x' * 4096)", ["simplex_v1_chat.db"])
    }

    @Test func wrongPassphraseForStandInDatabases() throws {
        // The archive is sound; its databases are not databases at all: refused at the key test.
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)", ["chat database", "nothing was changed"], verifyToo: false)
    }

    /// Rewrites the archive's end as a ZIP64 end record + locator + classic record marking every
    /// field as "in the ZIP64 record" (APPNOTE 4.3.14-4.3.16); the arguments replace its values.
    static let zip64End = """
        def zip64_end(cd_offset=None, cd_size=None, record_at=None):
            data = bytearray(open(out, 'rb').read())
            e = data.rfind(b'PK\\x05\\x06')
            n, size, off = struct.unpack_from('<HII', data, e + 10)
            r = e
            rec = struct.pack('<IQHHIIQQQQ', 0x06064b50, 44, 45, 45, 0, 0, n, n,
                              size if cd_size is None else cd_size, off if cd_offset is None else cd_offset)
            loc = struct.pack('<IIQI', 0x07064b50, 0, r if record_at is None else record_at, 1)
            end = struct.pack('<IHHHHIIH', 0x06054b50, 0, 0, 0xFFFF, 0xFFFF, 0xFFFFFFFF, 0xFFFFFFFF, 0)
            open(out, 'wb').write(bytes(data[:e]) + rec + loc + end)
        def central_field(name, offset, value, fmt='<I'):
            data = bytearray(open(out, 'rb').read())
            p = data.find(b'PK\\x01\\x02')
            while True:
                nl = struct.unpack_from('<H', data, p + 28)[0]
                if bytes(data[p + 46:p + 46 + nl]) == name.encode(): break
                p = data.find(b'PK\\x01\\x02', p + 4)
            struct.pack_into(fmt, data, p + offset, value)
            open(out, 'wb').write(data)
        """

    /// A ZIP64 end whose values are sound reads like the classic one (the control for the cases below).
    @Test func zip64EndRecordIsRead() throws {
        let folder = try TempFolder("sx-hostile")
        let archive = try ZipFixture.make(folder, "in.zip", Self.zip64End + "\nwith zipfile.ZipFile(out, 'w') as z:\n base(z)\nzip64_end()")
        let report = try ArchiveVerify.run(archive, passphrase: nil, tempRoot: folder.path)
        #expect(report.entries.count == 3)
    }

    /// Crafted 64-bit values that overflow Int64 arithmetic are refused with a sentence, not a trap:
    /// the locator's record offset beyond Int64, a directory offset whose sum with its size overflows,
    /// an entry's ZIP64 compressed size and local header offset far beyond the archive.
    @Test func zip64LocatorOffsetBeyondInt64() throws {
        try expectRefused(Self.zip64End + "\nwith zipfile.ZipFile(out, 'w') as z:\n base(z)\nzip64_end(record_at=0xFFFFFFFFFFFFFF00)",
                          ["ZIP64 end record is out of place"])
    }

    @Test func zip64DirectoryOffsetOverflows() throws {
        try expectRefused(Self.zip64End + "\nwith zipfile.ZipFile(out, 'w') as z:\n base(z)\nzip64_end(cd_offset=0x7FFFFFFFFFFFFFF0)",
                          ["central directory"])
    }

    /// The base archive plus `simplex_v1_files/b.bin` carrying a ZIP64 extra field whose one value is
    /// `value`: it is read for whichever classic field a test then marks as 0xFFFFFFFF.
    static func entryWithZip64Field(_ value: UInt64) -> String {
        zip64End + """

            i = info('simplex_v1_files/b.bin')
            i.extra = struct.pack('<HHQ', 1, 8, \(value))
            with zipfile.ZipFile(out, 'w') as z:
             base(z)
             z.writestr(i, b'data')

            """
    }

    @Test func zip64CompressedSizeBeyondTheArchive() throws {
        // The entry's data follows in a data descriptor (flag 3), so the local header's sizes are 0 and
        // only the central ZIP64 field says how long it is.
        try expectRefused(Self.entryWithZip64Field(0x7FFFFFFFFFFFFFF0) + """
            central_field('simplex_v1_files/b.bin', 20, 0xFFFFFFFF)
            central_field('simplex_v1_files/b.bin', 8, 8, '<H')
            for field in ('csize', 'usize', 'crc'): patch('local', 'simplex_v1_files/b.bin', field, 0)
            patch('local', 'simplex_v1_files/b.bin', 'flags', 8)
            """, ["simplex_v1_files/b.bin"])
    }

    @Test func zip64LocalHeaderOffsetBeyondTheArchive() throws {
        try expectRefused(Self.entryWithZip64Field(0x7FFFFFFFFFFFFFFF) + """
            central_field('simplex_v1_files/b.bin', 42, 0xFFFFFFFF)
            """, ["simplex_v1_files/b.bin"])
    }

    /// A name no file system can hold (a 4,987-byte file name: 5,004 bytes with its folder) is refused
    /// by verify exactly as by import, before anything is written.
    @Test func nameLongerThanAFileSystemHolds() throws {
        try expectRefused("with zipfile.ZipFile(out, 'w') as z:\n base(z)\n z.writestr(info('simplex_v1_files/' + 'a' * 4987), b'x')",
                          ["longer than 255 bytes"])
    }

    /// ZIP64 local headers (sizes in the extra field) are read, compared and accepted.
    @Test func zip64HeadersAreAccepted() throws {
        let folder = try TempFolder("sx-hostile")
        let archive = try ZipFixture.make(folder, "in.zip", """
            with zipfile.ZipFile(out, 'w') as z:
             for name, size in (('simplex_v1_chat.db', 8192), ('simplex_v1_agent.db', 4096), ('simplex_v1_files/a.bin', 70000)):
              with z.open(info(name), 'w', force_zip64=True) as w: w.write(os.urandom(size))
            """)
        let report = try ArchiveVerify.run(archive, passphrase: nil, tempRoot: folder.path)
        #expect(report.ok)
        #expect(report.entries.map(\.size) == [8192, 4096, 70000])
        #expect(report.bytes == 8192 + 4096 + 70000)
    }
}
