import Foundation
import Testing
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// `db inspect` on the sample data directory and on hand-made bad files.
@Suite(.ownThreads) struct DatabaseInspectorTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    static func sample(_ dir: TempFolder, walMode: Bool = false) throws -> SampleDataDirectory {
        try SampleCopies.create(at: dir.file("data"), options: .init(photos: 2, documents: 3, chatItems: 300, walMode: walMode))
    }

    @Test func reportsEverythingAboutTheSampleDataDirectory() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let report = DatabaseInspector().inspect(DatabaseSet(dataDirectory: sample.directory), passphrase: Self.passphrase)
        let chat = try #require(report.databases.first { $0.database.role == .chat })
        let agent = try #require(report.databases.first { $0.database.role == .agent })
        #expect(chat.classification == .sqlcipher4)
        #expect(agent.classification == .sqlcipher4)
        let details = try #require(chat.details)
        #expect(details.pageSize == 4096)
        #expect(details.journalMode == "delete", "the core sets no journal mode: a rollback journal")
        #expect(details.autoVacuum == "full")
        #expect(details.textEncoding == "UTF-8")
        #expect(details.cipher?.kdfIterations == 256_000)
        #expect(details.cipher?.hmacAlgorithm == "HMAC_SHA512")
        #expect(details.migrations?.count == 152)
        #expect(details.migrations?.first == "20220101_initial")
        #expect(details.migrations?.last == "20260516_supporter_badges")
        #expect(details.tables.first { $0.name == "chat_items" }?.rows == 300 + sample.files.filter(\.referenced).count + SampleDataDirectory.missingFiles.count)
        #expect(details.indexCount > 0)
        let summary = try #require(chat.chat)
        #expect(summary.users == 2)
        #expect(summary.groups == 3)
        let files = try #require(summary.filesCheck)
        let referenced = sample.files.filter(\.referenced)
        #expect(files.referencedPresent == referenced.count)
        #expect(files.referencedMissing == SampleDataDirectory.missingFiles.count)
        #expect(files.encrypted == sample.files.filter(\.encrypted).count)
        #expect(files.plaintext == referenced.count + SampleDataDirectory.missingFiles.count - sample.files.filter(\.encrypted).count)
        #expect(files.unreferenced == 1)
        #expect(files.unreferencedExamples == [SampleDataDirectory.orphanFile])
        #expect(chat.findings.contains { $0.contains("missing from the files folder") })
        #expect(chat.findings.contains { $0.contains("orphans") })
        #expect(agent.details?.migrations?.count == 44)
        #expect(agent.details?.migrations?.last == "m20260410_receive_attempts")
        #expect(agent.details?.tables.contains { $0.name == "snd_file_chunks" && $0.rows == 3 } == true)
        #expect(agent.chat == nil)
    }

    @Test func inspectChangesNothingOnDiskEvenWithUncheckpointedWAL() throws {
        let dir = try TempFolder()
        // A profile old enough to be in WAL mode (2021 to early 2022).
        let sample = try Self.sample(dir, walMode: true)
        // Leave frames in the WAL the way a crash or a running app does: copy the files while a
        // writer holds them with automatic checkpoints off.
        let live = try DatabaseConnection(path: sample.directory.chatDatabase, mode: .readWrite)
        try live.applyKey(Self.passphrase)
        try live.execute("PRAGMA wal_autocheckpoint = 0; INSERT INTO note_folders (user_id) VALUES (1);")
        let evidence = dir.file("evidence")
        try FileManager.default.copyItem(atPath: sample.directory.root, toPath: evidence)
        withExtendedLifetime(live) {}
        let data = DataDirectory(root: evidence, layout: .desktop)
        #expect(FileManager.default.fileExists(atPath: data.chatDatabase + "-wal"))
        let before = try FolderSnapshot.take(evidence)
        let report = DatabaseInspector(options: .init(deep: true)).inspect(DatabaseSet(dataDirectory: data), passphrase: Self.passphrase)
        let after = try FolderSnapshot.take(evidence)
        #expect(before == after, "changed: \(before.differences(from: after))")
        let chat = try #require(report.databases.first)
        // The WAL's frames were read: the notes folder that exists only there is counted.
        #expect(chat.details?.tables.first { $0.name == "note_folders" }?.rows == 3)
        #expect((chat.wal?.uncheckpointedFrames ?? 0) > 0)
        #expect(chat.findings.contains { $0.hasPrefix("WAL holds \(chat.wal!.uncheckpointedFrames) un-checkpointed frame") })
        #expect(chat.integrity?.ok == true)
        #expect(report.databases[1].integrity?.ok == true)
    }

    @Test func classifiesWithoutAPassphraseAndWithAWrongOne() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let set = DatabaseSet(dataDirectory: sample.directory)
        let unknown = DatabaseInspector().inspect(set, passphrase: nil)
        #expect(unknown.databases.map(\.classification) == [.encryptedUnknownPassphrase, .encryptedUnknownPassphrase])
        #expect(unknown.databases[0].details == nil)
        let wrong = DatabaseInspector().inspect(set, passphrase: SecretBytes(Array("nope".utf8)))
        #expect(wrong.databases.map(\.classification) == [.encryptedWrongPassphrase, .encryptedWrongPassphrase])
        #expect(wrong.databases[0].findings.contains { $0.contains("the passphrase is wrong: it does not open") })
    }

    @Test func badFilesGetTheirOwnClassification() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let chatBytes = try FileBytes.read(sample.directory.chatDatabase, limit: 64 << 20)
        let empty = try dir.write("empty.db", [])
        let truncated = try dir.write("truncated.db", Array(chatBytes.prefix(1000)))
        let jpeg = try dir.write("simplex_v1_chat.db", Array(try FileBytes.read(Path.join(sample.directory.filesFolder!, "IMG_1001.jpg"), limit: 64 << 20)))
        let plain = dir.file("plain.db")
        let db = try DatabaseConnection(path: plain, mode: .readWriteCreate)
        try db.execute("CREATE TABLE t(x); INSERT INTO t VALUES (1);")
        let inspector = DatabaseInspector()
        func classify(_ path: String) -> DatabaseInspection {
            inspector.inspect(DatabaseTarget(role: nil, path: path), passphrase: Self.passphrase)
        }
        #expect(classify(empty).classification == .empty)
        #expect(classify(truncated).classification == .notADatabase)
        #expect(classify(jpeg).classification == .notADatabase)
        #expect(classify(jpeg).findings.contains { $0.contains("not a database") })
        #expect(classify(dir.file("nothing.db")).classification == .missing)
        let plainReport = classify(plain)
        #expect(plainReport.classification == .plaintextSQLite)
        #expect(plainReport.details?.tables.map { "\($0.name)=\($0.rows ?? -1)" } == ["t=1"])
        #expect(plainReport.findings.first == "database is not encrypted: anyone who can read the file can read the chats")
    }

    @Test func onlyOneDatabaseAndStoredDesktopPassphraseAreFindings() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        try FileManager.default.removeItem(atPath: sample.directory.agentDatabase)
        let settings = try dir.write("settings.properties", Array("EncryptedDBPassphrase=Y29ycmVjdCBob3JzZSBiYXR0ZXJ5IHN0YXBsZQ\\=\\=\n".utf8))
        let report = DatabaseInspector(options: .init(desktopSettingsPath: settings))
            .inspect(DatabaseSet(dataDirectory: sample.directory), passphrase: Self.passphrase)
        #expect(report.databases[1].classification == .missing)
        #expect(report.findings.contains { $0.contains("only one of the two databases is present: the agent database is missing") })
        #expect(report.findings.contains { $0.contains("passphrase is stored in the desktop app's settings") })
    }

    @Test func deepCheckFindsATamperedPage() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let path = sample.directory.chatDatabase
        var bytes = try FileBytes.read(path, limit: 64 << 20)
        // Flip a byte in a page near the end (not page 1, so the database still opens).
        bytes[bytes.count - 4096 * 3 + 100] ^= 0x40
        try AtomicFileWriter.write(bytes, to: path)
        let report = DatabaseInspector(options: .init(deep: true)).inspect(DatabaseTarget(role: .chat, path: path), passphrase: Self.passphrase)
        let integrity = try #require(report.integrity)
        #expect(integrity.ok == false)
        #expect(integrity.cipherIntegrityCheck?.isEmpty == false)
        #expect(report.findings.contains { $0.contains("cipher_integrity_check found") })
    }

    @Test func databasesMadeByTheShellAreClassifiedByVersion() throws {
        guard sqlcipherShellInstalled else { return }
        let dir = try TempFolder()
        let v4 = dir.file("v4.db"), v3 = dir.file("v3.db")
        _ = try sqlcipherShell(v4, "PRAGMA key = 'it''s é';\nCREATE TABLE t(x);\nINSERT INTO t VALUES (42);\n")
        _ = try sqlcipherShell(v3, "PRAGMA key = 'old one';\nPRAGMA cipher_compatibility = 3;\nCREATE TABLE t(x);\nINSERT INTO t VALUES (3);\n")
        let r4 = DatabaseInspector().inspect(DatabaseTarget(role: nil, path: v4), passphrase: SecretBytes(Array("it's é".utf8)))
        #expect(r4.classification == .sqlcipher4)
        #expect(r4.details?.tables.map { "\($0.name)=\($0.rows ?? -1)" } == ["t=1"])
        let r3 = DatabaseInspector().inspect(DatabaseTarget(role: nil, path: v3), passphrase: SecretBytes(Array("old one".utf8)))
        #expect(r3.classification == .sqlcipher3)
        #expect(r3.details?.cipher?.kdfIterations == 64_000)
        #expect(r3.details?.pageSize == 1024)
        #expect(r3.findings.contains { $0.contains("SQLCipher 3 settings") })
    }
}
