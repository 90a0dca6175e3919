import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport

/// `sxkit storage` and `sxkit clean` end to end, including every bad input of issue 6 they own.
@Suite(.ownThreads) struct CareCommandTests {
    static let env = ["SXKIT_PASSPHRASE": "correct horse battery staple"]

    struct Fixture {
        let folder: TempFolder
        let sample: SampleDataDirectory
        var root: String { sample.directory.root }
        var files: String { sample.directory.filesFolder! }
        var orphan: String { Path.join(files, SampleDataDirectory.orphanFile) }
        var tempFile: String { Path.join(sample.directory.primaryTempFolder, "download_part.tmp") }

        init() throws {
            folder = try TempFolder("sxkit-care-cli")
            sample = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 3, chatItems: 50))
        }

        /// Runs sxkit with `$TMPDIR` inside the fixture, so the desktop UI's temp folder (`$TMPDIR/simplex`)
        /// is never the machine's real `/tmp/simplex`.
        func run(_ arguments: [String], environment: [String: String] = CareCommandTests.env, prefix: [String] = []) throws -> CLIResult {
            try CLI.run(arguments + ["--data-dir", root], environment: environment.merging(["TMPDIR": folder.path]) { $1 }, prefix: prefix)
        }

        func snapshot() throws -> FolderSnapshot { try FolderSnapshot.take(root) }
    }

    static func exists(_ path: String) -> Bool { POSIXFile.linkStatus(path) != nil }

    /// The cells after `label` on its table row (columns are separated by two or more spaces).
    static func row(_ label: String, in text: String) -> [String]? {
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("  " + label + "  ") }) else { return nil }
        return line.dropFirst(2 + label.count).components(separatedBy: "  ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    @Test func storagePrintsTheTableAndJSONAndChangesNothing() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let text = try f.run(["storage"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(Self.row("referenced but missing", in: text.stdout) == ["2", "(2.00 MiB in the DB)"], "\(text.stdout)")
        #expect(Self.row("orphans (not referenced)", in: text.stdout)?.first == "1", "\(text.stdout)")
        #expect(Self.row("sxkit clean --temp", in: text.stdout) == ["1", "4.00 KiB"], "\(text.stdout)")
        let json = try f.run(["storage", "--json"])
        #expect(json.status == 0)
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let files = try #require(doc["files"] as? [String: Any])
        #expect((files["orphans"] as? [String: Any])?["count"] as? Int == 1)
        #expect((files["referencedMissing"] as? [String: Any])?["count"] as? Int == 2)
        #expect((files["referencedEncrypted"] as? [String: Any])?["count"] as? Int == f.sample.files.filter { $0.encrypted && $0.referenced }.count)
        let reclaim = try #require(doc["reclaimable"] as? [[String: Any]])
        #expect(reclaim.map { $0["category"] as? String } == ["temp", "orphans", "leftovers", "all-files", "everything"])
        let after = try f.snapshot()
        #expect(before == after, "storage changed: \(before.differences(from: after))")
    }

    @Test func dryRunRemovesNothing() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let run = try f.run(["clean", "--orphans", "--temp", "--leftovers", "--dry-run"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.contains("Dry run: nothing was removed."))
        #expect(run.stdout.contains("orphans (not referenced)      1"), "\(run.stdout)")
        #expect(try f.snapshot() == before)
    }

    @Test func cleanWithYesRemovesOrphansAndTempAndReportsPerCategory() throws {
        let f = try Fixture()
        let run = try f.run(["clean", "--orphans", "--temp", "--yes", "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(run.stdout.utf8)) as? [String: Any])
        let removed = try #require(doc["removed"] as? [[String: Any]])
        #expect(removed.map { $0["category"] as? String } == ["temp", "orphans"])
        #expect(!Self.exists(f.orphan) && !Self.exists(f.tempFile))
        for file in f.sample.files where file.referenced { #expect(Self.exists(Path.join(f.files, file.name))) }
    }

    @Test func allFilesCountsCryptoFilesAndPlaintextApart() throws {
        let f = try Fixture()
        let run = try f.run(["clean", "--all-files", "--yes"])
        #expect(run.status == 0, "\(run.stderr)")
        let encrypted = f.sample.files.filter { $0.encrypted && $0.referenced }.count
        #expect(run.stdout.contains("referenced CryptoFiles          \(encrypted)"), "\(run.stdout)")
        #expect(Self.exists(f.sample.directory.chatDatabase))
    }

    @Test func withoutATerminalOrYesNothingIsRemoved() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let run = try f.run(["clean", "--orphans"])
        #expect(run.status == 1, "not confirmed: not done")
        #expect(run.stderr.contains("add --yes"), "\(run.stderr)")
        #expect(try f.snapshot() == before)
    }

    @Test func everythingWithoutConfirmationIsRefused() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let run = try f.run(["clean", "--everything"])
        #expect(run.status == 2)
        #expect(run.stderr.contains("--everything removes the databases too"), "\(run.stderr)")
        #expect(try f.snapshot() == before)
        let yes = try f.run(["clean", "--everything", "--yes"])
        #expect(yes.status == 0, "\(yes.stderr)")
        #expect(!Self.exists(f.sample.directory.chatDatabase) && !Self.exists(f.sample.directory.agentDatabase))
    }

    @Test func wrongPassphraseDeletesNothing() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let run = try f.run(["clean", "--orphans", "--temp", "--yes"], environment: ["SXKIT_PASSPHRASE": "wrong"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("the passphrase is wrong: it does not open"), "\(run.stderr)")
        #expect(try f.snapshot() == before)
    }

    @Test func missingFilesFolderIsReportedAndCleanGoesOn() throws {
        let f = try Fixture()
        try FileManager.default.removeItem(atPath: f.files)
        let storage = try f.run(["storage"])
        #expect(storage.status == 0, "\(storage.stderr)")
        #expect(storage.stdout.contains("does not exist"), "\(storage.stdout)")
        let clean = try f.run(["clean", "--orphans", "--yes"])
        #expect(clean.status == 0, "\(clean.stderr)")
        #expect(clean.stdout.contains("Nothing to remove"))
    }

    @Test func readOnlyFilesFolderReportsEachFailureAndGoesOn() throws {
        let f = try Fixture()
        chmod(f.files, 0o555)
        defer { chmod(f.files, 0o755) }
        // As root, a read-only folder only binds without CAP_DAC_OVERRIDE: run sxkit without it.
        let dropRoot = ["/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--inh-caps", "-all", "--"]
        let run = try f.run(["clean", "--orphans", "--temp", "--yes"], prefix: getuid() == 0 ? dropRoot : [])
        #expect(run.status == 3, "\(run.stdout)\(run.stderr)")
        #expect(run.stderr.contains("cannot delete '\(f.orphan)': Permission denied"), "\(run.stderr)")
        #expect(Self.exists(f.orphan))
        #expect(!Self.exists(f.tempFile), "the temp file is removed all the same")
        #expect(run.stdout.contains("1 file(s) could not be removed"))
    }

    @Test func databaseHeldByAnotherProcessIsRefused() throws {
        let f = try Fixture()
        let before = try f.snapshot()
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl,sys,time\nf=open(sys.argv[1],'rb')\nfcntl.lockf(f,fcntl.LOCK_SH,510,0x40000002,0)\nprint('locked',flush=True)\ntime.sleep(30)",
                            f.sample.directory.agentDatabase]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        _ = out.fileHandleForReading.availableData
        let run = try f.run(["clean", "--temp", "--yes"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("is open in another program"), "\(run.stderr)")
        #expect(try f.snapshot() == before)
    }

    @Test func folderThatIsNotADataDirectoryIsRefused() throws {
        let tmp = try TempFolder()
        try tmp.write("tmp/keep.bin", [1, 2, 3])
        try tmp.write("notes.txt", [1])
        let before = try FolderSnapshot.take(tmp.path)
        let run = try CLI.run(["clean", "--temp", "--yes", "--data-dir", tmp.path], environment: ["TMPDIR": tmp.path])
        #expect(run.status == 1)
        #expect(run.stderr.contains("does not look like a SimpleX data directory"), "\(run.stderr)")
        #expect(try FolderSnapshot.take(tmp.path) == before)
    }

    @Test func olderThanKeepsNewerTempFiles() throws {
        let f = try Fixture()
        let old = try f.folder.write("data/tmp/old.part", [1, 2, 3])
        var times = [timespec(tv_sec: time(nil) - 3 * 86400, tv_nsec: 0), timespec(tv_sec: time(nil) - 3 * 86400, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, old, &times, 0)
        let run = try f.run(["clean", "--temp", "--older-than", "2d", "--yes"])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(!Self.exists(old))
        #expect(Self.exists(f.tempFile))
        #expect(run.stdout.contains("modified more recently than the age given are kept"), "\(run.stdout)")
    }

    @Test func leftoversOfAnInterruptedRekeyAreKept() throws {
        let f = try Fixture()
        let exported = try f.folder.write("data/simplex_v1_chat.db.exported", [1, 2, 3])
        let run = try f.run(["clean", "--leftovers", "--yes"])
        #expect(run.status == 1)
        #expect(run.stderr.contains("run `sxkit db recover`"), "\(run.stderr)")
        #expect(Self.exists(exported))
    }

    /// Runs sxkit on a pseudo-terminal (util-linux `script`), typing `answer` once it has had time to
    /// ask. Returns the terminal's output (stdout and stderr together) and sxkit's exit status.
    func onTerminal(_ f: Fixture, _ arguments: [String], answer: String) throws -> (status: Int32, output: String) {
        try CLI.onTerminal(arguments + ["--data-dir", f.root], answer: answer,
                           environment: CareCommandTests.env.merging(["TMPDIR": f.folder.path]) { $1 })
    }

    @Test func onATerminalItAsksAndEverythingNeedsTheNameTyped() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let f = try Fixture()
        let before = try f.snapshot()
        let wrongName = try onTerminal(f, ["clean", "--everything", "--yes"], answer: "not-it")
        #expect(wrongName.output.contains("Type its name (data) to go on"), "\(wrongName.output)")
        #expect(wrongName.output.contains("the name typed does not match"), "\(wrongName.output)")
        #expect(wrongName.status == 1)
        let declined = try onTerminal(f, ["clean", "--orphans"], answer: "n")
        #expect(declined.output.contains("[y/N]"), "\(declined.output)")
        #expect(declined.status == 1)
        #expect(try f.snapshot() == before)
        let accepted = try onTerminal(f, ["clean", "--orphans"], answer: "y")
        #expect(accepted.output.contains("Removed"), "\(accepted.output)")
        #expect(accepted.status == 0)
        #expect(!Self.exists(f.orphan))
        let everything = try onTerminal(f, ["clean", "--everything", "--yes"], answer: "data")
        #expect(everything.output.contains("databases and companions"), "\(everything.output)")
        #expect(!Self.exists(f.sample.directory.chatDatabase))
    }
}
