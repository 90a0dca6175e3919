import Foundation
import Synchronization
import Testing
import SXFileEncryption
import SXCore
import SXCrypto
import SXDatabase
import SXSample
import SXTestSupport

/// The library seams the CLI tests cannot reach: a file that changes while it is being encrypted.
@Suite(.ownThreads) struct ChatFilesWorkTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    /// Keys per file_id as the chat DB holds them.
    static func keys(_ sample: SampleDataDirectory) throws -> [Int64: ChatFileRecord] {
        let (db, _) = try DatabaseOpener.open(sample.directory.chatDatabase, passphrase: passphrase, mode: .readOnly)
        var rows: [Int64: ChatFileRecord] = [:]
        try ChatFilesTable.forEach(in: db) { rows[$0.fileId] = $0 }
        return rows
    }

    @Test func aFileChangedWhileBeingEncryptedIsLeftAloneWithoutAKey() throws {
        let temp = try TempFolder()
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 2, documents: 3, chatItems: 20))
        let victim = try #require(sample.files.first { !$0.encrypted && $0.referenced }).name
        let victimPath = Path.join(sample.directory.filesFolder!, victim)
        let modified = Mutex(false)
        var work = ChatFilesWork(directory: sample.directory, jobs: 2)
        work.afterTransform = { path in
            guard path == victimPath, !modified.withLock({ $0 }) else { return }
            modified.withLock { $0 = true }
            // Another program appends to the file between the read and the commit.
            let handle = FileHandle(forWritingAtPath: path)!
            handle.seekToEndOfFile()
            handle.write(Data("late addition\n".utf8))
            handle.closeFile()
        }
        let report = try work.encrypt(passphrase: Self.passphrase)
        let outcome = try #require(report.outcomes.first { $0.path == victim })
        #expect(outcome.kind == .changed, "\(outcome)")
        #expect(report.failures == 1)
        #expect(report.count(.done) > 0)
        // The file holds the original bytes plus the addition, in plaintext, and no row claims a key for it.
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: victimPath)))
        #expect(String(decoding: bytes.suffix(14), as: UTF8.self) == "late addition\n")
        let rows = try Self.keys(sample)
        #expect(rows.values.filter { $0.storedPath == victim }.allSatisfy { !$0.isEncrypted })
        // Every other referenced file now verifies with its DB key.
        for row in rows.values where row.isEncrypted {
            let args = try CryptoFileArgs(key: row.cryptoKey!, nonce: row.cryptoNonce!)
            #expect(throws: Never.self) { try CryptoFile.verify(file: Path.join(sample.directory.filesFolder!, row.storedPath!), args: args) }
        }
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: sample.directory.filesFolder!).filter { $0.hasPrefix(".sxkit-tmp-") }
        #expect(leftovers.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: sample.directory.chatDatabase + ".files-journal"))
        // A rerun encrypts it (it no longer changes).
        let again = try ChatFilesWork(directory: sample.directory, jobs: 2).encrypt(passphrase: Self.passphrase)
        #expect(again.count(.done) == 1 && again.failures == 0)
    }
}

/// The files folder's journal, as builds before the shared journal type wrote it, is still settled.
@Suite(.ownThreads) struct ChatFilesJournalTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    static func base64url(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    /// A run killed after renaming one encrypted file over its plaintext and before its key reached
    /// the DB: the journal line (written here by hand, in the format of earlier builds: no
    /// previousKey) gives the DB that key before anything else is done.
    @Test func aJournalLineWrittenByHandInTheEarlierFormatIsSettled() throws {
        let temp = try TempFolder()
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 1, documents: 2, chatItems: 10))
        let victim = try #require(sample.files.first { !$0.encrypted && $0.referenced }).name
        let row = try #require(try ChatFilesWorkTests.keys(sample).values.first { $0.storedPath == victim })
        let file = Path.join(sample.directory.filesFolder!, victim)
        let plain = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        let key = (0..<32).map { UInt8($0 &* 7 &+ 1) }, nonce = (0..<24).map { UInt8($0 &* 5 &+ 2) }
        let args = try CryptoFileArgs(key: key, nonce: nonce)
        try Data(CryptoFile.encrypt(plain, args: args)).write(to: URL(fileURLWithPath: file))
        let line = #"{"op":"encrypt","fileIds":[\#(row.fileId)],"path":"\#(victim)","fileKey":"\#(Self.base64url(key))","fileNonce":"\#(Self.base64url(nonce))","size":\#(plain.count)}"#
        let journal = sample.directory.chatDatabase + ".files-journal"
        #expect(FileManager.default.createFile(atPath: journal, contents: Data((line + "\n").utf8)))

        let report = try ChatFilesWork(directory: sample.directory, jobs: 1).encrypt(passphrase: Self.passphrase)
        #expect(report.recovered == 1)
        #expect(report.recoveryNotes.isEmpty, "\(report.recoveryNotes)")
        #expect(!FileManager.default.fileExists(atPath: journal))
        let settled = try #require(try ChatFilesWorkTests.keys(sample)[row.fileId])
        #expect(settled.cryptoKey == key && settled.cryptoNonce == nonce)
        // Not encrypted a second time: the journalled key still opens it to the original bytes.
        #expect(try CryptoFile.decrypt([UInt8](try Data(contentsOf: URL(fileURLWithPath: file))), args: args) == plain)
    }
}

