import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// Secrets and the command line: never echoed, always a way to give one, one wording for a wrong
/// passphrase, and `--no-passphrase` named for a plaintext database, in every command.
@Suite(.ownThreads) struct PassphraseCommandLineTests {
    static let passphrase = "correct horse battery staple"
    static let secret = "hunter2-do-not-echo"

    static func sample(_ dir: TempFolder, passphrase: String = passphrase) throws -> SampleDataDirectory {
        try SampleCopies.create(at: dir.file("data"), options: .init(photos: 1, documents: 1,
                                       passphrase: SecretBytes(Array(passphrase.utf8)), chatItems: 20))
    }

    @Test func aPassphraseOnTheCommandLineIsAnsweredWithTheWaysToGiveOne() throws {
        for arguments in [["db", "test-key", "--passphrase", Self.secret], ["db", "test-key", "--passphrase=\(Self.secret)"],
                          ["archive", "export", "x.zip", "--password", Self.secret],
                          ["db", "rekey", "--new-passphrase", Self.secret]] {
            let r = try CLI.run(arguments)
            #expect(r.status == 2, "\(arguments)")
            #expect(!r.stderr.contains("Did you mean"), "\(arguments): \(r.stderr)")
            #expect(!(r.stdout + r.stderr).contains(Self.secret), "\(arguments) echoed the secret: \(r.stderr)")
            #expect(r.stderr.contains("never taken on the command line"), "\(arguments): \(r.stderr)")
            let prefix = arguments.contains { $0.hasPrefix("--new-") } ? "--new-" : "--"
            for way in ["\(prefix)passphrase-file", "\(prefix)passphrase-command", "prompt"] {
                #expect(r.stderr.contains(way), "\(arguments): \(way) not named: \(r.stderr)")
            }
            #expect(r.stderr.contains(prefix == "--" ? "SXKIT_PASSPHRASE_FILE" : "SXKIT_NEW_PASSPHRASE_FILE"), "\(r.stderr)")
        }
    }

    @Test func aStrayArgumentIsNeverEchoed() throws {
        let dir = try TempFolder()
        for arguments in [["db", "test-key", "--data-dir", dir.path, Self.secret], ["storage", Self.secret],
                          ["db", "rekey", Self.secret, "--decrypt"]] {
            let r = try CLI.run(arguments)
            #expect(r.status == 2, "\(arguments): \(r.stderr)")
            #expect(!(r.stdout + r.stderr).contains(Self.secret), "\(arguments) echoed: \(r.stderr)")
            let position = arguments.firstIndex(of: Self.secret)! + 1
            #expect(r.stderr.contains("#\(position)"), "\(arguments): \(r.stderr)")
        }
    }

    @Test func passphraseCommandGivesThePassphrase() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let root = sample.directory.root
        let ok = try CLI.run(["db", "test-key", "--data-dir", root, "--passphrase-command", "printf '%s\\n' '\(Self.passphrase)'"])
        #expect(ok.status == 0, "\(ok.stdout) \(ok.stderr)")

        let failing = try CLI.run(["db", "test-key", "--data-dir", root, "--passphrase-command", "echo \(Self.secret); exit 4"])
        #expect(failing.status == 1)
        #expect(failing.stderr.contains("the passphrase command exited with status 4"), "\(failing.stderr)")
        #expect(!(failing.stdout + failing.stderr).contains(Self.secret))

        let both = try CLI.run(["db", "test-key", "--data-dir", root, "--passphrase-command", "true", "--passphrase-file", dir.file("p")])
        #expect(both.status == 2)

