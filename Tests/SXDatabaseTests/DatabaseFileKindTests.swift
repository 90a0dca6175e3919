import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

@Suite("DatabaseFileKind", .ownThreads)
struct DatabaseFileKindTests {
    @Test func missingAndEmpty() throws {
        let tmp = try TempFolder()
        #expect(try DatabaseFileKind.classify(path: tmp.file("absent.db")) == .missing)
        #expect(try DatabaseFileKind.classify(path: tmp.file("absent/dir/x.db")) == .missing)
        #expect(try DatabaseFileKind.classify(path: tmp.write("empty.db", [])) == .empty)
    }

    @Test func plaintextAndEncryptedDatabases() throws {
        let tmp = try TempFolder()
        let plain = tmp.file("plain.db")
        try makeDatabase(plain, passphrase: "")
        #expect(try DatabaseFileKind.classify(path: plain) == .plaintextSQLite)
        let encrypted = tmp.file("enc.db")
        try makeDatabase(encrypted, passphrase: "k")
        #expect(try DatabaseFileKind.classify(path: encrypted) == .encryptedOrNotDatabase(looksRandom: true))
        #expect(DatabaseFileKind.entropy(try tmp.read("enc.db").prefix(4096)) > 7.9)
        // A SQLite header alone is enough; classification never opens SQLite.
        let header = try tmp.write("header.db", DatabaseFileKind.sqliteHeader + [1, 2, 3])
        #expect(try DatabaseFileKind.classify(path: header) == .plaintextSQLite)
    }

    @Test func jpegAndTextNamedDbDoNotLookRandom() throws {
        let tmp = try TempFolder()
        let jpeg = try tmp.write("photo.db", jpegLike(count: 8192))
        #expect(try DatabaseFileKind.classify(path: jpeg) == .notADatabase(reason: "it is a JPEG image"))
        let text = try tmp.write("notes.db", Array(String(repeating: "Lorem ipsum dolor sit amet, 1234567890.\n", count: 150).utf8))
        #expect(try DatabaseFileKind.classify(path: text) == .encryptedOrNotDatabase(looksRandom: false))
        // Random bytes, but too few to judge.
        var rng = SplitMix64(seed: 1)
        let short = try tmp.write("short.db", (0..<512).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        #expect(try DatabaseFileKind.classify(path: short) == .encryptedOrNotDatabase(looksRandom: false))
        let random = try tmp.write("random.db", (0..<8192).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        #expect(try DatabaseFileKind.classify(path: random) == .encryptedOrNotDatabase(looksRandom: true))
        // Random bytes of a size no database can have: truncated.
        let cut = try tmp.write("cut.db", (0..<5000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        guard case .notADatabase(let reason) = try DatabaseFileKind.classify(path: cut) else {
            Issue.record("a 5000-byte random file was not called truncated")
            return
        }
        #expect(reason.contains("5000 bytes") && reason.contains("truncated"))
    }

    @Test func unreadableFileThrowsFileSystemError() throws {
        let tmp = try TempFolder()
        #expect(throws: FileSystemError.self) { try DatabaseFileKind.classify(path: tmp.path) }
    }

    /// JPEG structure: SOI/APP0/DQT/DHT headers, then entropy-coded data that is dense but far from
    /// uniform (Huffman codes skew the byte distribution; 0xFF is always followed by a stuffed 0x00).
    private func jpegLike(count: Int) -> [UInt8] {
        var bytes: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
        bytes += [0xFF, 0xDB, 0x00, 0x43, 0x00] + (0..<64).map { UInt8(2 + $0 / 4) }
        bytes += [0xFF, 0xC4, 0x00, 0x1F, 0x00, 0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0] + Array(0...11)
        bytes += [0xFF, 0xDA, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3F, 0x00]
        var rng = SplitMix64(seed: 42)
        while bytes.count < count {
            let r = rng.next()
            // Skewed: small values and a few frequent patterns dominate.
            let b = UInt8(truncatingIfNeeded: (r & 0xFF) & ((r >> 8) & 0xFF | 0x3F))
            bytes.append(b)
            if b == 0xFF { bytes.append(0) }
        }
        return bytes
    }
}
