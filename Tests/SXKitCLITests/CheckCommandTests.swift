import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport

/// `sxkit check` and `sxkit files verify --data-dir` end to end.
@Suite(.ownThreads) struct CheckCommandTests {
    /// The sample with its referenced-but-missing rows removed: a whole profile.
    static func wholeSample() throws -> FilesSample {
        let s = try FilesSample()
        try s.sql("DELETE FROM files WHERE file_path IN (\(SampleDataDirectory.missingFiles.map { "'\($0)'" }.joined(separator: ",")));")
        return s
    }

    static func encrypted(_ s: FilesSample) -> [String] { s.sampleFiles.filter { $0.encrypted && $0.referenced }.map(\.name) }

    static func flipByte(_ path: String) throws {
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[bytes.count / 2] ^= 0x01
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("the sample: NOT whole, exit 3, the missing files and the orphan named")
    func sample() throws {
        let s = try FilesSample()
        let r = try s.run(["check", "--data-dir", s.root])
        #expect(r.status == 3, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("chat database: ok (quick_check; SQLCipher 4 (4."), "\(r.stdout)")
        #expect(r.stdout.contains("agent database: ok (quick_check;"), "\(r.stdout)")
        #expect(r.stdout.contains(", 2 missing: video_0001.mp4, voice_0001.m4a\n"), "\(r.stdout)")
        #expect(r.stdout.contains("orphans: 1: \(SampleDataDirectory.orphanFile)\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("profile is NOT whole: 2 referenced file(s) missing: video_0001.mp4, voice_0001.m4a\n"), "\(r.stdout)")
        let quiet = try s.run(["check", "--data-dir", s.root, "--quiet"])
        #expect(quiet.status == 3 && quiet.stdout == "profile is NOT whole: 2 referenced file(s) missing: video_0001.mp4, voice_0001.m4a\n")
    }

    @Test("a whole profile: exit 0 with --deep --read-data, every CryptoFile verified")
    func whole() throws {
        let s = try Self.wholeSample()
        let r = try s.run(["check", "--data-dir", s.root, "--deep", "--read-data", "--jobs", "2"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("chat database: ok (integrity_check + cipher_integrity_check;"), "\(r.stdout)")
        #expect(r.stdout.contains("CryptoFiles: \(Self.encrypted(s).count) verified, 0 failed\n"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("profile is whole\n"), "\(r.stdout)")
    }

    @Test("a tampered CryptoFile: found only with --read-data, named, exit 3")
    func tampered() throws {
        let s = try Self.wholeSample()
        let name = try #require(Self.encrypted(s).first)
        try Self.flipByte(Path.join(s.files, name))
        #expect(try s.run(["check", "--data-dir", s.root]).status == 0)
        let r = try s.run(["check", "--data-dir", s.root, "--read-data"])
        #expect(r.status == 3, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("CryptoFiles: \(Self.encrypted(s).count - 1) verified, 1 failed:\n  \(name): invalid auth tag"), "\(r.stdout)")
        #expect(r.stdout.hasSuffix("profile is NOT whole: 1 CryptoFile(s) failed their tag check: \(name)\n"), "\(r.stdout)")
    }

    @Test("a damaged page of the chat database: DAMAGED, exit 3; a wrong passphrase: the usual error, exit 1")
    func damagedAndWrongPassphrase() throws {
        let s = try Self.wholeSample()
        let wrong = try s.run(["check", "--data-dir", s.root], environment: ["SXKIT_PASSPHRASE": "hunter2"])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("the passphrase is wrong: it does not open '\(s.chat)'"), "\(wrong.stderr)")
        let page = try #require(try sqlcipherShell(s.chat, "PRAGMA key = '\(FilesSample.passphrase)';\nSELECT rootpage FROM sqlite_master WHERE name = 'chat_items';\n")
            .output.split(separator: "\n").last.flatMap { Int($0.trimmingCharacters(in: .whitespaces)) })
        let handle = try #require(FileHandle(forWritingAtPath: s.chat))
        try handle.seek(toOffset: UInt64((page - 1) * 4096 + 2048))
        try handle.write(contentsOf: Data(repeating: 0x5A, count: 64))
        try handle.close()
        let r = try s.run(["check", "--data-dir", s.root, "--deep"])
        #expect(r.status == 3, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("chat database: DAMAGED (integrity_check + cipher_integrity_check;"), "\(r.stdout)")
        #expect(r.stdout.contains("\n  cipher_integrity_check: HMAC verification failed for page \(page)\n"), "\(r.stdout)")
        #expect(r.stdout.contains("profile is NOT whole: chat database: DAMAGED"), "\(r.stdout)")
    }

    @Test("--json: one object with the verdict, the databases, the files and the CryptoFiles")
    func json() throws {
        let s = try FilesSample()
        let r = try s.run(["check", "--data-dir", s.root, "--read-data", "--json"])
        #expect(r.status == 3)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdoutBytes)) as? [String: Any])
        #expect(object["whole"] as? Bool == false)
        let databases = try #require(object["databases"] as? [[String: Any]])
        #expect(databases.map { ($0["database"] as? [String: Any])?["role"] as? String } == ["chat", "agent"])
        #expect(databases.map { $0["status"] as? String } == ["ok", "ok"])
        #expect(databases.first?["checks"] as? [String] == ["quick_check"])
        let files = try #require(object["files"] as? [String: Any])
        #expect(files["missing"] as? [String] == ["video_0001.mp4", "voice_0001.m4a"])
        #expect((object["cryptoFiles"] as? [String: Any])?["verified"] as? Int == Self.encrypted(s).count)
        #expect(object["orphans"] as? [String] == [SampleDataDirectory.orphanFile])
        #expect((object["problems"] as? [String])?.count == 1)
    }

    @Test("files verify --data-dir: every CryptoFile with the chat database's key; a tampered one fails, exit 3; read-only")
    func filesVerifyDataDir() throws {
        let s = try FilesSample()
        let names = Self.encrypted(s)
        let before = try FolderSnapshot.take(s.root)
        let ok = try s.run(["files", "verify", "--data-dir", s.root])
        #expect(ok.status == 0, "\(ok.stdout)\(ok.stderr)")
        #expect(ok.stdout.hasPrefix("skipped  \(Path.join(s.files, "video_0001.mp4")): referenced by the chat database but missing") == false,
                "plaintext rows are not CryptoFiles: not listed")
        #expect(ok.stdout.contains("verified \(names.count) file(s)"), "\(ok.stdout)")
        #expect(try FolderSnapshot.take(s.root) == before)
        try Self.flipByte(Path.join(s.files, names[0]))
        let bad = try s.run(["files", "verify", "--data-dir", s.root])
        #expect(bad.status == 3, "\(bad.stdout)\(bad.stderr)")
        #expect(bad.stderr.contains("failed   \(Path.join(s.files, names[0])): invalid auth tag"), "\(bad.stderr)")
        #expect(bad.stdout.contains("verified \(names.count - 1) file(s)") && bad.stdout.contains("1 FAILED"), "\(bad.stdout)")
    }
}
