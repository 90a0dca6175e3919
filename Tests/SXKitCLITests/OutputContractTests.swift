import Foundation
import Testing
import SXCore
import SXImages
import SXSample
import SXTestSupport

/// The command-line contract for outputs and errors (issue 15): errors are sentences, never Swift
/// debug dumps; an existing output is never replaced without --force, and that is checked before any
/// work; `-o name/` is a folder; outputs holding plaintext are 0600.
@Suite(.ownThreads) struct OutputContractTests {
    /// What a Swift or Foundation debug dump looks like; no stderr may contain any of it.
    static let dumpMarkers = ["Error Domain=", "NSCocoaErrorDomain", "UserInfo=", "DecodingError", "Debug description",
                              "descriptor:ptr:bytes:", "(errno:", "CodingKeys("]

    static func expectNoDump(_ r: CLIResult, sourceLocation: SourceLocation = #_sourceLocation) {
        for marker in dumpMarkers {
            #expect(!r.stderr.contains(marker) && !r.stdout.contains(marker), "a debug dump (\(marker)): \(r.stderr)\(r.stdout)",
                    sourceLocation: sourceLocation)
        }
    }

    static func mode(_ path: String) throws -> mode_t { try POSIXFile.status(path).st_mode & 0o777 }

    // MARK: image compress

    @Test func imageCompressIntoAFileIsASentenceNotADump() throws {
        let dir = try TempFolder()
        let original = try SyntheticImage.jpeg(width: 900, height: 600, seed: 11)
        let wood = try dir.write("Wood.jpg", original)
        let other = try dir.write("other.jpg", Array("keep me".utf8))
        for output in [wood, other] {
            let r = try CLI.run(["image", "compress", wood, "-o", output])
            #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("is a file, not a folder"), "\(r.stderr)")
            Self.expectNoDump(r)
        }
        #expect(try dir.read("Wood.jpg") == original)
        #expect(try dir.read("other.jpg") == Array("keep me".utf8))
    }

    @Test func imageCompressRefusesExistingResultsUnlessForced() throws {
        let dir = try TempFolder()
        let a = try dir.write("in/a.jpg", try SyntheticImage.jpeg(width: 900, height: 600, seed: 12))
        let b = try dir.write("in/b.jpg", try SyntheticImage.jpeg(width: 700, height: 500, seed: 13))
        try dir.write("small/b.jpg", Array("mine".utf8))
        let r = try CLI.run(["image", "compress", a, b, "-o", dir.file("small")])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("'\(dir.file("small/b.jpg"))' already exists") && r.stderr.contains("--force"), "\(r.stderr)")
        // Checked before any work: a.jpg was not written either.
        #expect(!FileManager.default.fileExists(atPath: dir.file("small/a.jpg")))
        #expect(try dir.read("small/b.jpg") == Array("mine".utf8))
        let forced = try CLI.run(["image", "compress", a, b, "-o", dir.file("small"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try SyntheticImage.header(of: dir.read("small/b.jpg")).format == "jpeg")
    }

    @Test func imageCompressTrailingSlashIsANewFolder() throws {
        let dir = try TempFolder()
        let a = try dir.write("a.jpg", try SyntheticImage.jpeg(width: 600, height: 400, seed: 14))
        let r = try CLI.run(["image", "compress", a, "-o", dir.file("new/deeper/")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir.file("new/deeper/a.jpg")))
    }

    // MARK: files encrypt / decrypt

    @Test func filesEncryptNeverReplacesAnotherManifestsFiles() throws {
        let dir = try TempFolder()
        try dir.write("p/one.txt", testBytes(3000, seed: 1))
        try dir.write("p/two.txt", testBytes(5000, seed: 2))
        let first = try CLI.run(["files", "encrypt", dir.file("p"), "-o", dir.file("out"), "--manifest", dir.file("k1.json")])
        #expect(first.status == 0, "\(first.stderr)")
        let encrypted = try dir.read("out/p/one.txt")
        // Another manifest over the same output: refused before any work, the first keys still open the files.
        let second = try CLI.run(["files", "encrypt", dir.file("p"), "-o", dir.file("out"), "--manifest", dir.file("k4.json")])
        #expect(second.status == 1, "\(second.stdout)\(second.stderr)")
        #expect(second.stderr.contains("already exist") && second.stderr.contains("--force"), "\(second.stderr)")
        #expect(try dir.read("out/p/one.txt") == encrypted)
        let verify = try CLI.run(["files", "verify", "--manifest", dir.file("k1.json")])
        #expect(verify.status == 0, "\(verify.stderr)")
        // The same manifest again: its own files are done already.
        let rerun = try CLI.run(["files", "encrypt", dir.file("p"), "-o", dir.file("out"), "--manifest", dir.file("k1.json")])
        #expect(rerun.status == 0 && rerun.stdout.contains("2 skipped"), "\(rerun.stdout)\(rerun.stderr)")
        #expect(try dir.read("out/p/one.txt") == encrypted)
        // --force replaces them, with their keys in the new manifest.
        let forced = try CLI.run(["files", "encrypt", dir.file("p"), "-o", dir.file("out"), "--manifest", dir.file("k4.json"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try CLI.run(["files", "verify", "--manifest", dir.file("k4.json")]).status == 0)
    }

    @Test func filesDecryptNeverReplacesAnEditedFile() throws {
        let dir = try TempFolder()
        let plain = testBytes(4000, seed: 3)
        try dir.write("p/doc.txt", plain)
        let manifest = dir.file("keys.json")
        #expect(try CLI.run(["files", "encrypt", dir.file("p"), "--in-place", "--manifest", manifest]).status == 0)
        let dec = try CLI.run(["files", "decrypt", dir.file("p"), "--manifest", manifest, "-o", dir.file("dec")])
        #expect(dec.status == 0, "\(dec.stderr)")
        #expect(try Self.mode(dir.file("dec/p/doc.txt")) == 0o600)
        try dir.write("dec/p/doc.txt", Array("edited by hand".utf8))
        let again = try CLI.run(["files", "decrypt", dir.file("p"), "--manifest", manifest, "-o", dir.file("dec")])
        #expect(again.status == 1, "\(again.stdout)\(again.stderr)")
        #expect(again.stderr.contains("'\(dir.file("dec/p/doc.txt"))' already exists") && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(try dir.read("dec/p/doc.txt") == Array("edited by hand".utf8))
        let forced = try CLI.run(["files", "decrypt", dir.file("p"), "--manifest", manifest, "-o", dir.file("dec"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try dir.read("dec/p/doc.txt") == plain)
        // Into a file rather than a folder: a sentence.
        let intoFile = try CLI.run(["files", "decrypt", dir.file("p"), "--manifest", manifest, "-o", dir.file("dec/p/doc.txt")])
        #expect(intoFile.status == 1 && intoFile.stderr.contains("is a file, not a folder"), "\(intoFile.stderr)")
        Self.expectNoDump(intoFile)
    }

    @Test func filesDecryptDataDirRerunDoesNotDuplicate() throws {
        let s = try FilesSample()
        #expect(try s.run(["files", "encrypt", "--data-dir", s.root]).status == 0)
        let out = s.temp.file("export")
        let first = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", out])
        #expect(first.status == 0, "\(first.stderr)")
        let names = try FileManager.default.contentsOfDirectory(atPath: out).sorted()
        #expect(!names.isEmpty)
        let again = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", out])
        #expect(again.status == 1, "\(again.stdout)\(again.stderr)")
        #expect(again.stderr.contains("already exist") && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == names)
        let forced = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", out, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: out).sorted() == names)
    }

    // MARK: transfer

    struct Transfer {
        let temp: TempFolder
        var relay: String { temp.file("relay") }
        init() throws {
            temp = try TempFolder("sxkit-contract")
            try FileManager.default.createDirectory(atPath: temp.file("relay"), withIntermediateDirectories: true)
        }
        func send(_ path: String, _ extra: [String]) throws -> CLIResult {
            try CLI.run(["transfer", "send", path, "--relay", relay, "--temp-dir", temp.file("send-tmp")] + extra)
        }
        func receive(_ description: String, _ extra: [String]) throws -> CLIResult {
            try CLI.run(["transfer", "receive", description, "--temp-dir", temp.file("recv-tmp")] + extra)
        }
        /// Everything in the relay folder (chunks and their records).
        func relayEntries() throws -> Int { try FileManager.default.subpathsOfDirectory(atPath: relay).count }
    }

    @Test func transferSendIntoAFileRefusesBeforeUploading() throws {
        let t = try Transfer()
        let source = try t.temp.write("report.pdf", testBytes(300_000, seed: 4))
        let existing = try t.temp.write("notes.txt", Array("mine".utf8))
        let before = try t.relayEntries()
        let r = try t.send(source, ["-o", existing])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("is a file, not a folder"), "\(r.stderr)")
        Self.expectNoDump(r)
        #expect(try t.relayEntries() == before, "chunks were uploaded before the output was checked")
    }

    @Test func transferSendAgainRefusesThenForceLeavesNoStaleRecipient() throws {
        let t = try Transfer()
        let source = try t.temp.write("report.pdf", testBytes(300_000, seed: 5))
        let desc = t.temp.file("desc")
        let first = try t.send(source, ["-o", desc, "--recipients", "2"])
        #expect(first.status == 0, "\(first.stderr)")
        let sender = try t.temp.read("desc/report.pdf.sender.yaml")
        let before = try t.relayEntries()
        let again = try t.send(source, ["-o", desc])
        #expect(again.status == 1, "\(again.stdout)\(again.stderr)")
        #expect(again.stderr.contains("report.pdf.sender.yaml' and 2 more output(s) already exist") && again.stderr.contains("--force"),
                "\(again.stderr)")
        #expect(try t.temp.read("desc/report.pdf.sender.yaml") == sender)
        #expect(try t.relayEntries() == before, "chunks were uploaded before the descriptions were checked")
        let forced = try t.send(source, ["-o", desc, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try t.temp.read("desc/report.pdf.sender.yaml") != sender)
        #expect(!FileManager.default.fileExists(atPath: t.temp.file("desc/report.pdf.recipient-2.yaml")),
                "a recipient description of the earlier send survived")
        #expect(FileManager.default.fileExists(atPath: t.temp.file("desc/report.pdf.recipient-1.yaml")))
    }

    @Test func transferReceiveIsPrivateTakesAFolderWithSlashAndForce() throws {
        let t = try Transfer()
        let bytes = testBytes(200_000, seed: 6)
        let source = try t.temp.write("photo.bin", bytes)
        #expect(try t.send(source, ["-o", t.temp.file("desc")]).status == 0)
        let recipient = t.temp.file("desc/photo.bin.recipient-1.yaml")
        let got = try t.receive(recipient, ["-o", t.temp.file("inbox/new/")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try t.temp.read("inbox/new/photo.bin") == bytes)
        #expect(try Self.mode(t.temp.file("inbox/new/photo.bin")) == 0o600, "received plaintext is readable by others")
        try t.temp.write("inbox/new/photo.bin", Array("edited".utf8))
        let again = try t.receive(recipient, ["-o", t.temp.file("inbox/new/")])
        #expect(again.status == 1 && again.stderr.contains("already exists") && again.stderr.contains("--force"), "\(again.stderr)")
        #expect(try t.temp.read("inbox/new/photo.bin") == Array("edited".utf8))
        let forced = try t.receive(recipient, ["-o", t.temp.file("inbox/new/photo.bin"), "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(try t.temp.read("inbox/new/photo.bin") == bytes)
        #expect(try Self.mode(t.temp.file("inbox/new/photo.bin")) == 0o600)
    }

    @Test func transferInfoOfAJSONFileIsASentence() throws {
        let dir = try TempFolder()
        for (name, text) in [("keys.json", #"[{"filePath":"a","cryptoArgs":{"fileKey":"x","fileNonce":"y"}}]"#),
                             ("args.json", #"{"fileKey":"x","fileNonce":"y"}"#),
                             ("odd.json", #"{"party":"recipient","size":[1,2],"chunkSize":{"a":1},"replicas":"x"}"#)] {
            let path = try dir.write(name, Array(text.utf8))
            let r = try CLI.run(["transfer", "info", path])
            #expect(r.status == 1, "\(name): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.hasPrefix("sxkit: ") && r.stderr.split(separator: "\n").count == 1, "\(name): \(r.stderr)")
            Self.expectNoDump(r)
        }
    }

    /// A journal whose JSON has the wrong shape was told as `DecodingError.typeMismatch(…)`.
    @Test func aDamagedJournalIsToldInWords() throws {
        let s = try FilesSample()
        #expect(FileManager.default.createFile(atPath: s.chat + ".files-journal", contents: Data(#"{"op":"encrypt","path":7}"#.utf8 + [0x0A])))
        let r = try s.run(["files", "encrypt", "--data-dir", s.root])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("files journal") && r.stderr.contains("cannot be read"), "\(r.stderr)")
        Self.expectNoDump(r)
    }

    // MARK: archives

    /// An archive holds plaintext databases and files: the archive and every file imported from it
    /// are the user's only (chat files were imported 0644).
    @Test func archivesAndImportedFilesArePrivate() throws {
        let dir = try TempFolder()
        let source = try SampleCopies.create(at: dir.file("source"))
        let pass = try dir.write("pass", SampleDataDirectory.defaultPassphrase.copyBytes())
        let archive = dir.file("out.zip")
        let exported = try CLI.run(["archive", "export", archive, "--data-dir", source.directory.root, "--passphrase-file", pass])
        #expect(exported.status == 0, "\(exported.stderr)")
        #expect(try Self.mode(archive) == 0o600)
        let again = try CLI.run(["archive", "export", archive, "--data-dir", source.directory.root, "--passphrase-file", pass])
        #expect(again.status == 1 && again.stderr.contains("--force"), "\(again.stderr)")
        let target = dir.file("target")
        let imported = try CLI.run(["archive", "import", archive, "--data-dir", target, "--passphrase-file", pass])
        #expect(imported.status == 0, "\(imported.stderr)")
        let files = try FileManager.default.contentsOfDirectory(atPath: target + "/simplex_v1_files")
        #expect(!files.isEmpty)
        for name in files { #expect(try Self.mode(target + "/simplex_v1_files/" + name) == 0o600, "\(name)") }
    }

    // MARK: relay serve

    @Test func relayServeOnABusyPortIsASentence() throws {
        let occupied = try OccupiedLoopbackPort()
        let port = occupied.port
        let dir = try TempFolder()
        let r = try CLI.run(["relay", "serve", "--listen", "127.0.0.1:\(port)", "--store", dir.file("store")])
        #expect(r.status == 1, "\(r.stdout)\(r.stderr)")
        #expect(r.stderr.contains("Address already in use"), "\(r.stderr)")
        Self.expectNoDump(r)
        withExtendedLifetime(occupied) {}
    }
}
