import Foundation
import Testing
import SXTestSupport

/// `sxkit files …` end to end, through the built binary.
@Suite(.ownThreads) struct FilesCommandTests {
    /// A folder of files with known hashes.
    func makeTree(_ dir: TempFolder, count: Int = 6) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for i in 0..<count {
            let name = i % 2 == 0 ? "docs/file\(i).bin" : "docs/sub/file\(i).bin"
            let path = try dir.write(name, testBytes(1000 * i + 17, seed: i))
            hashes[path] = try sha256(path)
        }
        return hashes
    }

    @Test func encryptInPlaceThenVerifyCatAndDecryptRoundTrip() throws {
        let dir = try TempFolder()
        let hashes = try makeTree(dir)
        let manifest = dir.file("keys.json")
        let enc = try CLI.run(["files", "encrypt", dir.file("docs"), "--in-place", "--manifest", manifest])
        #expect(enc.status == 0, "\(enc.stderr)")
        #expect(enc.stdout.contains("encrypted 6 file(s)"))
        // Manifest: 0600, JSON array, paths relative to its folder, base64url keys of the right length.
        let st = try FileManager.default.attributesOfItem(atPath: manifest)
        #expect((st[.posixPermissions] as! Int) == 0o600)
        let entries = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [[String: Any]]
        #expect(entries.count == 6)
        for e in entries {
            let path = e["filePath"] as! String
            #expect(path.hasPrefix("docs/"))
            let args = e["cryptoArgs"] as! [String: String]
            #expect(args["fileKey"]!.count == 44 && args["fileKey"]!.hasSuffix("="))
            #expect(args["fileNonce"]!.count == 32)
        }
        for (path, hash) in hashes { #expect(try sha256(path) != hash, "\(path) still plaintext") }

        let again = try CLI.run(["files", "encrypt", dir.file("docs"), "--in-place", "--manifest", manifest])
        #expect(again.status == 0)
        #expect(again.stdout.contains("encrypted 0 file(s)") && again.stdout.contains("6 skipped"))

        let verify = try CLI.run(["files", "verify", "--manifest", manifest, "--json"])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("\"verified\":6") && verify.stdout.contains("\"failed\":0"))

        let (one, oneHash) = hashes.first { $0.key.hasSuffix("file2.bin") }!
        let cat = try CLI.run(["files", "cat", one, "--manifest", manifest])
        #expect(cat.status == 0)
        #expect(cat.stdoutBytes == testBytes(2017, seed: 2))

        let out = try CLI.run(["files", "decrypt", dir.file("docs"), "--manifest", manifest, "-o", dir.file("plain")])
        #expect(out.status == 0, "\(out.stderr)")
        #expect(try sha256(dir.file("plain/docs/file2.bin")) == oneHash)
        let plainMode = try FileManager.default.attributesOfItem(atPath: dir.file("plain/docs/file2.bin"))[.posixPermissions] as! Int
        #expect(plainMode == 0o600)

        let back = try CLI.run(["files", "decrypt", dir.file("docs"), "--manifest", manifest, "--in-place"])
        #expect(back.status == 0, "\(back.stderr)")
        for (path, hash) in hashes { #expect(try sha256(path) == hash) }
        let left = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [Any]
        #expect(left.isEmpty, "in-place decrypt removes the entries")
    }

    /// A file's line under --json is the one shape `files` uses for paths and for a data directory's files
    /// (FileEvent; the latter adds `fileIds`): keys sorted, `output` for a copy, why in `reason`/`note`/`error`.
    @Test func aFileLineUnderJSONIsExact() throws {
        let dir = try TempFolder()
        let a = try dir.write("docs/a.bin", testBytes(1000, seed: 1))
        let args = ["files", "encrypt", a, "-o", dir.file("enc") + "/", "--manifest", dir.file("keys.json"), "--json"]
        func fileLines(_ r: CLIResult) -> [String] { r.stdout.split(separator: "\n").map(String.init).filter { $0.contains(#""type":"file""#) } }
        let first = try CLI.run(args)
        #expect(fileLines(first) == [#"{"bytes":1000,"output":"\#(dir.file("enc/a.bin"))","path":"\#(a)","status":"encrypted","type":"file"}"#], "\(first.stdout)")
        let again = try CLI.run(args)
        #expect(fileLines(again) == [#"{"bytes":0,"output":"\#(dir.file("enc/a.bin"))","path":"\#(a)","reason":"already encrypted (listed in the manifest)","status":"skipped","type":"file"}"#],
                "\(again.stdout)")
    }

    @Test("a file of 8 MiB or more is written around the page cache, and round-trips")
    func bigFilesBypassThePageCache() throws {
        let dir = try TempFolder("sxkit-big", in: "/var/tmp")
        let big = try dir.write("big.bin", testBytes((9 << 20) + 123, seed: 9))
        let manifest = dir.file("keys.json")
        let enc = try CLI.run(["files", "encrypt", big, "-o", dir.file("enc"), "--manifest", manifest])
        #expect(enc.status == 0, "\(enc.stderr)")
        // All but the unaligned tail (the last page) went to disk with O_DIRECT.
        #expect(try PageCache.residentPages(dir.file("enc/big.bin")) <= 1)
        let dec = try CLI.run(["files", "decrypt", dir.file("enc/big.bin"), "--manifest", manifest, "-o", dir.file("dec")])
        #expect(dec.status == 0, "\(dec.stderr)")
        #expect(try sha256(dir.file("dec/big.bin")) == sha256(big))
    }

    @Test func outputFolderManifestOutsideUsesAbsolutePathsAndMergesEntries() throws {
        let dir = try TempFolder()
        let other = try TempFolder()
        let a = try dir.write("a.txt", Array("alpha".utf8))
        let b = try dir.write("b.txt", Array("beta".utf8))
        let manifest = other.file("m.json")
        #expect(try CLI.run(["files", "encrypt", a, "-o", dir.file("enc"), "--manifest", manifest]).status == 0)
        #expect(try CLI.run(["files", "encrypt", b, "-o", dir.file("enc"), "--manifest", manifest]).status == 0)
        let entries = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as! [[String: Any]]
        #expect(Set(entries.map { $0["filePath"] as! String }) == [dir.file("enc/a.txt"), dir.file("enc/b.txt")])
        #expect(try dir.read("a.txt") == Array("alpha".utf8), "inputs untouched with -o")
        #expect(try CLI.run(["files", "cat", dir.file("enc/b.txt"), "--manifest", manifest]).stdout == "beta")
    }

    @Test func argsFileDecryptsAndVerifiesOneFile() throws {
        let dir = try TempFolder()
        let plain = try dir.write("p", testBytes(5000, seed: 9))
        #expect(try CLI.run(["files", "encrypt", plain, "-o", dir.file("e"), "--manifest", dir.file("m.json")]).status == 0)
        let entries = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("m.json")))) as! [[String: Any]]
        let args = try JSONSerialization.data(withJSONObject: entries[0]["cryptoArgs"]!)
        try args.write(to: URL(fileURLWithPath: dir.file("args.json")))
        #expect(try CLI.run(["files", "verify", dir.file("e/p"), "--args-file", dir.file("args.json")]).status == 0)
        let r = try CLI.run(["files", "decrypt", dir.file("e/p"), "--args-file", dir.file("args.json"), "-o", dir.file("d")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try dir.read("d/p") == testBytes(5000, seed: 9))
    }

    @Test func missingFileFailsAloneWithExitThree() throws {
        let dir = try TempFolder()
        let good = try dir.write("good", Array("ok".utf8))
        let r = try CLI.run(["files", "encrypt", good, dir.file("missing"), "-o", dir.file("out"), "--manifest", dir.file("m.json")])
        #expect(r.status == 3)
        #expect(r.stderr.contains("missing") && r.stderr.contains("No such file"))
        #expect(r.stdout.contains("encrypted 1 file(s)"))
        #expect(FileManager.default.fileExists(atPath: dir.file("out/good")))
    }

    @Test func folderWithoutPermissionIsNamedAndOthersComplete() throws {
        let dir = try TempFolder()
        shell("chmod 0777 '\(dir.path)'")
        try dir.write("open/a", Array("a".utf8))
        try dir.write("closed/b", Array("b".utf8))
        shell("chmod -R a+rwX '\(dir.path)' && chmod 000 '\(dir.file("closed"))'")
        // Root reads everything: run as the unprivileged 'nobody' user when we are root.
        let prefix = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let r = try CLI.run(["files", "encrypt", dir.file("open"), dir.file("closed"), "-o", dir.file("out"), "--manifest", dir.file("m.json")],
                            prefix: prefix)
        #expect(r.status == 3, "\(r.stdout) \(r.stderr)")
        #expect(r.stderr.contains(dir.file("closed")) && r.stderr.contains("cannot list the folder"))
        #expect(FileManager.default.fileExists(atPath: dir.file("out/open/a")))
    }

    @Test func badCiphertextsAreRefusedAndLeaveNoOutput() throws {
        let dir = try TempFolder()
        let plain = try dir.write("plain", testBytes(3000, seed: 3))
        #expect(try CLI.run(["files", "encrypt", plain, "-o", dir.file("enc"), "--manifest", dir.file("m.json")]).status == 0)
        let good = try dir.read("enc/plain")
        var bodyFlip = good; bodyFlip[10] ^= 0x01
        var tagFlip = good; tagFlip[good.count - 3] ^= 0x80
        let cases: [(String, [UInt8], String)] = [
            ("short", Array(good.prefix(15)), "invalid file size"),
            ("body", bodyFlip, "invalid auth tag"),
            ("tag", tagFlip, "invalid auth tag"),
            ("truncated", Array(good.dropLast(1)), "invalid auth tag"),
            ("extended", good + [0], "invalid auth tag"),
        ]
        let entries = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir.file("m.json")))) as! [[String: Any]]
        try JSONSerialization.data(withJSONObject: entries[0]["cryptoArgs"]!).write(to: URL(fileURLWithPath: dir.file("args.json")))
        for (name, bytes, message) in cases {
            let bad = try dir.write("bad/\(name)", bytes)
            let r = try CLI.run(["files", "decrypt", bad, "--args-file", dir.file("args.json"), "-o", dir.file("out")])
            #expect(r.status == 1, "\(name): its one file failed, so nothing was done")
            #expect(r.stderr.contains(message), "\(name): \(r.stderr)")
            let cat = try CLI.run(["files", "cat", bad, "--args-file", dir.file("args.json")])
            #expect(cat.status == 1 && cat.stdout.isEmpty && cat.stderr.contains(message), "\(name) cat")
        }
        let leftovers = (try? FileManager.default.contentsOfDirectory(atPath: dir.file("out"))) ?? []
        #expect(leftovers.isEmpty, "no output and no temp file: \(leftovers)")
    }

    @Test func unusableManifestsAreRefusedWithoutChangingAnything() throws {
        let dir = try TempFolder()
        let plain = try dir.write("plain", Array("data".utf8))
        try dir.write("notjson.json", Array("{ this is not json".utf8))
        var r = try CLI.run(["files", "encrypt", plain, "--in-place", "--manifest", dir.file("notjson.json")])
        #expect(r.status == 1 && r.stderr.contains("not a JSON array"))
        #expect(try dir.read("plain") == Array("data".utf8))

        try dir.write("shortkey.json", Array(#"[{"filePath":"plain","cryptoArgs":{"fileKey":"AAAA","fileNonce":"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}]"#.utf8))
        r = try CLI.run(["files", "verify", "--manifest", dir.file("shortkey.json")])
        #expect(r.status == 1 && r.stderr.contains("fileKey must be 32 bytes"))
        r = try CLI.run(["files", "encrypt", plain, "--in-place", "--manifest", dir.file("shortkey.json")])
        #expect(r.status == 1)
        #expect(try dir.read("plain") == Array("data".utf8))

        try dir.write("args.json", Array(#"{"fileKey":"AAAA"}"#.utf8))
        r = try CLI.run(["files", "cat", plain, "--args-file", dir.file("args.json")])
        #expect(r.status == 1 && r.stderr.contains("not a CryptoFileArgs"))
    }

    @Test func fullFileSystemGivesCleanErrorAndKeepsOriginals() throws {
        let dir = try TempFolder()
        let small = try TempFolder("sxkit-full")
        guard shell("mount -t tmpfs -o size=256k sxkit-test '\(small.path)'") == 0 else {
            // Not root or no mount permission: fall back to a file-size limit with SIGXFSZ ignored.
            let big = try dir.write("big", testBytes(2 << 20, seed: 1))
            let r = try CLI.run(["files", "encrypt", big, "-o", dir.file("out"), "--manifest", dir.file("m.json")],
                                prefix: ["/bin/bash", "-c", "trap '' XFSZ; ulimit -f 512; exec \"$@\"", "sxkit"])
            #expect(r.status == 1 && r.stderr.contains("File too large"))
            #expect(try sha256(big) == (try sha256(big)))
            return
        }
        defer { shell("umount '\(small.path)'") }
        let big = try dir.write("big", testBytes(1 << 20, seed: 1))
        let hash = try sha256(big)
        let r = try CLI.run(["files", "encrypt", big, "-o", small.path, "--manifest", dir.file("m.json")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("No space left on device") && r.stderr.contains("nothing was replaced"))
        #expect(try sha256(big) == hash)
        #expect(try FileManager.default.contentsOfDirectory(atPath: small.path).isEmpty, "no partial output or temp file")
    }

    @Test func usageErrorsExitTwo() throws {
        let both = try CLI.run(["files", "encrypt", "x", "-o", "d", "--in-place", "--manifest", "m"])
        #expect(both.status == 2 && both.stderr.contains("exactly one of -o DIR and --in-place"))
        let neither = try CLI.run(["files", "cat", "x"])
        #expect(neither.status == 2)
        let unknown = try CLI.run(["files", "frobnicate"])
        #expect(unknown.status == 2)
    }

    @Test func versionReportsLoadedLibraries() throws {
        let r = try CLI.run(["--version"])
        #expect(r.status == 0)
        #expect(r.stdout.contains("SQLCipher   4."))
        for name in ["libsodium   1.", "libcrypto   OpenSSL 3.", "libarchive  3.", "libvips     8."] { #expect(r.stdout.contains(name)) }
    }
}
