import Foundation
import SXCore
import SXTestSupport
import Testing

/// `sxkit files encrypt|decrypt --data-dir` end to end on sample data dirs: the work itself, every
/// bad input of the issue, and the cross-checks with the manifest-free `--args-file` path.
@Suite("files --data-dir", .ownThreads, .enabled(if: sqlcipherShellInstalled, "needs /usr/bin/sqlcipher"))
struct FilesDataDirCommandTests {
    @Test func encryptsEveryReferencedPlaintextFileAndRecordsItsKey() throws {
        let s = try FilesSample()
        let before = try s.states()
        #expect(before.values.contains { $0 == .plaintext } && before.values.contains { $0 == .encrypted })
        let r = try s.run(["files", "encrypt", "--data-dir", s.root, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let summary = try #require(r.stdout.split(separator: "\n").last.map(String.init))
        let plaintexts = before.values.filter { $0 == .plaintext }.count
        #expect(summary.contains("\"encrypted\":\(plaintexts)"), "\(summary)")
        #expect(summary.contains("\"missing\":2"), "\(summary)")
        let after = try s.states()
        #expect(after.allSatisfy { $0.value == .encrypted }, "\(after.filter { $0.value != .encrypted })")
        // The orphan is not referenced: left as it was.
        let orphan = try #require(s.sampleFiles.first { !$0.referenced })
        #expect(try sha256(Path.join(s.files, orphan.name)) == orphan.sha256)
        #expect(s.tempLeftovers.isEmpty, "\(s.tempLeftovers)")
        let again = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(again.status == 0 && again.stdout.contains("encrypted 0 file(s)"), "\(again.stdout)")
    }

    @Test func wrongPassphraseChangesNothing() throws {
        let s = try FilesSample()
        let snapshot = try FolderSnapshot.take(s.root)
        for args in [["files", "encrypt", "--data-dir", s.root], ["files", "decrypt", "--data-dir", s.root, "--in-place"]] {
            let r = try s.run(args, environment: ["SXKIT_PASSPHRASE": "wrong horse"])
            #expect(r.status == 1, "\(args): \(r.stderr)")
            #expect(r.stderr.lowercased().contains("passphrase"), "\(r.stderr)")
        }
        #expect(try FolderSnapshot.take(s.root) == snapshot, "a byte or a timestamp changed")
    }

    @Test func missingFilesFolderIsAnError() throws {
        let s = try FilesSample()
        try FileManager.default.removeItem(atPath: s.files)
        let r = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(r.status == 1)
        #expect(r.stderr.contains("the files folder '\(s.files)' does not exist"), "\(r.stderr)")
        #expect(try s.rows().filter(\.isEncrypted).count == s.sampleFiles.filter(\.encrypted).count, "no key was recorded")
    }

    @Test func unsafePathsAreReportedAndNeverFollowed() throws {
        let s = try FilesSample()
        let outside = try s.temp.write("outside.txt", Array("outside the files folder\n".utf8))
        let absolute = try s.temp.write("absolute.txt", Array("absolute target\n".utf8))
        let hashes = [try sha256(outside), try sha256(absolute)]
        try s.sql("""
            INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, user_id, updated_at)
              SELECT contact_id, 'outside.txt', '../../outside.txt', 25, chunk_size, user_id, updated_at FROM files LIMIT 1;
            INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, user_id, updated_at)
              SELECT contact_id, 'absolute.txt', '\(absolute)', 16, chunk_size, user_id, updated_at FROM files LIMIT 1;
            """)
        let r = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("skipped  ../../outside.txt: file_path is absolute or leaves the files folder"), "\(r.stdout)")
        #expect(r.stdout.contains("skipped  \(absolute): file_path is absolute"), "\(r.stdout)")
        #expect(r.stdout.contains("2 unsafe path"), "\(r.stdout)")
        #expect([try sha256(outside), try sha256(absolute)] == hashes)
        #expect(try s.rows().filter { $0.hasUnsafePath }.allSatisfy { !$0.isEncrypted })
        let out = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", s.temp.file("out")])
        #expect(out.status == 0 && out.stdout.contains("2 unsafe path"), "\(out.stdout) \(out.stderr)")
    }

    @Test func aSymlinkIsReportedAndNotFollowed() throws {
        let s = try FilesSample()
        let victim = try #require(s.sampleFiles.first { !$0.encrypted && $0.referenced }).name
        let target = try s.temp.write("target.bin", Array("a file outside, reached through a symlink\n".utf8))
        let hash = try sha256(target)
        try FileManager.default.removeItem(atPath: Path.join(s.files, victim))
        try FileManager.default.createSymbolicLink(atPath: Path.join(s.files, victim), withDestinationPath: target)
        let r = try s.run(["files", "encrypt", "--data-dir", s.root, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"fileIds\":[") && r.stdout.contains("\"path\":\"\(victim)\",\"reason\":") && r.stdout.contains("\"status\":\"symlink\""), "\(r.stdout)")
        #expect(try sha256(target) == hash)
        #expect(try s.rows().filter { $0.relativePath == victim }.allSatisfy { !$0.isEncrypted })
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: Path.join(s.files, victim))
        #expect(link == target)
    }

