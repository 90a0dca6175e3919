import Foundation
import SXCore
import SXCrypto
import SXTestSupport
import Testing

/// CryptoFiles through the CLI: SimpleX's own (made by libsodium directly) open every way, and files
/// an earlier sxkit wrote with its non-SimpleX key schedule are named as such, still decrypted, and
/// re-encrypted by `files encrypt --data-dir` under its journal.
@Suite("CryptoFile key schedules", .ownThreads, .enabled(if: sqlcipherShellInstalled, "needs /usr/bin/sqlcipher"))
struct EarlierScheduleCommandTests {
    static let message = "encrypted by an earlier sxkit with a non-SimpleX key schedule"

    /// A CryptoFile and its --args-file, sealed independently of sxkit.
    func independentFile(_ dir: TempFolder, _ plain: [UInt8], earlierSxkit: Bool) throws -> (file: String, args: String) {
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        let file = try dir.write(earlierSxkit ? "old.bin" : "simplex.bin", IndependentSecretBox.seal(plain, key: key, nonce: nonce, earlierSxkit: earlierSxkit))
        let args = try dir.write(earlierSxkit ? "old.json" : "simplex.json",
                                 Array("{\"fileKey\":\"\(Base64URL.encode(key))\",\"fileNonce\":\"\(Base64URL.encode(nonce))\"}".utf8))
        return (file, args)
    }

