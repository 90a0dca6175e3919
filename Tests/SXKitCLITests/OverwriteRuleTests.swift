import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// One overwrite rule, everywhere: `--force` means only "replace what is there", an existing profile
/// is replaced only with `--force`, and `-o dir/` is a folder for every command that has `-o`.
@Suite(.ownThreads) struct OverwriteRuleTests {
    @Test func archiveImportOverAProfileNeedsForce() throws {
        let f = try ArchiveImportCommandTests.Fixture()
        let target = try f.target("existing")
        let before = try FolderSnapshot.take(target)
        let refused = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--passphrase-file", f.newPass])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("'\(target)' already holds a profile ('simplex_v1_chat.db'); nothing was changed"), "\(refused.stderr)")
        #expect(refused.stderr.contains("pass --force to import over this profile"), "\(refused.stderr)")
        #expect(try FolderSnapshot.take(target) == before)
        let forced = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass])
        #expect(forced.status == 0, "\(forced.stderr)")
        try f.expectWhole(target, new: true)
    }

    @Test func migrateReceiveReplaceIsAHiddenDeprecatedForce() throws {
        let dir = try TempFolder()
        let r = try CLI.run(["migrate", "receive", dir.file("missing.yaml"), "--data-dir", dir.file("data"), "--replace"])
        #expect(r.stderr.contains("sxkit: note: --replace is deprecated; use --force"), "\(r.stderr)")
        let help = try CLI.run(["migrate", "receive", "--help"])
        #expect(help.stdout.contains("--force") && !help.stdout.contains("--replace"), "\(help.stdout)")
    }

    @Test func transferSendForceNoLongerLiftsTheSizeLimit() throws {
        let dir = try TempFolder()
        try FileManager.default.createDirectory(atPath: dir.file("relay"), withIntermediateDirectories: true)
        let big = try dir.write("big.bin", [])
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTP + 1)) == 0)
        func send(_ file: String, _ extra: [String]) throws -> CLIResult {
            try CLI.run(["transfer", "send", file, "--relay", dir.file("relay"), "-o", dir.file("desc"), "--temp-dir", dir.file("tmp")] + extra)
        }
        let forced = try send(big, ["--force"])
        #expect(forced.status == 1 && forced.stderr.contains("--above-soft-limit allows relay transfers"), "\(forced.stderr)")
        // Above the hard limit the new flag reaches its own refusal (nothing is uploaded either way).
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTPHard + 1)) == 0)
        let hard = try send(big, ["--above-soft-limit"])
        #expect(hard.status == 1 && hard.stderr.contains("MAX_FILE_SIZE_XFTP_HARD"), "\(hard.stderr)")
        // And the size flag does not replace descriptions of an earlier send: of this very file,
        // it was sent (nothing is written); of another version, they are refused.
        let small = try dir.write("small.bin", testBytes(300_000, seed: 4))
        #expect(try send(small, []).status == 0)
        let described = try dir.read("desc/small.bin.sender.yaml")
        let same = try send(small, ["--above-soft-limit"])
        #expect(same.status == 0 && same.stdout.contains("already sent small.bin"), "\(same.stdout)\(same.stderr)")
        #expect(try dir.read("desc/small.bin.sender.yaml") == described)
        _ = try dir.write("small.bin", testBytes(300_000, seed: 5))
        let again = try send(small, ["--above-soft-limit"])
        #expect(again.status == 1 && again.stderr.contains("small.bin.sender.yaml' and 1 more output(s) already exist"), "\(again.stderr)")
        #expect(try dir.read("desc/small.bin.sender.yaml") == described)
        #expect(try send(small, ["--force"]).status == 0)
    }

    @Test func transferPlanKeepsForceAsADeprecatedAlias() throws {
        let dir = try TempFolder()
        let big = try dir.write("big.bin", [])
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTP + 1)) == 0)
        for flag in ["--above-soft-limit", "--force"] {
            let r = try CLI.run(["transfer", "plan", flag, "--json", big])
            #expect(r.status == 0 && r.stdout.contains(#""method":"relay""#), "\(flag): \(r.stdout)\(r.stderr)")
            #expect(r.stderr.contains("--force is deprecated; use --above-soft-limit") == (flag == "--force"), "\(r.stderr)")
        }
    }

    /// `-o newfolder/` (a trailing slash) is a folder, created when missing, for every command with `-o`.
    @Test func aTrailingSlashMakesAFolderForEveryCommand() throws {
        let dir = try TempFolder()
        let sample = try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 5))
        let pass = try dir.write("pass", SampleDataDirectory.defaultPassphrase.copyBytes())
        let plain = try dir.write("in/report.txt", testBytes(2000, seed: 1))
        try dir.write("img/photo.jpg", try SyntheticImage.jpeg(width: 300, height: 200, seed: 1))
        try FileManager.default.createDirectory(atPath: dir.file("relay"), withIntermediateDirectories: true)
        let manifest = dir.file("keys.json")
        let sent = dir.file("new-send/desc/")
        let commands: [(name: String, arguments: [String], expected: String)] = [
            ("files encrypt", ["files", "encrypt", plain, "--manifest", manifest, "-o", dir.file("new-enc/a/")], "new-enc/a/report.txt"),
            ("files decrypt", ["files", "decrypt", dir.file("new-enc/a/report.txt"), "--manifest", manifest, "-o", dir.file("new-dec/a/")],
             "new-dec/a/report.txt"),
            ("image compress", ["image", "compress", dir.file("img/photo.jpg"), "-o", dir.file("new-img/a/")], "new-img/a/photo.jpg"),
            ("archive export", ["archive", "export", dir.file("new-archive/a/"), "--data-dir", sample.directory.root, "--passphrase-file", pass],
             "new-archive/a/"),
            ("transfer send", ["transfer", "send", plain, "--relay", dir.file("relay"), "-o", sent, "--temp-dir", dir.file("tmp")],
             "new-send/desc/report.txt.sender.yaml"),
            ("transfer receive", ["transfer", "receive", sent + "report.txt.recipient-1.yaml", "-o", dir.file("new-recv/a/"), "--temp-dir", dir.file("tmp")],
             "new-recv/a/report.txt"),
            ("migrate send", ["migrate", "send", "--data-dir", sample.directory.root, "--relay", dir.file("relay"), "-o", dir.file("new-migrate/a/"),
                              "--passphrase-file", pass], "new-migrate/a/"),
        ]
        for command in commands {
            let r = try CLI.run(command.arguments)
            #expect(r.status == 0, "\(command.name): \(r.stderr)")
            let expected = dir.file(command.expected)
            if expected.hasSuffix("/") {
                let written = (try? FileManager.default.contentsOfDirectory(atPath: expected)) ?? []
                #expect(!written.isEmpty, "\(command.name) wrote nothing into \(expected)")
            } else {
                #expect(FileManager.default.fileExists(atPath: expected), "\(command.name) did not write \(expected): \(r.stdout)")
            }
        }
        let archives = try FileManager.default.contentsOfDirectory(atPath: dir.file("new-archive/a"))
        #expect(archives.count == 1 && archives[0].hasPrefix("simplex-chat.") && archives[0].hasSuffix(".zip"), "\(archives)")
    }
}