    @Test func aFileNamedByTwoRowsIsEncryptedOnceWithOneKey() throws {
        let s = try FilesSample()
        let shared = try #require(s.sampleFiles.first { !$0.encrypted && $0.referenced }).name
        try s.sql("""
            INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, user_id, updated_at)
              SELECT contact_id, 'forwarded copy', file_path, file_size, chunk_size, user_id, updated_at FROM files WHERE file_path = '\(shared)';
            """)
        let r = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(r.status == 0, "\(r.stderr)")
        let rows = try s.rows().filter { $0.relativePath == shared }
        #expect(rows.count == 2)
        #expect(rows.allSatisfy(\.isEncrypted) && rows[0].cryptoKey == rows[1].cryptoKey && rows[0].cryptoNonce == rows[1].cryptoNonce)
        #expect(try s.states()[shared] == .encrypted)
    }

    @Test func aReadOnlyFilesFolderFailsPerFileAndLosesNothing() throws {
        let s = try FilesSample()
        let before = try s.states()
        // As root, permissions do not bind: run as nobody, who owns the data dir but cannot write the files folder.
        let prefix = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        if getuid() == 0 {
            #expect(shell("chmod 755 '\(s.temp.path)' && chown -R 65534:65534 '\(s.root)'") == 0)
        }
        #expect(chmod(s.files, 0o555) == 0)
        let r = try s.run(["files", "encrypt", "--data-dir", s.root], prefix: prefix)
        #expect(chmod(s.files, 0o755) == 0)
        // Every file it should have encrypted failed: nothing was done, so 1, not 3.
        #expect(r.status == 1, "\(r.stdout) \(r.stderr)")
        let plaintexts = before.filter { $0.value == .plaintext }.keys.sorted()
        for name in plaintexts {
            #expect(r.stderr.contains("failed   \(name): "), "\(name) not named: \(r.stderr)")
        }
        #expect(r.stdout.contains("\(plaintexts.count) FAILED"), "\(r.stdout)")
        let after = try s.states()
        #expect(after == before, "\(after)")
        #expect(s.tempLeftovers.isEmpty, "\(s.tempLeftovers)")
    }

    @Test func aDatabaseOpenInAnotherProcessIsRefused() throws {
        let s = try FilesSample()
        // The sqlcipher shell keeps the WAL database open (and a read transaction going) until its stdin closes.
        let shellProcess = Process()
        shellProcess.executableURL = URL(fileURLWithPath: sqlcipherShellPath)
        shellProcess.arguments = [s.chat]
        let input = Pipe()
        shellProcess.standardInput = input
        shellProcess.standardOutput = FileHandle.nullDevice
        shellProcess.standardError = FileHandle.nullDevice
        try shellProcess.run()
        input.fileHandleForWriting.write(Data("PRAGMA key = '\(FilesSample.passphrase)';\nSELECT count(*) FROM files;\nBEGIN;\nSELECT count(*) FROM files;\n".utf8))
        Thread.sleep(forTimeInterval: 0.5)
        let snapshot = try FolderSnapshot.take(s.files)
        let r = try s.run(["files", "encrypt", "--data-dir", s.root])
        let d = try s.run(["files", "decrypt", "--data-dir", s.root, "--in-place"])
        try input.fileHandleForWriting.close()
        shellProcess.waitUntilExit()
        #expect(r.status == 1 && d.status == 1)
        #expect(r.stderr.contains("is in use by another process"), "\(r.stderr)")
        #expect(d.stderr.contains("is in use by another process"), "\(d.stderr)")
        #expect(try FolderSnapshot.take(s.files) == snapshot)
    }

