import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// transfer.json pins the transfer-file format byte for byte: header, plan, every chunk's SHA-256,
/// the file's SHA-512, the first 64 bytes and the tag; and decrypting gives the name, extra and content back.
@Suite(.ownThreads)
struct TransferVectorTests {
    struct Case: Decodable {
        let name: String
        let file_name: String
        let extra: String?
        let key_hex: String
        let nonce_hex: String
        let content_size: Int
        let content_hex: String?
        let content_rule: String?
        let content_sha256: String
        let header_hex: String
        let payload_size: Int64
        let total: Int64
        let pad_len: Int64
        let enc_size: Int64
        let chunk_sizes: [Int64]
        let chunk_sha256: [String]
        let file_sha512: String
        let file_head_hex: String
        let tag_hex: String
    }
    struct Cases: Decodable { let cases: [Case] }

    static let cases: [Case] = {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: VectorFiles.path("transfer.json"))) else { return [] }
        return (try? JSONDecoder().decode(Cases.self, from: data).cases) ?? []
    }()
    static var names: [String] { cases.isEmpty ? ["vectors missing"] : cases.map(\.name) }

    static func content(_ c: Case) -> [UInt8] {
        if let hex = c.content_hex { return Hex.decode(hex) }
        return (0..<c.content_size).map { UInt8($0 % 251) }
    }

    @Test("every transfer vector encrypts, chunks and decrypts exactly", arguments: names)
    func vector(name: String) throws {
        let c = try #require(Self.cases.first { $0.name == name }, "cannot read \(VectorFiles.path("transfer.json"))")
        let temp = try TempFolder()
        let content = Self.content(c)
        #expect(Hex.encode(SHA256Digest.of(content)) == c.content_sha256)
        let input = try temp.write("content", content)
        let header = try TransferFileHeader(name: c.file_name, extra: c.extra)
        #expect(Hex.encode(header.bytes) == c.header_hex)

        let plan = ChunkPlan(contentSize: Int64(content.count), header: header)
        #expect(plan.total == c.total)
        #expect(plan.sizes == c.chunk_sizes)
        #expect(plan.encryptedSize == c.enc_size)
        #expect(plan.encryptedSize - c.payload_size - 24 == c.pad_len)

        let args = try CryptoFileArgs(key: Hex.decode(c.key_hex), nonce: Hex.decode(c.nonce_hex))
        let encrypted = temp.file("encrypted")
        let result = try TransferEncryption.encrypt(file: input, header: header, args: args, to: encrypted)
        #expect(result.plan == plan)
        let bytes = try temp.read("encrypted")
        #expect(Int64(bytes.count) == c.enc_size)
        #expect(Hex.encode(bytes.prefix(64)) == c.file_head_hex)
        #expect(Hex.encode(bytes.suffix(16)) == c.tag_hex)
        #expect(Hex.encode(SHA512Digest.of(bytes)) == c.file_sha512)
        #expect(Hex.encode(result.fileDigest) == c.file_sha512)
        #expect(result.chunkDigests.map(Hex.encode) == c.chunk_sha256)

        // Decrypt from the chunks as separate files, the way a receiver holds them.
        var segments: [String] = []
        for (i, offset) in plan.offsets.enumerated() {
            segments.append(try temp.write("chunk\(i)", Array(bytes[Int(offset)..<Int(offset + plan.sizes[i])])))
        }
        let writer = try AtomicFileWriter(destination: temp.file("out"))
        let decoded = try TransferFileCrypto.decrypt(segments: segments, encryptedSize: c.enc_size, args: args, to: writer)
        try writer.commit()
        #expect(decoded == header)
        #expect(try temp.read("out") == content)
        #expect(segments.allSatisfy { FileManager.default.fileExists(atPath: $0) })

        // As a receiver decrypts: each chunk is deleted once read, and the plaintext is the same.
        let consuming = try AtomicFileWriter(destination: temp.file("out2"))
        #expect(try TransferFileCrypto.decrypt(segments: segments, encryptedSize: c.enc_size, args: args, to: consuming,
                                               consumingSegments: true) == header)
        try consuming.commit()
        #expect(try temp.read("out2") == content)
        #expect(segments.dropLast().allSatisfy { !FileManager.default.fileExists(atPath: $0) })
    }

    /// Encrypts a vector's content and returns the encrypted bytes, for the failure tests.
    static func encrypted(_ temp: TempFolder, name: String = "hello") throws -> (bytes: [UInt8], args: CryptoFileArgs, plan: ChunkPlan) {
        let c = try #require(cases.first { $0.name == name })
        let args = try CryptoFileArgs(key: Hex.decode(c.key_hex), nonce: Hex.decode(c.nonce_hex))
        let input = try temp.write("content-\(name)", content(c))
        let result = try TransferEncryption.encrypt(file: input, header: TransferFileHeader(name: c.file_name, extra: c.extra), args: args,
                                                    to: temp.file("enc-\(name)"))
        return (try temp.read("enc-\(name)"), args, result.plan)
    }

    @Test("a flipped byte fails the tag and leaves no output")
    func tamperedTag() throws {
        let temp = try TempFolder()
        var (bytes, args, plan) = try Self.encrypted(temp)
        bytes[100] ^= 1
        let path = try temp.write("bad", bytes)
        let writer = try AtomicFileWriter(destination: temp.file("out"))
        #expect(throws: TransferFileError.invalidAuthTag(path: path)) {
            try TransferFileCrypto.decrypt(segments: [path], encryptedSize: plan.encryptedSize, args: args, to: writer)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).filter { $0.hasPrefix(".sxkit-tmp") || $0 == "out" }.isEmpty)
    }

    @Test("a truncated file is refused for its size")
    func truncated() throws {
        let temp = try TempFolder()
        let (bytes, args, plan) = try Self.encrypted(temp)
        let path = try temp.write("short", Array(bytes.dropLast(1)))
        let writer = try AtomicFileWriter(destination: temp.file("out"))
        #expect(throws: TransferFileError.wrongEncryptedSize(path: path, expected: plan.encryptedSize, actual: plan.encryptedSize - 1)) {
            try TransferFileCrypto.decrypt(segments: [path], encryptedSize: plan.encryptedSize, args: args, to: writer)
        }
    }

    @Test("padding other than '#' is refused even under a valid tag")
    func badPadding() throws {
        // Build a stream with '$' padding and a valid tag, using the CryptoFile cipher (same math).
        let temp = try TempFolder()
        let args = CryptoFileArgs.random()
        let header = try TransferFileHeader(name: "a")
        var stream = TransferFileCrypto.bigEndian(Int64(header.bytes.count + 1)) + header.bytes + [0x41]
        stream += [UInt8](repeating: 0x24, count: 65536 - 16 - stream.count)
        let path = try temp.write("bad-padding", CryptoFile.encrypt(stream, args: args))
        let writer = try AtomicFileWriter(destination: temp.file("out"))
        #expect(throws: TransferFileError.invalidPadding(path: path)) {
            try TransferFileCrypto.decrypt(segments: [path], encryptedSize: 65536, args: args, to: writer)
        }
        #expect(!FileManager.default.fileExists(atPath: temp.file("out")))
    }

    /// Decrypting authenticates on one thread and runs the keystream on the writer's, buffer after
    /// buffer: a file of several 1 MiB buffers, sealed by libsodium directly from bytes written out
    /// here (8-byte size, name length, name, '0' for no extra, content, '#' padding), split in two
    /// segments mid-buffer, must decrypt to its content; a flipped byte in the third buffer fails the tag.
    @Test("a multi-buffer transfer file sealed by libsodium decrypts across segments")
    func multiBufferIndependent() throws {
        let temp = try TempFolder()
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        let args = try CryptoFileArgs(key: key, nonce: nonce)
        let content = (0..<3_500_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
        let name = Array("big.bin".utf8)
        let header = [UInt8(name.count)] + name + [0x30]
        let payloadSize = UInt64(header.count + content.count)
        var stream = (0..<8).map { UInt8(truncatingIfNeeded: payloadSize >> (56 - 8 * UInt64($0))) } + header + content
        let encryptedSize = 4 * 1_048_576
        stream += [UInt8](repeating: 0x23, count: encryptedSize - 16 - stream.count)
        let sealed = IndependentSecretBox.seal(stream, key: key, nonce: nonce)
        let first = try temp.write("seg-1", Array(sealed[0..<1_500_000])), second = try temp.write("seg-2", Array(sealed[1_500_000...]))
        let writer = try AtomicFileWriter(destination: temp.file("out"))
        let decoded = try TransferFileCrypto.decrypt(segments: [first, second], encryptedSize: Int64(encryptedSize), args: args, to: writer)
        try writer.commit()
        #expect(decoded.name == "big.bin" && decoded.extra == nil)
        #expect(try temp.read("out") == content)

        var tampered = sealed
        tampered[2 * 1_048_576 + 77] ^= 1
        let bad = try temp.write("tampered", tampered)
        let refused = try AtomicFileWriter(destination: temp.file("refused"))
        #expect(throws: TransferFileError.invalidAuthTag(path: bad)) {
            try TransferFileCrypto.decrypt(segments: [bad], encryptedSize: Int64(encryptedSize), args: args, to: refused)
        }
    }

    /// A write that fails (a full disk, a file-size limit) while the read-ahead thread holds filled
    /// buffers: the decryption throws the write's error and removes its temp file. Before the
    /// read-ahead's semaphore was made by `DispatchSemaphore.slots`, freeing it with buffers still out
    /// trapped in libdispatch (SIGILL: "Semaphore object deallocated while in use").
    @Test("a write failure while the read-ahead is ahead is an error, not a crash")
    func writeFailureWithBuffersOut() throws {
        let temp = try TempFolder()
        let args = CryptoFileArgs.random()
        // Sixteen 1 MiB buffers: the reading thread is well ahead when the first write fails.
        let input = try temp.write("big", [UInt8](repeating: 0x5a, count: 16 << 20))
        let result = try TransferEncryption.encrypt(file: input, header: TransferFileHeader(name: "big"), args: args,
                                                    to: temp.file("enc"), durable: false)
        for attempt in 0..<4 {
            let writer = try AtomicFileWriter(destination: temp.file("out-\(attempt)"), mode: 0o600)
            writer.abort()  // its descriptor is closed: the first write fails with EBADF
            #expect(throws: FileSystemError.self) {
                try TransferFileCrypto.decrypt(segments: [temp.file("enc")], encryptedSize: result.plan.encryptedSize, args: args, to: writer)
            }
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: temp.path).filter { $0.hasPrefix(".sxkit-tmp") || $0.hasPrefix("out") }.isEmpty)
    }

    /// The in-order decryptor a receive feeds chunk by chunk: the same libsodium-sealed bytes, handed
    /// over in pieces of odd sizes (the tag split between two of them), decrypt to the content; a
    /// flipped byte fails the tag; a byte past the end is refused.
    @Test("the in-order decryptor takes a libsodium-sealed file in pieces of any size")
    func inOrderDecryptor() throws {
        let temp = try TempFolder()
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        let args = try CryptoFileArgs(key: key, nonce: nonce)
        let content = (0..<2_300_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        let name = Array("piece.bin".utf8)
        let header = [UInt8(name.count)] + name + [0x30]
        let payloadSize = UInt64(header.count + content.count)
        var stream = (0..<8).map { UInt8(truncatingIfNeeded: payloadSize >> (56 - 8 * UInt64($0))) } + header + content
        let encryptedSize = 3 * 1_048_576
        stream += [UInt8](repeating: 0x23, count: encryptedSize - 16 - stream.count)
        let sealed = IndependentSecretBox.seal(stream, key: key, nonce: nonce)
        let cuts = [0, 1, 9, 65_536, 1_048_576 + 3, 2_000_000, encryptedSize - 9, encryptedSize]

        func feed(_ bytes: [UInt8], to out: String) throws -> TransferFileHeader {
            let writer = try AtomicFileWriter(destination: temp.file(out))
            do {
                let decryptor = try TransferFileDecryptor(encryptedSize: Int64(encryptedSize), args: args, output: writer, name: out)
                for (from, to) in zip(cuts, cuts.dropFirst()) { try bytes[from..<to].withUnsafeBytes { try decryptor.consume($0) } }
                let decoded = try decryptor.finish()
                try writer.commit()
                return decoded
            } catch {
                writer.abort()
                throw error
            }
        }
        #expect(try feed(sealed, to: "out").name == "piece.bin")
        #expect(try temp.read("out") == content)

        var tampered = sealed
        tampered[1_500_000] ^= 1
        #expect(throws: TransferFileError.invalidAuthTag(path: "bad")) { try feed(tampered, to: "bad") }
        #expect(!FileManager.default.fileExists(atPath: temp.file("bad")))

        let writer = try AtomicFileWriter(destination: temp.file("long"))
        defer { writer.abort() }
        let decryptor = try TransferFileDecryptor(encryptedSize: Int64(encryptedSize), args: args, output: writer, name: "long")
        try sealed.withUnsafeBytes { try decryptor.consume($0) }
        #expect(throws: TransferFileError.wrongEncryptedSize(path: "long", expected: Int64(encryptedSize), actual: Int64(encryptedSize) + 1)) {
            try [UInt8(0)].withUnsafeBytes { try decryptor.consume($0) }
        }
    }

    @Test("a name longer than 255 bytes is refused")
    func longName() {
        #expect(throws: TransferFileError.headerFieldTooLong(field: "file name", bytes: 256)) {
            try TransferFileHeader(name: String(repeating: "x", count: 256))
        }
    }
}
