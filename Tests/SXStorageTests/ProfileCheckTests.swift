import Foundation
import Testing
import SXStorage
import SXCore
import SXCrypto
import SXDatabase
import SXSample
import SXTestSupport

/// `ProfileCheck` (`sxkit check`) on the sample profile and on damaged copies of it.
@Suite(.ownThreads) struct ProfileCheckTests {
    /// The fixture with the sample's two referenced-but-missing rows removed: a whole profile.
    static func wholeFixture(walMode: Bool = false) throws -> CareFixture {
        let fixture = try CareFixture(walMode: walMode)
        let names = SampleDataDirectory.missingFiles.map { "'\($0)'" }.joined(separator: ",")
        try fixture.updateChatDatabase("DELETE FROM files WHERE file_path IN (\(names))")
        return fixture
    }

    static func check(_ fixture: CareFixture, passphrase: SecretBytes? = CareFixture.passphrase, deep: Bool = false,
                      readData: Bool = false) throws -> ProfileCheckReport {
        try ProfileCheck(directory: fixture.dir, passphrase: passphrase, deep: deep, readData: readData, jobs: 2).run()
    }

    /// A CryptoFile of the sample, by name.
    static func encryptedName(_ fixture: CareFixture) throws -> String {
        try #require(fixture.sample.files.first { $0.encrypted && $0.referenced }).name
    }

    @Test("the sample is not whole: its two missing files are named, its orphan listed as a warning")
    func sampleIsNotWhole() throws {
        let fixture = try CareFixture()
        let report = try Self.check(fixture)
        #expect(!report.whole)
        #expect(report.files?.missing == SampleDataDirectory.missingFiles.sorted())
        #expect(report.orphans == [SampleDataDirectory.orphanFile])
        #expect(report.problems == ["2 referenced file(s) missing: video_0001.mp4, voice_0001.m4a"], "\(report.problems)")
        #expect(report.warnings.contains { $0.contains(SampleDataDirectory.orphanFile) })
        #expect(report.databases.map(\.status) == [.ok, .ok])
        #expect(report.databases.map(\.checks) == [["quick_check"], ["quick_check"]])
        #expect(report.databases.allSatisfy { $0.format == .sqlcipher4 && $0.cipherVersion?.hasPrefix("4.") == true && $0.journalMode == "delete" })
        #expect(report.files?.encrypted == fixture.referencedEncrypted)
        #expect(report.cryptoFiles == nil, "tags are read only with readData")
    }

    @Test("a whole profile: both databases pass integrity_check and cipher_integrity_check, every tag verifies")
    func wholeProfile() throws {
        let fixture = try Self.wholeFixture()
        let report = try Self.check(fixture, deep: true, readData: true)
        #expect(report.whole, "\(report.problems)")
        #expect(report.databases.map(\.checks) == [["integrity_check", "cipher_integrity_check"], ["integrity_check", "cipher_integrity_check"]])
        #expect(report.cryptoFiles?.verified == fixture.referencedEncrypted && report.cryptoFiles?.failed == [])
        #expect(report.files?.present == report.files?.referenced)
    }