    @Test func decryptedCopiesMatchTheOriginalsWithCollisionsNamed() throws {
        let s = try FilesSample()
        let enc = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(enc.status == 0, "\(enc.stderr)")
        // Give two encrypted files the same chat name, and a third a hostile one.
        let names = try s.rows().filter { $0.isEncrypted && $0.relativePath != nil }.map(\.fileId)
        try #require(names.count >= 3)
        try s.sql("""
            UPDATE files SET file_name = 'dup.txt' WHERE file_id IN (\(names[0]), \(names[1]));
            UPDATE files SET file_name = '../../evil/.hidden' WHERE file_id = \(names[2]);
            """)
        let snapshot = try FolderSnapshot.take(s.root)
        let out = s.temp.file("export")
        let r = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try FolderSnapshot.take(s.root) == snapshot, "decrypt -o changed the data dir")
        let exported = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(exported.contains("dup.txt") && exported.contains("dup (2).txt"), "\(exported)")
        #expect(exported.allSatisfy { !$0.contains("..") && !$0.hasPrefix(".") }, "\(exported)")
        #expect(exported.contains("evil_hidden"), "\(exported)")
        // Every copy is the original plaintext, and private.
        let byId = Dictionary(uniqueKeysWithValues: try s.rows().map { ($0.fileId, $0) })
        let expected = Set(s.originals.values)
        var seen = Set<String>()
        for name in exported {
            let path = Path.join(out, name)
            seen.insert(try sha256(path))
            #expect((try POSIXFile.status(path).st_mode & 0o777) == 0o600)
        }
        #expect(seen == expected, "copies \(seen.count), originals \(expected.count)")
        #expect(exported.count == byId.values.filter { $0.relativePath != nil && s.originals[$0.relativePath!] != nil }.count)
    }

    @Test func aFileEncryptedByDataDirDecryptsWithArgsFileFromTheDB() throws {
        let s = try FilesSample()
        let before = try s.states()
        let name = try #require(before.first { $0.value == .plaintext }?.key)
        #expect(try s.run(["files", "encrypt", "--data-dir", s.root]).status == 0)
        let row = try #require(try s.rows().first { $0.relativePath == name && $0.isEncrypted })
        // Raw BLOBs → the CryptoFileArgs JSON of FORMATS §5 (padded base64url).
        let argsFile = try s.temp.write("args.json", Array("""
            {"fileKey": "\(Base64URL.encode(row.cryptoKey!))", "fileNonce": "\(Base64URL.encode(row.cryptoNonce!))"}
            """.utf8))
        let r = try s.run(["files", "decrypt", Path.join(s.files, name), "--args-file", argsFile, "-o", s.temp.file("one")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try sha256(s.temp.file("one/" + name)) == s.originals[name])
        #expect(try s.run(["files", "verify", Path.join(s.files, name), "--args-file", argsFile]).status == 0)
    }

    @Test func decryptInPlaceRestoresEveryFileAndClearsTheKeys() throws {
        let s = try FilesSample()
        #expect(try s.run(["files", "encrypt", "--data-dir", s.root]).status == 0)
        let r = try s.run(["files", "decrypt", "--data-dir", s.root, "--in-place"])
        #expect(r.status == 0, "\(r.stderr)")
        let states = try s.states()
        #expect(states.allSatisfy { $0.value == .plaintext }, "\(states.filter { $0.value != .plaintext })")
        #expect(s.tempLeftovers.isEmpty)
    }

    @Test func usageErrors() throws {
        let s = try FilesSample()
        let cases: [[String]] = [
            ["files", "encrypt", "--data-dir", s.root, "--manifest", s.temp.file("m.json")],
            ["files", "encrypt", "--data-dir", s.root, "--in-place"],
            ["files", "encrypt", s.files, "--data-dir", s.root, "--in-place", "--manifest", s.temp.file("m.json")],
            ["files", "decrypt", "--data-dir", s.root],
            ["files", "decrypt", "--data-dir", s.root, "--in-place", "-o", s.temp.file("o")],
            ["files", "decrypt", "--data-dir", s.root, "--in-place", "--manifest", s.temp.file("m.json")],
        ]
        for args in cases {
            let r = try s.run(args)
            #expect(r.status == 2, "\(args): \(r.status) \(r.stderr)")
        }
    }
}
