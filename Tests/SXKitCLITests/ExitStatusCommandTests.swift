import Foundation
import SXCore
import SXImages
import SXSample
import SXTestSupport
import Testing

/// Exit statuses mean one thing in every command (README, "Exit status"): 0 done; 1 not done;
/// 2 the command line is wrong; 3 done, but some items failed, and only when something was done.
@Suite(.ownThreads) struct ExitStatusCommandTests {
    static let env = ["SXKIT_PASSPHRASE": "correct horse battery staple"]

    static func sample(_ dir: TempFolder) throws -> SampleDataDirectory {
        try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1, chatItems: 20))
    }

    @Test func aSingleMissingInputIsNotDone() throws {
        let dir = try TempFolder()
        let missing = dir.file("missing")
        let encrypt = try CLI.run(["files", "encrypt", missing, "-o", dir.file("out"), "--manifest", dir.file("m.json")])
        #expect(encrypt.status == 1, "\(encrypt.stdout) \(encrypt.stderr)")
        #expect(encrypt.stderr.contains(missing))
        let compress = try CLI.run(["image", "compress", missing, "-o", dir.file("small")])
        #expect(compress.status == 1, "\(compress.stdout) \(compress.stderr)")
        let plan = try CLI.run(["transfer", "plan", missing])
        #expect(plan.status == 1, "\(plan.stderr)")
    }

    @Test func nothingReadableIsNotDoneButSomethingDoneIsThree() throws {
        let dir = try TempFolder()
        try dir.write("in/bad1.jpg", Array("not a picture\n".utf8))
        try dir.write("in/bad2.png", [])
        let none = try CLI.run(["image", "compress", dir.file("in"), "-o", dir.file("out")])
        #expect(none.status == 1, "no image was compressed: \(none.stdout) \(none.stderr)")
        try dir.write("in/good.jpg", try SyntheticImage.jpeg(width: 300, height: 200, seed: 4))
        let some = try CLI.run(["image", "compress", dir.file("in"), "-o", dir.file("out2")])
        #expect(some.status == 3, "\(some.stdout) \(some.stderr)")

        let good = try dir.write("good", Array("ok".utf8))
        let mixed = try CLI.run(["files", "encrypt", good, dir.file("missing"), "-o", dir.file("enc"), "--manifest", dir.file("m.json")])
        #expect(mixed.status == 3, "\(mixed.stderr)")
    }

    @Test func aMissingManifestIsNotDone() throws {
        let dir = try TempFolder()
        let file = try dir.write("file", Array("x".utf8))
        let manifest = dir.file("no-such-manifest.json")
        for arguments in [["files", "decrypt", file, "--manifest", manifest, "-o", dir.file("out")],
                          ["files", "verify", file, "--manifest", manifest],
                          ["files", "verify", "--manifest", manifest],
                          ["files", "cat", file, "--manifest", manifest]] {
            let r = try CLI.run(arguments)
            #expect(r.status == 1, "\(arguments): \(r.status) \(r.stdout) \(r.stderr)")
            #expect(r.stderr.contains(manifest), "\(arguments): \(r.stderr)")
        }
    }

    @Test func notARegularFileIsTheSameStatusInEveryCommand() throws {
        let dir = try TempFolder()
        let device = "/dev/null"
        try FileManager.default.createDirectory(atPath: dir.file("relay"), withIntermediateDirectories: true)
        let runs: [[String]] = [
            ["files", "encrypt", device, "-o", dir.file("out"), "--manifest", dir.file("m.json")],
            ["image", "compress", device, "-o", dir.file("small")],
            ["transfer", "plan", device],
            ["transfer", "send", device, "--relay", dir.file("relay"), "-o", dir.file("desc"), "--temp-dir", dir.file("tmp")],
        ]
        for arguments in runs {
            let r = try CLI.run(arguments)
            #expect(r.status == 1, "\(arguments): \(r.status) \(r.stderr)")
            #expect(r.stderr.contains("not a regular file"), "\(arguments): \(r.stderr)")
        }
    }

    @Test func inspectingWhatIsNotADataDirectoryFails() throws {
        let dir = try TempFolder()
        let jpeg = try dir.write("photo.jpg", try SyntheticImage.jpeg(width: 64, height: 48, seed: 1))
        try FileManager.default.createDirectory(atPath: dir.file("empty"), withIntermediateDirectories: true)
        let cases: [(String, String)] = [(dir.file("nowhere"), "there is no data directory"), (jpeg, "is not a folder"),
                                         (dir.file("empty"), "holds neither")]
        for (path, sentence) in cases {
            // storage and clean say themselves what does not look like a data directory (an empty folder).
            let commands = [["db", "inspect"], ["db", "test-key"], ["db", "status"], ["files", "encrypt"], ["archive", "export", dir.file("a.zip")]]
                + (path == dir.file("empty") ? [] : [["storage"], ["clean", "--temp", "--yes"]])
            for command in commands {
                let r = try CLI.run(command + ["--data-dir", path], environment: Self.env)
                #expect(r.status == 1, "\(command) \(path): \(r.status) \(r.stdout) \(r.stderr)")
                #expect(r.stderr.contains(sentence), "\(command) \(path): \(r.stderr)")
                #expect(r.stdout.isEmpty, "\(command) \(path): \(r.stdout)")
            }
        }
        let noFile = try CLI.run(["db", "inspect", "--db", dir.file("nowhere.db")])
        #expect(noFile.status == 1 && noFile.stderr.contains("there is no database file"), "\(noFile.stderr)")
    }

    @Test func helpOnAnUnknownCommandIsAUsageError() throws {
        let bogus = try CLI.run(["help", "bogus"])
        #expect(bogus.status == 2, "\(bogus.stdout)")
        #expect(bogus.stderr.contains("there is no command `sxkit bogus`") && bogus.stderr.contains("db, archive"), "\(bogus.stderr)")
        let deeper = try CLI.run(["help", "db", "bogus"])
        #expect(deeper.status == 2 && deeper.stderr.contains("inspect, test-key"), "\(deeper.stderr)")
        let known = try CLI.run(["help", "db", "inspect"])
        #expect(known.status == 0 && known.stdout.contains("USAGE: sxkit db inspect"), "\(known.stdout)")
    }

    static func onTerminal(_ arguments: [String], answer: String, environment: [String: String]) throws -> (status: Int32, output: String) {
        try CLI.onTerminal(arguments, answer: answer, environment: environment)
    }

    @Test func decliningAPromptIsNotDoneNotAUsageError() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return }
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let before = try FolderSnapshot.take(sample.directory.root)
        let environment = Self.env.merging(["TMPDIR": dir.path]) { $1 }
        let declined = try Self.onTerminal(["clean", "--orphans", "--data-dir", sample.directory.root], answer: "n", environment: environment)
        #expect(declined.output.contains("[y/N]") && declined.output.contains("not confirmed"), "\(declined.output)")
        #expect(declined.status == 1)
        let noTerminal = try CLI.run(["clean", "--orphans", "--data-dir", sample.directory.root], environment: environment)
        #expect(noTerminal.status == 1 && noTerminal.stderr.contains("add --yes"), "\(noTerminal.stderr)")
        #expect(try FolderSnapshot.take(sample.directory.root) == before)
    }
}
