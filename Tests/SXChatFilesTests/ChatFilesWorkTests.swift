import Foundation
import Synchronization
import Testing
import SXChatFiles
import SXCore
import SXCrypto
import SXDatabase
import SXSample
import SXTestSupport

/// The library seams the CLI tests cannot reach: a file that changes while it is being encrypted.
@Suite struct ChatFilesWorkTests {
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
        let sample = try SampleDataDirectory.create(at: temp.file("data"), options: .init(photos: 2, documents: 3, chatItems: 20))
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
