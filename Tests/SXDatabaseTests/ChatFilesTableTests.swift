import Foundation
import Testing
import SXCore
import SXCrypto
import SXDatabase
import SXSample
import SXTestSupport

/// The row-by-row reader of the chat DB's `files` table, on a sample with bulk files.
@Suite(.ownThreads) struct ChatFilesTableTests {
    @Test func readsEveryRowWithItsCryptoArgumentsAndMatchesTheFilesOnDisk() throws {
        let dir = try TempFolder()
        let sample = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 10, bulkFiles: 300))
        let db = try DatabaseOpener.open(sample.directory.chatDatabase, passphrase: SampleDataDirectory.defaultPassphrase, mode: .readOnly).0
        var records: [ChatFileRecord] = []
        try ChatFilesTable.forEach(in: db) { records.append($0) }
        let bulkRows = records.filter { $0.storedPath?.hasPrefix("bulk_") == true }
        // 300 bulk files: 3 orphans have no row; 3 missing ones have a row and no file.
        #expect(bulkRows.count == 297)
        #expect(records.map(\.fileId) == records.map(\.fileId).sorted())
        var onDisk: [String: Int64] = [:]
        FolderWalker.walk(sample.directory.filesFolder!) { if $0.kind == .file { onDisk[$0.relativePath] = $0.size } }
        #expect(onDisk.keys.filter { $0.hasPrefix("bulk_") }.count == 297)
        #expect(bulkRows.filter { onDisk[$0.relativePath!] == nil }.map(\.storedPath) == ["bulk_000000.bin", "bulk_000100.bin", "bulk_000200.bin"])
        let encrypted = bulkRows.filter(\.isEncrypted)
        #expect(encrypted.count == 30)
        // Each encrypted row's key and nonce open the file on disk and give the recorded plaintext.
        for record in encrypted.prefix(3) {
            let args = try CryptoFileArgs(key: try #require(record.cryptoKey), nonce: try #require(record.cryptoNonce))
            let bytes = try FileBytes.read(Path.join(sample.directory.filesFolder!, record.relativePath!), limit: 1 << 20)
            let plain = try CryptoFile.decrypt(bytes, args: args)
            #expect(Int64(plain.count) == record.fileSize)
            #expect(Hex.encode(SHA256Digest.of(plain)) == sample.files.first { $0.name == record.relativePath }?.sha256)
        }
    }

    @Test(arguments: [
        ("a/b.jpg", "a/b.jpg"), ("./x.bin", "x.bin"), ("a//b", "a/b"),
        ("../etc/passwd", nil), ("a/../../b", nil), ("/etc/passwd", nil), ("a\\b", nil), ("", nil), (".", nil),
    ] as [(String, String?)])
    func safeRelativePathNeverLeavesTheFolder(stored: String, expected: String?) {
        #expect(ChatFilesTable.safeRelativePath(stored) == expected)
    }
}
