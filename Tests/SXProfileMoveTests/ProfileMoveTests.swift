import Foundation
import SXArchive
import SXCore
import SXCrypto
import SXDatabase
@testable import SXProfileMove
import SXSample
import SXTestSupport
import SXTransfer
import Testing

/// `DeviceMigrationSender` and `DeviceMigrationReceiver` in the library, through the folder relay: a
/// sample profile leaves one data directory and arrives whole in another; a target that already holds
/// a profile is refused before anything is downloaded or changed.
@Suite(.ownThreads) struct ProfileMoveTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    struct Setup {
        let temp: TempFolder
        let source: SampleDataDirectory
        let relay: FolderRelay
        var descriptions: String { temp.file("desc") }
        var sendTemp: String { temp.file("send-tmp") }
        var receiveTemp: String { temp.file("receive-tmp") }
        var target: DataDirectory { DataDirectory(root: temp.file("target"), layout: .desktop) }

        init() throws {
            temp = try TempFolder("sxkit-profile-move")
            for folder in ["relay", "desc", "send-tmp", "receive-tmp"] {
                try FileManager.default.createDirectory(atPath: temp.file(folder), withIntermediateDirectories: true)
            }
            source = try SampleCopies.create(at: temp.file("source"), options: .init(photos: 1, documents: 2, chatItems: 40))
            relay = FolderRelay(root: temp.file("relay"))
        }

        func send() async throws -> DeviceMigrationSender.Result {
            let sender = DeviceMigrationSender(dataDirectory: source.directory, passphrase: ProfileMoveTests.passphrase, relays: [relay],
                                               options: .init(descriptionFolder: descriptions, tempRoot: sendTemp))
            return try await sender.send()
        }

