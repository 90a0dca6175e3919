import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXCrypto

/// The vectors (Tests/Fixtures/vectors/cryptofile.json, computed with SimpleX's key schedule independently of
/// sxkit) pin the CryptoFile format byte for byte.
@Suite(.ownThreads)
struct CryptoFileVectorTests {
    struct Case: Decodable {
        let name: String
        let key_hex: String
        let nonce_hex: String
        let args_json: String
        let plaintext_size: Int
        let plaintext_hex: String?
        let plaintext_rule: String?
        let plaintext_sha256: String?
        let file_size: Int
        let file_hex: String?
        let file_sha256: String
        let tag_hex: String
    }
    struct Failure: Decodable {
        let name: String
        let key_hex: String
        let nonce_hex: String
        let file_hex: String
        let error: String
    }
    struct Vectors: Decodable {
        let cases: [Case]
        let decrypt_failures: [Failure]
    }

    /// Nil when the vectors cannot be read; every test then fails naming the path, rather than
    /// the whole test process crashing.
    static let vectors: Vectors? = {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: VectorFiles.path("cryptofile.json"))) else { return nil }
        return try? JSONDecoder().decode(Vectors.self, from: data)
    }()

    static var caseNames: [String] { vectors?.cases.map(\.name) ?? ["vectors missing"] }

    static func loaded() throws -> Vectors {
        try #require(vectors, "cannot read \(VectorFiles.path("cryptofile.json"))")
    }

    static func plaintext(_ c: Case) -> [UInt8] {
        if let hex = c.plaintext_hex { return Hex.decode(hex) }
        #expect(c.plaintext_rule == "mod251")
        return (0..<c.plaintext_size).map { UInt8($0 % 251) }
    }

    @Test("every encryption vector is reproduced in memory", arguments: caseNames)
    func encryptInMemory(name: String) throws {
        let c = try #require(try Self.loaded().cases.first { $0.name == name })
        let args = try CryptoFileArgs(key: Hex.decode(c.key_hex), nonce: Hex.decode(c.nonce_hex))
        let plain = Self.plaintext(c)
        if let sha = c.plaintext_sha256 { #expect(Hex.encode(SHA256Digest.of(plain)) == sha) }
        let file = CryptoFile.encrypt(plain, args: args)
        #expect(file.count == c.file_size)
        if let hex = c.file_hex { #expect(Hex.encode(file) == hex) }
        #expect(Hex.encode(SHA256Digest.of(file)) == c.file_sha256)
        #expect(Hex.encode(file.suffix(16)) == c.tag_hex)
        #expect(try CryptoFile.decrypt(file, args: args) == plain)
    }

    @Test("every encryption vector is reproduced by the streaming file path", arguments: caseNames)
    func encryptFile(name: String) throws {
        let c = try #require(try Self.loaded().cases.first { $0.name == name })
        let args = try CryptoFileArgs(key: Hex.decode(c.key_hex), nonce: Hex.decode(c.nonce_hex))
        let dir = try TempFolder()
        let input = dir.path + "/plain"
        try Data(Self.plaintext(c)).write(to: URL(fileURLWithPath: input))
        let writer = try AtomicFileWriter(destination: dir.path + "/enc")
        try CryptoFile.encrypt(file: input, to: writer, args: args)
        try writer.commit()
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path + "/enc")))
        #expect(Hex.encode(SHA256Digest.of(file)) == c.file_sha256)

        let back = try AtomicFileWriter(destination: dir.path + "/dec")
        try CryptoFile.decrypt(file: dir.path + "/enc", to: back, args: args)
        try back.commit()
        #expect([UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path + "/dec"))) == Self.plaintext(c))
        #expect(try CryptoFile.verify(file: dir.path + "/enc", args: args) == Int64(c.plaintext_size))
    }

    @Test("args JSON matches the vector's text and parses back")
    func argsJSON() throws {
        for c in try Self.loaded().cases {
            let args = try CryptoFileArgs(key: Hex.decode(c.key_hex), nonce: Hex.decode(c.nonce_hex))
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            #expect(String(decoding: try encoder.encode(args), as: UTF8.self) == c.args_json)
            #expect(try JSONDecoder().decode(CryptoFileArgs.self, from: Data(c.args_json.utf8)) == args)
        }
    }

    @Test("decrypt failures are rejected with the vector's message, in memory and from a file")
    func failures() throws {
        let dir = try TempFolder()
        for f in try Self.loaded().decrypt_failures {
            let args = try CryptoFileArgs(key: Hex.decode(f.key_hex), nonce: Hex.decode(f.nonce_hex))
            #expect(throws: CryptoFileError.self) { try CryptoFile.decrypt(Hex.decode(f.file_hex), args: args) }
            do { _ = try CryptoFile.decrypt(Hex.decode(f.file_hex), args: args) } catch {
                #expect("\(error)".contains(f.error), "\(f.name): \(error)")
            }
            let input = dir.path + "/" + f.name
            try Data(Hex.decode(f.file_hex)).write(to: URL(fileURLWithPath: input))
            let out = try AtomicFileWriter(destination: dir.path + "/out-" + f.name)
            do {
                try CryptoFile.decrypt(file: input, to: out, args: args)
                Issue.record("\(f.name) decrypted")
            } catch {
                #expect("\(error)".contains(f.error), "\(f.name): \(error)")
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix("out-") || $0.hasPrefix(".sxkit") }.isEmpty)
        }
    }

    /// Encrypting runs the keystream on one thread and the MAC on the writer's, decrypting the other
    /// way round (StreamPipeline.seal/open): both are checked against libsodium's one-shot secretbox.
    @Test("a multi-megabyte file streams through the write-behind path, byte for byte as libsodium seals it")
    func largeStreaming() throws {
        let dir = try TempFolder()
        let size = 5 * (1 << 20) + 12_345
        let plain = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        try Data(plain).write(to: URL(fileURLWithPath: dir.path + "/p"))
        let args = CryptoFileArgs.random()
        let w = try AtomicFileWriter(destination: dir.path + "/e")
        try CryptoFile.encrypt(file: dir.path + "/p", to: w, args: args)
        try w.commit()
        let enc = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir.path + "/e")))
        let key = args.key.copyBytes()
        #expect(enc == IndependentSecretBox.seal(plain, key: key, nonce: args.nonce))

        let sealed = try dir.write("independent", IndependentSecretBox.seal(plain.reversed(), key: key, nonce: args.nonce))
        let out = try AtomicFileWriter(destination: dir.path + "/d")
        try CryptoFile.decrypt(file: sealed, to: out, args: args)
        try out.commit()
        #expect(try dir.read("d") == plain.reversed())
        var tampered = try dir.read("independent")
        tampered[3 * (1 << 20) + 5] ^= 1  // a byte the keystream thread handles, not the first buffer
        let bad = try dir.write("tampered", tampered)
        let refused = try AtomicFileWriter(destination: dir.path + "/t")
        #expect(throws: CryptoFileError.invalidAuthTag(path: bad)) { try CryptoFile.decrypt(file: bad, to: refused, args: args) }
    }
}
