import Foundation
import SXCore
import SXSample
import SXTestSupport
import SXTransfer
import Testing

/// Writes past the file-size limit (`ulimit -f`, here `prlimit --fsize`) fail with EFBIG and are
/// reported like a full disk: exit status 1, one sentence, nothing left behind. Before sxkit ignored
/// SIGXFSZ, its default action ended the process mid-write (status 153 from a shell) and left the
/// partial files.
@Suite(.ownThreads) struct FileSizeLimitTests {
    static let passphrase = "correct horse battery staple"
    /// 256 KiB: smaller than the sample's archive and its chat database's export copy.
    /// SIGXFSZ back to its default action first: the test runner ignores it, and children inherit that.
    static let limit = limit(bytes: 262_144)

    static func limit(bytes: Int) -> [String] {
        ["/usr/bin/env", "--default-signal=XFSZ", "/usr/bin/prlimit", "--fsize=\(bytes)", "--"]
    }

    static func sample(_ folder: TempFolder) throws -> SampleDataDirectory {
        try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 1, chatItems: 600))
    }

    /// Every file's name, size and bytes (folders' times change when a temp file comes and goes).
    static func files(_ root: String) throws -> [String: String] {
        try FolderSnapshot.take(root).entries.filter { $0.value.bytes != nil }.mapValues { "\($0.size) \($0.bytes!.hashValue)" }
    }

    @Test func archiveExportPastTheLimitIsAnErrorAndLeavesNothing() throws {
        let folder = try TempFolder()
        let sample = try Self.sample(folder)
        try Folders.create(folder.file("out"))
        let r = try CLI.run(["archive", "export", folder.file("out/archive.zip"), "--data-dir", sample.directory.root],
                            environment: ["SXKIT_PASSPHRASE": Self.passphrase], prefix: Self.limit)
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(try Folders.names(in: folder.file("out")).isEmpty, "nothing left in the output folder")
    }

    @Test func rekeyPastTheLimitIsAnErrorAndChangesNothing() throws {
        let folder = try TempFolder()
        let sample = try Self.sample(folder)
        let before = try Self.files(sample.directory.root)
        let newFile = folder.file("new-passphrase")
        try AtomicFileWriter.write(Array("another passphrase".utf8), to: newFile, mode: 0o600)
        let r = try CLI.run(["db", "rekey", "--data-dir", sample.directory.root, "--new-passphrase-file", newFile, "--quiet"],
                            environment: ["SXKIT_PASSPHRASE": Self.passphrase], prefix: Self.limit)
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(try Self.files(sample.directory.root) == before, "the profile is as it was, with no leftover")
    }

    /// The error is one line, `sxkit: ` and a sentence, with no crash report after it.
    static func expectOneSentence(_ r: CLIResult, _ cause: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 1, "status \(r.status) (a signal's number when it crashed): \(r.stderr)", sourceLocation: sourceLocation)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("sxkit: ") && r.stderr.contains(cause), "\(r.stderr)", sourceLocation: sourceLocation)
    }

    /// Every name under `root`, folders included, as paths relative to it.
    static func names(_ root: String) -> [String] {
        (FileManager.default.enumerator(atPath: root)?.allObjects as? [String] ?? []).sorted()
    }

    /// A WAL database closed cleanly has no `-wal`; a passphrase change that fails must not leave one
    /// (it did: the lock's connection keeps its WAL file at close, for the swap's sake). The
    /// databases still open with the old passphrase, and nothing else is left either.
    @Test func rekeyPastTheLimitLeavesNoWALBesideAWALDatabase() throws {
        let folder = try TempFolder()
        let sample = try SampleCopies.create(at: folder.file("data"),
                                                    options: .init(photos: 1, documents: 1, chatItems: 600, walMode: true))
        let databases = ["simplex_v1_chat.db", "simplex_v1_agent.db"].map { Path.join(sample.directory.root, $0) }
        for db in databases { #expect(POSIXFile.linkStatus(db + "-wal") == nil, "the sample's \(db) has a -wal already") }
        let before = try Self.files(sample.directory.root)
        let newFile = folder.file("new-passphrase")
        try AtomicFileWriter.write(Array("another passphrase".utf8), to: newFile, mode: 0o600)
        let r = try CLI.run(["db", "rekey", "--data-dir", sample.directory.root, "--new-passphrase-file", newFile, "--quiet"],
                            environment: ["SXKIT_PASSPHRASE": Self.passphrase], prefix: Self.limit)
        Self.expectOneSentence(r, "File too large")
        for db in databases {
            #expect(POSIXFile.linkStatus(db + "-wal") == nil && POSIXFile.linkStatus(db + "-shm") == nil, "\(db) has a -wal or -shm now")
            #expect(opens(db, Self.passphrase) && !opens(db, "another passphrase"))
        }
        #expect(try Self.files(sample.directory.root) == before, "the profile is as it was, with no leftover")
    }

    /// `archive import` of an archive larger than the limit: refused with the data directory and
    /// the temp folder (where the passphrase is tested on copies) as they were.
    @Test func archiveImportPastTheLimitLeavesNothing() throws {
        let folder = try TempFolder()
        let sample = try Self.sample(folder)
        let archive = folder.file("archive.zip")
        let exported = try CLI.run(["archive", "export", archive, "--data-dir", sample.directory.root, "--quiet"],
                                   environment: ["SXKIT_PASSPHRASE": Self.passphrase])
        #expect(exported.status == 0, "\(exported.stderr)")
        try Folders.create(folder.file("target"))
        try Folders.create(folder.file("tmp"))
        let r = try CLI.run(["archive", "import", archive, "--data-dir", folder.file("target"), "--quiet"],
                            environment: ["SXKIT_PASSPHRASE": Self.passphrase, "TMPDIR": folder.file("tmp")], prefix: Self.limit)
        Self.expectOneSentence(r, "File too large")
        #expect(Self.names(folder.file("target")).isEmpty, "\(Self.names(folder.file("target")))")
        #expect(Self.names(folder.file("tmp")).isEmpty, "\(Self.names(folder.file("tmp")))")
    }

    /// `files encrypt --in-place` of a file larger than the limit: the file is as it was, no temp
    /// file is left beside it, and no key was recorded for it.
    @Test func filesEncryptInPlacePastTheLimitLeavesTheFileAsItWas() throws {
        let folder = try TempFolder()
        let big = try folder.write("docs/big.bin", testBytes(400_000, seed: 3))
        let small = try folder.write("docs/small.bin", testBytes(1000, seed: 4))
        let (bigHash, smallHash) = (try sha256(big), try sha256(small))
        let r = try CLI.run(["files", "encrypt", folder.file("docs"), "--in-place", "--manifest", folder.file("keys.json"), "--jobs", "1"],
                            prefix: Self.limit)
        #expect(r.status == 1 || r.status == 3, "status \(r.status) (a signal's number when it crashed): \(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(try sha256(big) == bigHash, "the file that did not fit is as it was")
        #expect(try sha256(small) != smallHash, "the file that fits is encrypted")
        #expect(Self.names(folder.file("docs")) == ["big.bin", "small.bin"])
        let manifest = String(decoding: try FileBytes.read(folder.file("keys.json"), limit: 1 << 20), as: UTF8.self)
        #expect(manifest.contains("small.bin") && !manifest.contains("big.bin"), "\(manifest)")
    }

    /// A transfer received while decrypting as it downloads (the destination has room), past the
    /// limit: no crash, the one sentence, no plaintext left in the destination; the verified chunks
    /// stay for the rerun, which finishes without the limit.
    @Test func transferReceivePastTheLimitDecryptingWhileDownloading() throws {
        let s = try TransferCommandTests.Setup()
        // Chunks of 4 MiB and 1 MiB fit under 5 MiB; the 6 MiB plaintext does not.
        let original = try s.file("six.bin", size: 6 << 20)
        #expect(try s.send(original, ["--quiet"]).status == 0)
        let description = Path.join(s.descriptions, "six.bin.recipient-1.yaml")
        let r = try s.receive(description, ["--quiet"], prefix: Self.limit(bytes: 5 << 20))
        Self.expectOneSentence(r, "File too large")
        #expect(Self.names(s.inbox).isEmpty, "\(Self.names(s.inbox))")
        let again = try s.receive(description, ["--quiet"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try sha256(Path.join(s.inbox, "six.bin")) == sha256(original))
        #expect(Self.names(s.inbox) == ["six.bin"])
    }

    /// `migrate receive` past the limit, which the chunks fit under but the archive does not: the
    /// one sentence, no crash, and nothing in the data directory but its empty temp folder. The
    /// chunks downloaded before the write failed used to stay in it after "nothing was replaced";
    /// they go with the error now (the user has to free space first, and the relay still has
    /// them). The rerun without the limit moves the profile.
    @Test func migrateReceivePastTheLimitLeavesNothing() throws {
        let s = try MigrateCommandTests.Setup()
        // Incompressible files make the archive several chunks long.
        for i in 0..<3 {
            let pad = Path.join(s.source.directory.filesFolder!, "pad_\(i).bin")
            try AtomicFileWriter.write(testBytes(3 << 20, seed: 40 + i), to: pad)
        }
        #expect(try s.send().status == 0)
        let yaml = String(decoding: try FileBytes.read(try s.recipientDescription(), limit: 1 << 20), as: UTF8.self)
        let description = try FileDescription.parse(yaml: yaml)
        let largest = try #require(description.chunks.map(\.size).max())
        #expect(description.chunks.count > 1 && largest < description.size - largest, "the archive spans several chunks")
        let r = try CLI.run(["migrate", "receive", try s.recipientDescription(), "--data-dir", s.target, "--passphrase-file", s.pass, "--quiet"],
                            prefix: Self.limit(bytes: Int(largest + (description.size - largest) / 2)))
        Self.expectOneSentence(r, "File too large")
        #expect(Self.names(s.target) == ["tmp"], "left in the data directory: \(Self.names(s.target))")
        let again = try s.receive()
        #expect(again.status == 0, "\(again.stderr)")
        try s.expectMoved()
        try s.expectNoWorkLeft()
    }

    /// Whether this machine lets an unprivileged test mount a tmpfs of its own (user namespaces).
    static let canMountTmpfs: Bool = shell("/usr/bin/unshare -rm /bin/sh -c 'mount -t tmpfs -o size=1m tmpfs /mnt' 2>/dev/null") == 0

    /// A receive into a destination without room to decrypt while downloading (a 128 MiB tmpfs:
    /// the 41 MiB of chunks, 41 MiB of plaintext and 64 MiB to spare do not fit, so the file is
    /// decrypted after the download, chunk by chunk), past the limit. Before the read-ahead's
    /// semaphore was made by `DispatchSemaphore.slots`, this died by SIGILL (status 132 from the
    /// shell) with 5 MiB of partial plaintext left in the destination: the write failed while the
    /// read-ahead held buffers, more than its 8 in the file. The tmpfs lives in the command's own
    /// mount namespace, so the checks and the rerun run in there too; they print what the test
    /// asserts on.
    @Test(.enabled(if: canMountTmpfs, "needs user namespaces to mount a tmpfs"))
    func transferReceivePastTheLimitDecryptingAfterTheDownload() throws {
        let s = try TransferCommandTests.Setup()
        let original = try s.file("forty.bin", size: 40 << 20)
        #expect(try s.send(original, ["--quiet"]).status == 0)
        let description = Path.join(s.descriptions, "forty.bin.recipient-1.yaml")
        let mountPoint = s.temp.file("small-disk")
        try Folders.create(mountPoint)
        let script = """
            set -u
            mount -t tmpfs -o size=128m tmpfs "$1" || exit 99
            mkdir "$1/inbox"
            env --default-signal=XFSZ prlimit --fsize=\(5 << 20) -- "$2" transfer receive "$3" -o "$1/inbox" --temp-dir "$1/recv-tmp" --quiet
            echo "first=$?"
            echo "left=$(ls -A "$1/inbox" | tr '\\n' ' ')"
            "$2" transfer receive "$3" -o "$1/inbox" --temp-dir "$1/recv-tmp" --quiet
            echo "second=$?"
            echo "inbox=$(ls -A "$1/inbox" | tr '\\n' ' ')"
            echo "hash=$(sha256sum "$1/inbox/forty.bin" | cut -d' ' -f1)"
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "/bin/sh", "-c", script, "sh", mountPoint, CLI.binary, description]
        let r = try capture(process)
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        // 132 from the shell was SIGILL (128 + 4).
        #expect(lines.contains("first=1"), "\(r.stdout) \(r.stderr)")
        let errors = r.stderr.split(separator: "\n")
        #expect(errors.count == 1 && errors[0].hasPrefix("sxkit: ") && r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(lines.contains("left="), "plaintext left in the destination: \(r.stdout)")
        #expect(lines.contains("second=0") && lines.contains("inbox=forty.bin "), "\(r.stdout)")
        #expect(lines.contains("hash=\(try sha256(original))"), "\(r.stdout)")
    }
}
