import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXCrypto

/// CryptoFiles an earlier sxkit wrote (the key used directly): recognised, decrypted, re-encrypted;
/// SimpleX's own files (made here by libsodium directly) decrypt every way.
@Suite(.ownThreads)
struct EarlierScheduleTests {
    let key = SodiumRuntime.randomBytes(count: 32)
    let nonce = SodiumRuntime.randomBytes(count: 24)
    var args: CryptoFileArgs { try! CryptoFileArgs(key: key, nonce: nonce) }
    /// Spans the write-behind path (more than one 1 MiB buffer).
    let plain = (0..<(1_300_000)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    @Test("a SimpleX CryptoFile computed independently decrypts, verifies and streams")
    func simplexFileDecrypts() throws {
        let dir = try TempFolder()
        let path = try dir.write("simplex", IndependentSecretBox.seal(plain, key: key, nonce: nonce))
        #expect(try CryptoFile.verify(file: path, args: args) == Int64(plain.count))
        #expect(try CryptoFile.schedule(of: path, args: args) == .simplex)
        let writer = try AtomicFileWriter(destination: dir.file("out"))
        #expect(try CryptoFile.decrypt(file: path, to: writer, args: args) == CryptoFile.Decrypted(size: Int64(plain.count), schedule: .simplex))
        try writer.commit()
        #expect(try dir.read("out") == plain)
    }

    @Test("an earlier sxkit's file: verify says so precisely, decrypt still decrypts it")
    func earlierFile() async throws {
        let dir = try TempFolder()
        let path = try dir.write("old", IndependentSecretBox.seal(plain, key: key, nonce: nonce, earlierSxkit: true))
        #expect(throws: CryptoFileError.earlierKeySchedule(path: path)) { try CryptoFile.verify(file: path, args: args) }
        #expect("\(CryptoFileError.earlierKeySchedule(path: path))".contains("encrypted by an earlier sxkit with a non-SimpleX key schedule"))
        #expect(try CryptoFile.schedule(of: path, args: args) == .earlierSxkit)

        let writer = try AtomicFileWriter(destination: dir.file("out"))
        #expect(try CryptoFile.decrypt(file: path, to: writer, args: args) == CryptoFile.Decrypted(size: Int64(plain.count), schedule: .earlierSxkit))
        try writer.commit()
        #expect(try dir.read("out") == plain)

        let pipe = Pipe()
        let reader = Task.detached { pipe.fileHandleForReading.readDataToEndOfFile() }
        #expect(try CryptoFile.decrypt(file: path, toDescriptor: pipe.fileHandleForWriting.fileDescriptor, args: args) == .earlierSxkit)
        try pipe.fileHandleForWriting.close()
        #expect([UInt8](await reader.value) == plain)

        #expect(throws: CryptoFileError.earlierKeySchedule(path: "<memory>")) {
            try CryptoFile.decrypt(IndependentSecretBox.seal([1, 2, 3], key: key, nonce: nonce, earlierSxkit: true), args: args)
        }
    }

    @Test("re-encryption turns an earlier sxkit's file into exactly SimpleX's bytes for the new key")
    func reencrypt() throws {
        let dir = try TempFolder()
        let path = try dir.write("old", IndependentSecretBox.seal(plain, key: key, nonce: nonce, earlierSxkit: true))
        let fresh = CryptoFileArgs.random()
        let writer = try AtomicFileWriter(destination: dir.file("new"))
        #expect(try CryptoFile.reencrypt(file: path, to: writer, from: args, to: fresh) == Int64(plain.count))
        try writer.commit()
        let expected = IndependentSecretBox.seal(plain, key: fresh.key.copyBytes(), nonce: fresh.nonce)
        #expect(try dir.read("new") == expected)
    }

    @Test("a tampered file fails under both schedules: invalid auth tag, nothing written")
    func tampered() throws {
        let dir = try TempFolder()
        for earlier in [false, true] {
            var bytes = IndependentSecretBox.seal(plain, key: key, nonce: nonce, earlierSxkit: earlier)
            bytes[1000] ^= 1
            let path = try dir.write("bad-\(earlier)", bytes)
            #expect(throws: CryptoFileError.invalidAuthTag(path: path)) { try CryptoFile.verify(file: path, args: args) }
            let writer = try AtomicFileWriter(destination: dir.file("out-\(earlier)"))
            #expect(throws: CryptoFileError.invalidAuthTag(path: path)) { try CryptoFile.decrypt(file: path, to: writer, args: args) }
            let reencrypting = try AtomicFileWriter(destination: dir.file("re-\(earlier)"))
            #expect(throws: CryptoFileError.invalidAuthTag(path: path)) {
                try CryptoFile.reencrypt(file: path, to: reencrypting, from: args, to: .random())
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { !$0.hasPrefix("bad-") }
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