/// The files table is read page by page and outcomes are streamed: a path named by several rows
/// (on different pages, spelled differently) is still one file with one key.
@Suite(.ownThreads) struct ChatFilesPagingTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    @Test func rowsSharingAFileAcrossPagesGetOneKeyAndOutcomesStream() throws {
        let temp = try TempFolder()
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 3, documents: 4, chatItems: 20))
        let shared = try #require(sample.files.first { !$0.encrypted && $0.referenced }).name
        do {
            let (db, _) = try DatabaseOpener.open(sample.directory.chatDatabase, passphrase: Self.passphrase, mode: .readWrite)
            // Later rows (far beyond the first pages) naming the same file: same spelling, and "./" + spelling.
            try db.execute("""
                INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, user_id, updated_at)
                  SELECT contact_id, 'copy', file_path, file_size, chunk_size, user_id, updated_at FROM files WHERE file_path = '\(shared)';
                INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, user_id, updated_at)
                  SELECT contact_id, 'dot copy', './' || file_path, file_size, chunk_size, user_id, updated_at FROM files WHERE file_path = '\(shared)' LIMIT 1;
                """)
        }
        let streamed = Mutex<[ChatFileOutcome]>([])
        var work = ChatFilesWork(directory: sample.directory, jobs: 2)
        work.pageRows = 2
        work.groupFiles = 2
        work.onOutcome = { o in streamed.withLock { $0.append(o) } }
        let report = try work.encrypt(passphrase: Self.passphrase)
        let outcomes = streamed.withLock { $0 }
        #expect(report.outcomes.isEmpty, "streamed outcomes are not kept")
        #expect(outcomes.filter { $0.path == shared }.count == 1)
        #expect(outcomes.first { $0.path == shared }?.fileIds.count == 3)
        #expect(report.count(.done) == outcomes.filter { $0.kind == .done }.count && report.count(.done) > 2)
        #expect(report.bytesDone == outcomes.filter { $0.kind == .done }.reduce(0) { $0 + $1.bytes })
        #expect(report.failures == 0)
        let (db, _) = try DatabaseOpener.open(sample.directory.chatDatabase, passphrase: Self.passphrase, mode: .readOnly)
        var rows: [ChatFileRecord] = []
        try ChatFilesTable.forEach(in: db) { if $0.relativePath == shared { rows.append($0) } }
        #expect(rows.count == 3)
        #expect(rows.allSatisfy(\.isEncrypted) && Set(rows.map { $0.cryptoKey! }).count == 1 && Set(rows.map { $0.cryptoNonce! }).count == 1)
        let args = try CryptoFileArgs(key: rows[0].cryptoKey!, nonce: rows[0].cryptoNonce!)
        _ = try CryptoFile.verify(file: Path.join(sample.directory.filesFolder!, shared), args: args)
        // Every plaintext file got its key, page after page.
        var plain = 0
        try ChatFilesTable.forEach(in: db) { row in
            if !row.isEncrypted, let p = row.relativePath, FileManager.default.fileExists(atPath: Path.join(sample.directory.filesFolder!, p)) { plain += 1 }
        }
        #expect(plain == 0)
    }
}