    @Test func aSimpleXCryptoFileDecryptsCatsAndVerifies() throws {
        let dir = try TempFolder()
        let plain = testBytes(3_000_017, seed: 5)
        let (file, args) = try independentFile(dir, plain, earlierSxkit: false)
        let verify = try CLI.run(["files", "verify", file, "--args-file", args])
        #expect(verify.status == 0, "\(verify.stderr)")
        let cat = try CLI.run(["files", "cat", file, "--args-file", args])
        #expect(cat.status == 0 && cat.stdoutBytes == plain && cat.stderr.isEmpty, "\(cat.stderr)")
        let out = try CLI.run(["files", "decrypt", file, "--args-file", args, "-o", dir.file("out")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try dir.read("out/simplex.bin") == plain)
    }

    /// What `files encrypt` writes opens with libsodium alone under SimpleX's schedule.
    @Test func whatSxkitEncryptsOpensIndependently() throws {
        let dir = try TempFolder()
        let plain = testBytes(2_500_003, seed: 3)
        let file = try dir.write("photo.jpg", plain)
        let r = try CLI.run(["files", "encrypt", file, "--in-place", "--manifest", dir.file("keys.json")])
        #expect(r.status == 0, "\(r.stderr)")
        let entries = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("keys.json")))) as? [[String: Any]])
        let args = try #require(entries.first?["cryptoArgs"] as? [String: String])
        let key = try #require(Base64URL.decode(args["fileKey"]!)), nonce = try #require(Base64URL.decode(args["fileNonce"]!))
        #expect(IndependentSecretBox.open(try dir.read("photo.jpg"), key: key, nonce: nonce) == plain)
        #expect(IndependentSecretBox.open(try dir.read("photo.jpg"), key: key, nonce: nonce, earlierSxkit: true) == nil)
    }

    /// A files-folder CryptoFile made by libsodium alone (as the app makes one), with its key in the
    /// chat DB: `files decrypt --data-dir` exports it, and `files encrypt --data-dir` leaves it alone.
    @Test func aSimpleXFileInTheDataDirDecrypts() throws {
        let s = try FilesSample()
        #expect(try s.run(["files", "encrypt", "--data-dir", s.root]).status == 0)
        let row = try #require(try s.rows().first { $0.isEncrypted && $0.relativePath.map { s.originals[$0] != nil } == true })
        let name = row.relativePath!, path = Path.join(s.files, name)
        let plain = try #require(IndependentSecretBox.open([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), key: row.cryptoKey!, nonce: row.cryptoNonce!))
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        try Data(IndependentSecretBox.seal(plain, key: key, nonce: nonce)).write(to: URL(fileURLWithPath: path))
        try s.sql("UPDATE files SET file_crypto_key = x'\(Hex.encode(key))', file_crypto_nonce = x'\(Hex.encode(nonce))' WHERE file_id = \(row.fileId);")
        let before = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        let again = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(again.status == 0 && !again.stdout.contains("note"), "\(again.stdout)")
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: path))) == before)
        let out = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", s.temp.file("export")])
        #expect(out.status == 0, "\(out.stderr)")
        let exported = try FileManager.default.contentsOfDirectory(atPath: s.temp.file("export")).map { try [UInt8](Data(contentsOf: URL(fileURLWithPath: Path.join(s.temp.file("export"), $0)))) }
        #expect(exported.contains(plain))
    }

    @Test func anEarlierSxkitFileIsNamedAndStillDecrypts() throws {
        let dir = try TempFolder()
        let plain = testBytes(70_001, seed: 9)
        let (file, args) = try independentFile(dir, plain, earlierSxkit: true)
        let verify = try CLI.run(["files", "verify", file, "--args-file", args])
        #expect(verify.status == 1, "its one file is not SimpleX's: \(verify.stderr)")
        #expect(verify.stderr.contains(Self.message) && !verify.stderr.contains("invalid auth tag"), "\(verify.stderr)")
        let cat = try CLI.run(["files", "cat", file, "--args-file", args])
        #expect(cat.status == 0 && cat.stdoutBytes == plain, "\(cat.stderr)")
        #expect(cat.stderr.contains("earlier sxkit"), "\(cat.stderr)")
        let out = try CLI.run(["files", "decrypt", file, "--args-file", args, "-o", dir.file("out"), "--json"])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(out.stdout.contains("\"note\":") && out.stdout.contains(Self.message), "\(out.stdout)")
        #expect(try dir.read("out/old.bin") == plain)
        // In place too: the plaintext replaces the old CryptoFile.
        let inPlace = try CLI.run(["files", "decrypt", file, "--args-file", args, "--in-place"])
        #expect(inPlace.status == 0 && inPlace.stdout.contains(Self.message), "\(inPlace.stdout) \(inPlace.stderr)")
        #expect(try dir.read("old.bin") == plain)
    }

    @Test func dataDirEncryptReencryptsEarlierFilesWithNewKeysAndLeavesSimpleXOnesAlone() throws {
        let s = try FilesSample()
        #expect(try s.run(["files", "encrypt", "--data-dir", s.root]).status == 0)
        let old = try s.rewriteWithEarlierSchedule(count: 2)
        try #require(old.count == 2)
        let rowsBefore = try s.rows()
        let keep = try #require(rowsBefore.first { $0.isEncrypted && $0.relativePath.map { !old.contains($0) } == true })
        let keepBytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: Path.join(s.files, keep.relativePath!))))
        #expect(try s.states().filter { $0.value == .encryptedEarlierSchedule }.keys.sorted() == old.sorted())

        let r = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(r.status == 0, "\(r.stderr)")
        for name in old { #expect(r.stdout.contains("note     \(name): re-encrypted with SimpleX's key schedule"), "\(r.stdout)") }
        #expect(r.stdout.contains("encrypted 2 file(s)"), "\(r.stdout)")
        let states = try s.states()
        #expect(states.allSatisfy { $0.value == .encrypted || $0.value == .missing }, "\(states)")
        let rowsAfter = try s.rows()
        for name in old {
            let before = try #require(rowsBefore.first { $0.relativePath == name })
            let after = try #require(rowsAfter.first { $0.relativePath == name })
            #expect(after.cryptoKey != before.cryptoKey && after.cryptoNonce != before.cryptoNonce, "\(name): the key was not renewed")
            // Exactly SimpleX's bytes for the new key, computed without sxkit.
            let plain = try #require(SecretBoxStream.open(try [UInt8](Data(contentsOf: URL(fileURLWithPath: Path.join(s.files, name)))),
                                                          key: SecretBytes(after.cryptoKey!), nonce: after.cryptoNonce!))
            #expect(IndependentSecretBox.seal(plain, key: after.cryptoKey!, nonce: after.cryptoNonce!)
                    == [UInt8](try Data(contentsOf: URL(fileURLWithPath: Path.join(s.files, name)))))
        }
        // A SimpleX file is not rewritten and keeps its key.
        #expect(try [UInt8](Data(contentsOf: URL(fileURLWithPath: Path.join(s.files, keep.relativePath!)))) == keepBytes)
        #expect(rowsAfter.first { $0.fileId == keep.fileId }?.cryptoKey == keep.cryptoKey)
        #expect(s.tempLeftovers.isEmpty, "\(s.tempLeftovers)")
    }

    @Test func dataDirDecryptExportsEarlierFilesWithANote() throws {
        let s = try FilesSample()
        #expect(try s.run(["files", "encrypt", "--data-dir", s.root]).status == 0)
        let old = try s.rewriteWithEarlierSchedule(count: 1)
        let r = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", s.temp.file("export"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let line = try #require(r.stdout.split(separator: "\n").first { $0.contains("\"path\":\"\(old[0])\"") })
        #expect(line.contains("\"status\":\"exported\"") && line.contains(Self.message), "\(line)")
        let inPlace = try s.run(["files", "decrypt", "--data-dir", s.root, "--in-place"])
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        #expect(try s.states().allSatisfy { $0.value == .plaintext || $0.value == .missing })
    }

    /// The previous keys the files journal holds, by path (none when there is no journal).
    func journalPreviousKeys(_ s: FilesSample) throws -> [String: CryptoFileArgs] {
        guard let data = FileManager.default.contents(atPath: s.chat + ".files-journal") else { return [:] }
        var keys: [String: CryptoFileArgs] = [:]
        for line in data.split(separator: 0x0A) {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any])
            guard let path = record["path"] as? String, let key = record["previousKey"] as? String, let nonce = record["previousNonce"] as? String else { continue }
            keys[path] = try CryptoFileArgs(key: Base64URL.decode(key)!, nonce: Base64URL.decode(nonce)!)
        }
        return keys
    }

    /// A kill at each point of a re-encrypting run: every file still opens with the DB's key (under
    /// one schedule or the other), and the rerun leaves every file SimpleX's.
    @Test func killedWhileReencryptingLosesNothing() throws {
        let base = try FilesSample(bulkFiles: FilesDataDirCrashTests.bulkFiles)
        #expect(try base.run(["files", "encrypt", "--data-dir", base.root, "--quiet"]).status == 0)
        try base.rewriteWithEarlierSchedule(count: 400)
        for point in FilesDataDirCrashTests.encryptPoints {
            let s = try FilesSample(copying: base, tag: point)
            let killed = try s.run(["files", "encrypt", "--data-dir", s.root, "--quiet"] + FilesDataDirCrashTests.grouping,
                                   environment: [CrashPoint.environmentVariable: point])
            #expect(killed.status == 9 || killed.status == 137, "\(point): not killed (status \(killed.status)): \(killed.stderr)")
            // The DB may hold a file's new key a moment before the file is renamed into place: the
            // journal then names the file with the previous key, which still opens it.
            let previous = try journalPreviousKeys(s)
            let atKill = try s.states()
            let lost = atKill.filter { name, state in
                guard ![.encrypted, .encryptedEarlierSchedule, .missing].contains(state) else { return false }
                guard let args = previous[name], let bytes = FileManager.default.contents(atPath: Path.join(s.files, name)) else { return true }
                return SecretBoxStream.open([UInt8](bytes), key: args.key, nonce: args.nonce, schedule: .earlierSxkit) == nil
                    && SecretBoxStream.open([UInt8](bytes), key: args.key, nonce: args.nonce) == nil
            }
            #expect(lost.isEmpty, "\(point): \(lost.count) file(s) neither the DB key nor the journal opens: \(lost.prefix(5))")
            let rerun = try s.run(["files", "encrypt", "--data-dir", s.root, "--quiet"])
            #expect(rerun.status == 0, "\(point): rerun: \(rerun.stderr)")
            let after = try s.states().filter { $0.value != .encrypted && $0.value != .missing }
            #expect(after.isEmpty, "\(point): after the rerun \(after.count) file(s) are not SimpleX CryptoFiles: \(after.prefix(5))")
            #expect(s.tempLeftovers.isEmpty, "\(point): \(s.tempLeftovers)")
        }
    }
}