        func receiver(replaceExisting: Bool = false) -> DeviceMigrationReceiver {
            let relay = self.relay
            return DeviceMigrationReceiver(dataDirectory: target, passphrase: ProfileMoveTests.passphrase,
                                           options: .init(tempRoot: receiveTemp, replaceExisting: replaceExisting),
                                           relays: { _ in relay })
        }
    }

    /// Every table's row count, read with the passphrase (a database that does not open throws).
    static func rowCounts(_ database: String) throws -> [String: Int64] {
        let (connection, _) = try DatabaseOpener.open(database, passphrase: passphrase, mode: .immutable)
        var counts: [String: Int64] = [:]
        for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard case .text(let table)? = row.first else { continue }
            counts[table] = try connection.scalarInt("SELECT count(*) FROM \"\(table)\"")
        }
        return counts
    }

    /// SHA-256 of every regular file under `folder`, by path relative to it.
    static func hashes(_ folder: String) throws -> [String: String] {
        var result: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return result }
        while let relative = walker.nextObject() as? String {
            let path = Path.join(folder, relative)
            guard let st = POSIXFile.linkStatus(path), st.st_mode & S_IFMT == S_IFREG else { continue }
            result[relative] = Hex.encode(SHA256Digest.of(try FileBytes.read(path, limit: 1 << 30)))
        }
        return result
    }

    @Test func theSampleProfileArrivesWithTheSameRowsAndFiles() async throws {
        let s = try Setup()
        let sent = try await s.send()
        #expect(sent.export != nil, "a first send exports")
        #expect(sent.transfer.recipientDescriptions.count == 1)
        #expect(sent.archiveBytes > 0 && sent.transfer.chunksUploaded == sent.transfer.chunks)
        // The archive (the whole profile in the clear) does not outlive the send.
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.sendTemp).isEmpty)

        let recipient = sent.transfer.recipientDescriptions[0]
        let received = try await s.receiver().receive(try FileDescription.load(recipient), path: recipient)
        #expect(received.chunksDownloaded == sent.transfer.chunks)
        #expect(received.archiveBytes == sent.archiveBytes)
        #expect(received.importReport.archiveErrors.isEmpty, "\(received.importReport.archiveErrors)")
        #expect(received.importReport.backups.isEmpty, "an empty target has nothing to keep as .bak")

        // Both databases open with the passphrase and hold the same rows, chat items included.
        let target = s.target, source = s.source.directory
        let chat = try Self.rowCounts(target.chatDatabase)
        #expect(chat == (try Self.rowCounts(source.chatDatabase)))
        #expect((chat["chat_items"] ?? 0) >= 40)
        #expect(try Self.rowCounts(target.agentDatabase) == (try Self.rowCounts(source.agentDatabase)))
        // Every file and wallpaper arrived byte for byte (CryptoFiles stay encrypted, with the same bytes).
        let files = try Self.hashes(target.filesFolder!)
        #expect(files == (try Self.hashes(source.filesFolder!)))
        #expect(Set(files.keys) == Set(s.source.files.map(\.name)))
        #expect(try Self.hashes(target.wallpapersFolder!) == (try Self.hashes(source.wallpapersFolder!)))
        // A plaintext sample file arrived with the bytes the generator recorded.
        let plain = try #require(s.source.files.first { !$0.encrypted })
        let arrived = try FileBytes.read(Path.join(target.filesFolder!, plain.name), limit: 1 << 30)
        #expect(Hex.encode(SHA256Digest.of(arrived)) == plain.sha256)
        // The downloaded archive and chunks are gone; what stays is the record of the finished import
        // (private), by which a rerun of the same migration reports it done.
        let left = try FileManager.default.contentsOfDirectory(atPath: s.receiveTemp).filter { $0.hasPrefix("sxkit-") }
        #expect(left.count == 1 && left[0].hasPrefix("sxkit-migrate-receive-") && left[0].hasSuffix(ImportDone.suffix), "\(left)")
        #expect(POSIXFile.linkStatus(Path.join(s.receiveTemp, left[0])).map { $0.st_mode & 0o777 } == 0o600)
    }

    @Test func aTargetHoldingAProfileIsRefusedAndLeftAsItWas() async throws {
        let s = try Setup()
        let sent = try await s.send()
        _ = try SampleCopies.create(at: s.target.root, options: .init(photos: 0, documents: 1, seed: 9, chatItems: 5))
        let before = try FolderSnapshot.take(s.target.root)
        let relayBefore = try FolderSnapshot.take(s.relay.root)
        let recipient = sent.transfer.recipientDescriptions[0]
        await #expect(throws: ProfileMoveError.profileExists(root: s.target.root, database: s.target.chatDatabase)) {
            _ = try await s.receiver().receive(try FileDescription.load(recipient), path: recipient)
        }
        let after = try FolderSnapshot.take(s.target.root)
        #expect(after == before, "\(after.differences(from: before))")
        #expect(try FolderSnapshot.take(s.relay.root) == relayBefore)
        // Nothing was downloaded: the receive's temp folder is still empty.
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.receiveTemp).isEmpty)
        // The old profile still opens with its own rows (seed 9, 5 chat items beyond the files').
        #expect(try Self.rowCounts(s.target.chatDatabase) != (try Self.rowCounts(s.source.directory.chatDatabase)))
    }

    @Test func aLoneAgentDatabaseIsAProfileToo() async throws {
        let s = try Setup()
        let sent = try await s.send()
        try FileManager.default.createDirectory(atPath: s.target.root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: s.source.directory.agentDatabase, toPath: s.target.agentDatabase)
        let before = try FolderSnapshot.take(s.target.root)
        let recipient = sent.transfer.recipientDescriptions[0]
        await #expect(throws: ProfileMoveError.profileExists(root: s.target.root, database: s.target.agentDatabase)) {
            _ = try await s.receiver().receive(try FileDescription.load(recipient), path: recipient)
        }
        #expect(try FolderSnapshot.take(s.target.root) == before)
    }

    @Test func replacingKeepsTheOldDatabasesAsBackups() async throws {
        let s = try Setup()
        let sent = try await s.send()
        _ = try SampleCopies.create(at: s.target.root, options: .init(photos: 0, documents: 1, seed: 9, chatItems: 5))
        let oldChat = try Self.rowCounts(s.target.chatDatabase)
        let recipient = sent.transfer.recipientDescriptions[0]
        let received = try await s.receiver(replaceExisting: true).receive(try FileDescription.load(recipient), path: recipient)
        #expect(received.importReport.backups.sorted() == s.target.databases.map(DataDirectoryNames.backup(of:)).sorted())
        #expect(try Self.rowCounts(s.target.chatDatabase) == (try Self.rowCounts(s.source.directory.chatDatabase)))
        #expect(try Self.rowCounts(DataDirectoryNames.backup(of: s.target.chatDatabase)) == oldChat)
    }

    @Test func theErrorNamesTheProfileAndAsksToReplaceWithoutAFlag() {
        let error = ProfileMoveError.profileExists(root: "/home/a/data", database: "/home/a/data/simplex_v1_chat.db")
        #expect(error.description == "'/home/a/data' already holds a profile ('simplex_v1_chat.db'); nothing was downloaded")
        #expect(error.remedy == .replaceProfile)
        #expect(!error.description.contains("--"))
    }

    /// The mark a receive's import leaves is a JSON object; a name with a newline (a sender chooses
    /// it) reads back as written, and anything else (a mark of an older sxkit, a torn or foreign
    /// file) is not taken for one, so a rerun does not claim an import it cannot see.
    @Test func theImportMarkReadsBackAsWrittenAndNothingElseReadsAsOne() throws {
        let temp = try TempFolder("sxkit-import-mark")
        let path = temp.file("sxkit-migrate-receive-00.import-began")
        let mark = ImportBegan(profileExisted: true, backupsExisted: false, archiveBytes: 1_234_567, archiveName: "a\nb/c.zip")
        try mark.write(path)
        #expect(try FileBytes.read(path, limit: 4096)
                == Array(#"{"archiveBytes":1234567,"archiveName":"a\nb/c.zip","backupsExisted":false,"profileExisted":true}"#.utf8) + [0x0A])
        #expect(POSIXFile.linkStatus(path).map { $0.st_mode & 0o777 } == 0o600)
        #expect(ImportBegan.read(path) == mark)
        for bad in ["profile existed\n12\na.zip\n", "{}", #"{"archiveBytes":-1,"archiveName":"a.zip","backupsExisted":false,"profileExisted":true}"#,
                    #"{"archiveBytes":1,"archiveName":"","backupsExisted":false,"profileExisted":true}"#, #"{"archiveBytes":1,"#] {
            try AtomicFileWriter.write(Array(bad.utf8), to: path, mode: 0o600)
            #expect(ImportBegan.read(path) == nil, "\(bad.debugDescription)")
        }
        unlink(path)
        #expect(ImportBegan.read(path) == nil)
    }

    /// The record of a finished import reads back as written (0600), and stops matching the data
    /// directory once anything touches a database: a write (new times), or the companion files
    /// SQLite leaves beside a database it opens. One without databases is not taken for one.
    @Test func theFinishedImportRecordMatchesOnlyTheDatabasesAsTheImportLeftThem() throws {
        let temp = try TempFolder("sxkit-import-done")
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 0, documents: 1, chatItems: 5))
        let data = sample.directory
        let path = temp.file("sxkit-migrate-receive-00.imported")
        let done = ImportDone(archiveName: "a\nb.zip", archiveBytes: 42, archiveErrors: [.fileError(file: "f.jpg", fileError: "no space")], data: data)
        #expect(done.files.map(\.name).sorted() == ["simplex_v1_agent.db", "simplex_v1_chat.db"])
        try done.write(path)
        #expect(POSIXFile.linkStatus(path).map { $0.st_mode & 0o777 } == 0o600)
        #expect(ImportDone.read(path) == done)
        #expect(done.matches(data))

        // A companion file appears (the app opened the database): no longer the import's.
        let shm = data.chatDatabase + "-shm"
        try AtomicFileWriter.write([0], to: shm, mode: 0o600)
        #expect(!done.matches(data))
        unlink(shm)
        #expect(done.matches(data))
        // The database written (its modification time moves on).
        var times = [timespec(tv_sec: 1_700_000_000, tv_nsec: 0), timespec(tv_sec: 1_700_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, data.agentDatabase, &times, 0) == 0)
        #expect(!done.matches(data))

        for bad in [#"{"archiveBytes":1,"archiveErrors":[],"archiveName":"a.zip","files":[]}"#, #"{"archiveBytes":1,"archiveName":"a.zip"}"#, "{}"] {
            try AtomicFileWriter.write(Array(bad.utf8), to: path, mode: 0o600)
            #expect(ImportDone.read(path) == nil, "\(bad)")
        }
    }

    /// An import stopped once the archive is in says where the archive waits: as the one a rerun
    /// imports when what stopped it can change, as one to delete when its content is refused, and
    /// not at all when the import's recovery comes first.
    @Test func aStoppedImportSaysWhereTheArchiveWaits() throws {
        let archive = "/d/tmp/sxkit-migrate-receive-1/a.zip"
        let wrong = ArchiveFailure.archivedDatabaseUnusable(role: .chat, entry: "simplex_v1_chat.db", outcome: .wrongPassphrase, cause: "c")
        #expect(DeviceMigrationReceiver.sayingWhereTheArchiveIs(wrong, archive: archive, root: "/d") as? ProfileMoveError
                == .importStoppedArchiveKept(reason: wrong.description, remedy: wrong.remedy, archive: archive, root: "/d"))
        let damaged = ArchiveFailure.archivedDatabaseUnusable(role: .chat, entry: "simplex_v1_chat.db", outcome: .notADatabase, cause: "c")
        let notAZip = ArchiveFailure.notAZip(path: archive, reason: .noZipSignature)
        for refused in [damaged, notAZip] {
            let said = DeviceMigrationReceiver.sayingWhereTheArchiveIs(refused, archive: archive, root: "/d")
            #expect(said as? ProfileMoveError == .archiveRefusedArchiveKept(reason: refused.description, archive: archive))
            #expect("\(said)".hasSuffix("cannot be imported as it is: delete it once you no longer need it"))
        }
        let blocked = ArchiveFailure.importBlocked(existing: [], appMayHaveRun: false)
        #expect(DeviceMigrationReceiver.sayingWhereTheArchiveIs(blocked, archive: archive, root: "/d") as? ArchiveFailure == blocked)
    }
}