    @Test("a tampered CryptoFile fails its tag, named, only when the data is read; the rest still verify")
    func tamperedCryptoFile() throws {
        let fixture = try Self.wholeFixture()
        let name = try Self.encryptedName(fixture)
        let path = Path.join(fixture.files, name)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try Self.check(fixture).whole, "without readData the tags are not read")
        let report = try Self.check(fixture, readData: true)
        #expect(!report.whole)
        #expect(report.cryptoFiles?.verified == fixture.referencedEncrypted - 1)
        #expect(report.cryptoFiles?.failed.map(\.path) == [name])
        #expect(report.cryptoFiles?.failed.first?.reason.contains("invalid auth tag") == true, "\(report.cryptoFiles!)")
        #expect(report.problems == ["1 CryptoFile(s) failed their tag check: \(name)"])
    }

    @Test("a wrong key in the chat database's row fails the tag; a truncated CryptoFile fails as too short")
    func wrongKeyAndTruncated() throws {
        let fixture = try Self.wholeFixture()
        let encrypted = fixture.sample.files.filter { $0.encrypted && $0.referenced }.map(\.name)
        try #require(encrypted.count >= 2)
        try fixture.updateChatDatabase("UPDATE files SET file_crypto_key = zeroblob(32) WHERE file_path = '\(encrypted[0])'")
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: Path.join(fixture.files, encrypted[1])))
        let report = try Self.check(fixture, readData: true)
        let failed = Dictionary(uniqueKeysWithValues: (report.cryptoFiles?.failed ?? []).map { ($0.path, $0.reason) })
        #expect(failed[encrypted[0]]?.contains("invalid auth tag") == true, "\(failed)")
        #expect(failed[encrypted[1]]?.contains("invalid file size") == true, "\(failed)")
        #expect(!report.whole)
    }

    @Test("rows whose path climbs out with .. or is absolute are reported and never opened, even with a valid CryptoFile there")
    func escapingPaths() throws {
        let fixture = try Self.wholeFixture()
        let name = try Self.encryptedName(fixture)
        // The same CryptoFile, with the key the row holds, just outside the files folder: were the
        // row followed, it would verify.
        let outside = Path.join(Path.parent(fixture.files), name)
        try FileManager.default.copyItem(atPath: Path.join(fixture.files, name), toPath: outside)
        let absolute = fixture.folder.file("absolute.bin")
        try Data("outside".utf8).write(to: URL(fileURLWithPath: absolute))
        try fixture.updateChatDatabase("""
            UPDATE files SET file_path = '../\(name)' WHERE file_path = '\(name)';
            UPDATE files SET file_path = '\(absolute)' WHERE file_path = 'sticker.png';
            """)
        let report = try Self.check(fixture, readData: true)
        #expect(!report.whole)
        #expect(Set(report.files?.escapingPaths ?? []) == ["../\(name)", absolute])
        #expect(report.cryptoFiles?.verified == fixture.referencedEncrypted - 1 && report.cryptoFiles?.failed == [], "not followed, so not verified")
        #expect(report.problems.contains { $0.hasPrefix("2 file row(s) whose path leaves the files folder (never followed)") }, "\(report.problems)")
        #expect(Set(report.orphans) == [name, "sticker.png", SampleDataDirectory.orphanFile])
    }

    /// Overwrites bytes in the middle of the page that holds `table`'s root (a page every check reads).
    @discardableResult
    static func corruptPage(of table: String, in fixture: CareFixture) throws -> Int64 {
        let (db, _) = try DatabaseOpener.open(fixture.dir.chatDatabase, passphrase: CareFixture.passphrase, mode: .readOnly)
        let page = try #require(try db.scalarInt("SELECT rootpage FROM sqlite_master WHERE name = '\(table)'"))
        let size = try #require(try db.scalarInt("PRAGMA cipher_page_size"))
        let handle = try #require(FileHandle(forWritingAtPath: fixture.dir.chatDatabase))
        try handle.seek(toOffset: UInt64((page - 1) * size + size / 2))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 64))
        try handle.close()
        return page
    }

    @Test("a damaged page: quick_check reports it, --deep's cipher_integrity_check names the HMAC failure; not whole")
    func corruptedPage() throws {
        let fixture = try Self.wholeFixture()
        let page = try Self.corruptPage(of: "chat_items", in: fixture)
        let quick = try Self.check(fixture)
        #expect(quick.databases[0].status == .damaged)
        #expect(quick.databases[0].problems.first?.hasPrefix("quick_check: Tree \(page) page \(page): ") == true, "\(quick.databases[0].problems)")
        #expect(quick.databases[1].status == .ok)
        #expect(!quick.whole && quick.problems.first?.hasPrefix("chat database: DAMAGED (") == true, "\(quick.problems)")
        #expect(quick.problems.first?.contains("problems; the first): quick_check: Tree \(page) page \(page)") == true, "\(quick.problems)")
        let deep = try Self.check(fixture, deep: true)
        #expect(deep.databases[0].status == .damaged)
        #expect(deep.databases[0].problems.first == "cipher_integrity_check: HMAC verification failed for page \(page)", "\(deep.databases[0].problems)")
        #expect(deep.databases[0].problems.contains { $0.hasPrefix("integrity_check: ") })
        #expect(!deep.whole)
    }

    @Test("a wrong passphrase is the usual wrong-passphrase error; none for encrypted databases is asked for")
    func wrongPassphrase() throws {
        let fixture = try CareFixture()
        #expect(throws: ProfileCheckError.wrongPassphrase(database: fixture.dir.chatDatabase)) {
            try Self.check(fixture, passphrase: SecretBytes(Array("hunter2".utf8)))
        }
        #expect("\(ProfileCheckError.wrongPassphrase(database: "x"))".contains(PassphraseWording.wrongMarker))
        #expect(throws: ProfileCheckError.passphraseNeeded(database: fixture.dir.chatDatabase)) { try Self.check(fixture, passphrase: nil) }
    }

    @Test("a missing agent database and one that is not a database are reported; the chat database is still checked")
    func missingAndNotADatabase() throws {
        let fixture = try Self.wholeFixture()
        try FileManager.default.removeItem(atPath: fixture.dir.agentDatabase)
        let missing = try Self.check(fixture)
        #expect(missing.databases[1].status == .missing)
        #expect(missing.problems == ["agent database: missing: the file does not exist"], "\(missing.problems)")
        #expect(missing.databases[0].status == .ok && missing.files?.missing == [])
        try Data(repeating: 0x41, count: 8192).write(to: URL(fileURLWithPath: fixture.dir.agentDatabase))
        let text = try Self.check(fixture)
        #expect(text.databases[1].status == .notADatabase)
        #expect(!text.whole && text.problems.first?.hasPrefix("agent database: not a database") == true, "\(text.problems)")
    }

    @Test("a pending interrupted operation makes it not whole; a passphrase-change backup alone is a warning")
    func leftovers() throws {
        let fixture = try Self.wholeFixture()
        try FileManager.default.copyItem(atPath: fixture.dir.agentDatabase, toPath: DataDirectoryNames.backup(of: fixture.dir.agentDatabase))
        let report = try Self.check(fixture)
        #expect(report.whole, "\(report.problems)")
        #expect(report.leftovers.map(\.path) == [DataDirectoryNames.backup(of: fixture.dir.agentDatabase)])
        #expect(report.warnings.contains { $0.hasPrefix("1 leftover(s) of earlier operations") })
        try FileManager.default.copyItem(atPath: fixture.dir.agentDatabase, toPath: DataDirectoryNames.exported(of: fixture.dir.agentDatabase))
        let pending = try Self.check(fixture)
        #expect(pending.interruptions.map(\.operation) == [.passphraseChange])
        #expect(!pending.whole && pending.problems.last?.hasSuffix(": its recovery is pending") == true, "\(pending.problems)")
    }

    @Test("read-only: every byte and mtime of the profile, its WAL included, is unchanged after a deep check that reads the data")
    func readOnlyWithWAL() throws {
        let fixture = try Self.wholeFixture(walMode: true)
        // A writer holds the database open with a change in its WAL, as a running app would.
        let (db, _) = try DatabaseOpener.open(fixture.dir.chatDatabase, passphrase: CareFixture.passphrase, mode: .readWrite)
        try db.execute("UPDATE files SET file_size = file_size + 1 WHERE file_id = (SELECT min(file_id) FROM files)")
        let wal = DataDirectoryNames.wal(of: fixture.dir.chatDatabase)
        try #require((POSIXFile.linkStatus(wal)?.st_size ?? 0) > 0)
        let before = try FolderSnapshot.take(fixture.dir.root)
        let report = try Self.check(fixture, deep: true, readData: true)
        #expect(try FolderSnapshot.take(fixture.dir.root) == before)
        #expect(report.whole, "\(report.problems)")
        #expect(report.databases[0].walBytes == Int64(POSIXFile.linkStatus(wal)!.st_size))
        #expect(report.databases[0].journalMode == "wal")
        withExtendedLifetime(db) {}
    }

    @Test("a WAL-mode database without frames is opened in place and still reported as journal wal")
    func walModeWithoutFrames() throws {
        let fixture = try Self.wholeFixture(walMode: true)
        try #require(POSIXFile.linkStatus(DataDirectoryNames.wal(of: fixture.dir.chatDatabase)) == nil)
        let report = try Self.check(fixture)
        #expect(report.databases.map(\.journalMode) == ["wal", "wal"])
        #expect(report.databases.map(\.walBytes) == [nil, nil])
    }
}