        // A new passphrase from a command; the old one from another.
        let rekey = try CLI.run(["db", "rekey", "--data-dir", root, "--passphrase-command", "echo '\(Self.passphrase)'",
                                 "--new-passphrase-command", "echo 'a new one'"])
        #expect(rekey.status == 0, "\(rekey.stderr)")
        let after = try CLI.run(["db", "test-key", "--data-dir", root], environment: ["SXKIT_PASSPHRASE": "a new one"])
        #expect(after.status == 0, "\(after.stdout)")
    }

    @Test func noPassphraseAndNoTerminalSaysEveryWay() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let r = try CLI.run(["db", "test-key", "--data-dir", sample.directory.root])
        #expect(r.status == 1)
        for way in ["--passphrase-file", "--passphrase-command", "SXKIT_PASSPHRASE", "SXKIT_PASSPHRASE_FILE", "prompt", "--no-passphrase"] {
            #expect(r.stderr.contains(way), "\(way): \(r.stderr)")
        }
    }

    /// Every command that opens the databases, run on `root`.
    static func commands(_ dir: TempFolder, root: String, archive: String) -> [[String]] {
        try? FileManager.default.createDirectory(atPath: dir.file("relay"), withIntermediateDirectories: true)
        return [
            ["db", "test-key", "--data-dir", root],
            ["db", "inspect", "--data-dir", root],
            ["db", "status", "--data-dir", root],
            ["db", "migrate", "--data-dir", root, "--confirm", "yesUp"],
            ["db", "rekey", "--data-dir", root],
            ["archive", "export", dir.file("out.zip"), "--data-dir", root],
            ["archive", "verify", archive],
            ["archive", "import", archive, "--data-dir", dir.file("imported")],
            ["files", "encrypt", "--data-dir", root],
            ["files", "decrypt", "--data-dir", root, "-o", dir.file("exported")],
            ["storage", "--data-dir", root],
            ["clean", "--orphans", "--yes", "--data-dir", root],
            ["migrate", "send", "--data-dir", root, "--relay", dir.file("relay"), "-o", dir.file("desc")],
        ]
    }

    @Test func aWrongPassphraseHasOneWordingInEveryCommand() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir)
        let root = sample.directory.root
        let archive = dir.file("good.zip")
        let export = try CLI.run(["archive", "export", archive, "--data-dir", root], environment: ["SXKIT_PASSPHRASE": Self.passphrase])
        #expect(export.status == 0, "\(export.stderr)")
        let before = try sample.directory.databases.map { try sha256($0) }
        let environment = ["SXKIT_PASSPHRASE": "wrong", "SXKIT_NEW_PASSPHRASE": "newer", "TMPDIR": dir.path]
        for arguments in Self.commands(dir, root: root, archive: archive) {
            let r = try CLI.run(arguments, environment: environment)
            let output = r.stdout + r.stderr
            #expect(r.status == 1, "\(arguments): \(r.status) \(output)")
            #expect(output.contains("the passphrase is wrong: it does not open '"), "\(arguments): \(output)")
            #expect(output.contains("--passphrase-command"), "\(arguments): no way to give the right one: \(output)")
        }
        #expect(try sample.directory.databases.map { try sha256($0) } == before)
    }

    @Test func aPlaintextDatabaseGivenAPassphraseNamesNoPassphrase() throws {
        let dir = try TempFolder()
        let sample = try Self.sample(dir, passphrase: "")
        let root = sample.directory.root
        let archive = dir.file("good.zip")
        let export = try CLI.run(["archive", "export", archive, "--data-dir", root, "--no-passphrase"])
        #expect(export.status == 0, "\(export.stderr)")
        let environment = ["SXKIT_PASSPHRASE": "not needed", "SXKIT_NEW_PASSPHRASE": "newer", "TMPDIR": dir.path]
        for arguments in Self.commands(dir, root: root, archive: archive) {
            let r = try CLI.run(arguments, environment: environment)
            let output = r.stdout + r.stderr
            guard r.status != 0 else { continue }
            #expect(output.contains("is not encrypted (plaintext SQLite)"), "\(arguments): \(output)")
            #expect(output.contains("--no-passphrase"), "\(arguments): \(output)")
        }
    }
}