/// The network settings a migration link's `data=` carries, in the shapes the apps write them
/// (simplex-chat Kotlin `MigrateFromDevice.kt` and Swift `APITypes.swift`, `MigrationFileLinkData`).
@Suite(.ownThreads)
struct MigrationLinkDataTests {
    @Test func theAppsSettingsAreReadAsTheyReadThem() {
        let kotlin = MigrationLink.networkConfig(inData: #"{"networkConfig":{"socksProxy":"localhost:9050","hostMode":"onion","requiredHostMode":true}}"#)
        #expect(kotlin?.asksForTor == true && kotlin?.proxyAddress == "localhost:9050" && kotlin?.requiredHostMode == true)
        let publicHosts = MigrationLink.networkConfig(inData: MigrationLink.defaultData)
        #expect(publicHosts?.asksForTor == false && publicHosts?.proxyAddress == nil)
        // Onion hosts without a proxy named: Tor all the same (the apps' hasOnionConfigured).
        #expect(MigrationLink.networkConfig(inData: #"{"networkConfig":{"hostMode":"onion","requiredHostMode":false}}"#)?.asksForTor == true)
        // Newer iOS apps: `networkProxy`, its credentials never repeated; alone it does not ask for
        // Tor, as the apps' test does not look at it.
        let ios = MigrationLink.networkConfig(inData: #"{"networkConfig":{"networkProxy":{"host":"127.0.0.1","port":9150,"auth":"username","username":"u","password":"p"},"hostMode":"onionViaSocks","requiredHostMode":false}}"#)
        #expect(ios?.asksForTor == false && ios?.proxyAddress == "127.0.0.1:9150")
        #expect(MigrationLink.networkConfig(inData: #"{"networkConfig":{"socksProxy":"user:secret@10.0.0.1:9050"}}"#)?.proxyAddress == "10.0.0.1:9050")
        #expect(MigrationLink.networkConfig(inData: "not json") == nil && MigrationLink.networkConfig(inData: "{}") == nil)
    }

    @Test func aSendThroughAProxySaysSo() {
        #expect(MigrationLink.data(socksProxy: nil) == #"{"networkConfig":{"hostMode":"public","requiredHostMode":false}}"#)
        #expect(MigrationLink.data(socksProxy: "127.0.0.1:9050") == #"{"networkConfig":{"socksProxy":"127.0.0.1:9050","hostMode":"onion","requiredHostMode":false}}"#)
    }
}
