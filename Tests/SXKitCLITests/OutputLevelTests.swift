import Foundation
import Testing
import SXTestSupport

/// --quiet and --verbose mean the same in every command: --quiet prints only problems (errors,
/// failed items, what a check found wrong), so a command that went well prints nothing at all;
/// --verbose adds a line per item done.
@Suite(.ownThreads) struct OutputLevelTests {
    /// A sample data directory, an archive of it, and a few plain files.
    struct Setting {
        let dir: TempFolder
        var data: String { dir.file("data") }
        var pass: String { dir.file("data/demo-passphrase.txt") }
        var archive: String { dir.file("a.zip") }
        init() throws {
            dir = try TempFolder()
            let demo = try CLI.run(["demo", "--sample-only", "--dir", dir.file("data")])
            #expect(demo.status == 0, "\(demo.stderr)")
            let export = try CLI.run(["archive", "export", dir.file("a.zip"), "--data-dir", dir.file("data"), "--passphrase-file", dir.file("data/demo-passphrase.txt"), "-q"])
            #expect(export.status == 0, "\(export.stderr)")
            try FileManager.default.createDirectory(atPath: dir.file("plain"), withIntermediateDirectories: true)
            for i in 1...3 { _ = try dir.write("plain/f\(i).txt", Array("file \(i)\n".utf8)) }
        }
    }

    @Test func quietPrintsNothingWhenAllWentWell() throws {
        let s = try Setting()
        let commands: [[String]] = [
            ["db", "test-key", "--data-dir", s.data, "--passphrase-file", s.pass],
            ["db", "status", "--data-dir", s.data, "--passphrase-file", s.pass],
            ["storage", "--data-dir", s.data, "--passphrase-file", s.pass],
            ["archive", "list", s.archive],
            ["archive", "verify", s.archive, "--passphrase-file", s.pass],
            ["files", "encrypt", s.dir.file("plain"), "-o", s.dir.file("enc"), "--manifest", s.dir.file("k.json")],
            ["files", "verify", "--manifest", s.dir.file("k.json")],
            ["transfer", "plan", s.dir.file("plain/f1.txt")],
        ]
        for command in commands {
            let r = try CLI.run(command + ["--quiet"])
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(r.stdout.isEmpty && r.stderr.isEmpty, "\(command.prefix(2)) --quiet printed: \(r.stdout)\(r.stderr)")
        }
        // A check prints what it found wrong, and nothing else: the sample has missing files and an orphan.
        let inspect = try CLI.run(["db", "inspect", "--data-dir", s.data, "--passphrase-file", s.pass, "--quiet"])
        #expect(inspect.status == 0)
        let lines = inspect.stdout.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { $0.hasPrefix("chat database: ") || $0.hasPrefix("agent database: ") }, "\(inspect.stdout)")
        #expect(inspect.stdout.contains("are not referenced by the chat database (orphans)"))
    }

    @Test func quietStillNamesWhatWentWrong() throws {
        let s = try Setting()
        let wrong = try s.dir.write("wrong.txt", Array("hunter2".utf8))
        let r = try CLI.run(["db", "test-key", "--data-dir", s.data, "--passphrase-file", wrong, "--quiet"])
        #expect(r.status == 1)
        #expect(r.stdout.isEmpty)
        #expect(r.stderr.contains("chat database   WRONG PASSPHRASE"), "\(r.stderr)")
        #expect(r.stderr.contains("agent database  WRONG PASSPHRASE"), "\(r.stderr)")
        // Only the failure: with one database opening and the other not, the good one is not listed.
        let good = try CLI.run(["db", "test-key", "--db", s.dir.file("data/simplex_v1_chat.db"), "--passphrase-file", s.pass, "-q"])
        #expect(good.status == 0 && good.stdout.isEmpty && good.stderr.isEmpty)
    }

    @Test func quietVerifyOfADamagedArchiveListsOnlyTheDamage() throws {
        let s = try Setting()
        // Flip a byte inside a stored entry's data (the first local header's data starts after its name).
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: s.archive)))
        let name = Array("simplex_v1_chat.db".utf8)
        let at = try #require((0..<(bytes.count - name.count)).first { Array(bytes[$0..<$0 + name.count]) == name })
        bytes[at + name.count + 4096] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: s.dir.file("bad.zip")))
        let r = try CLI.run(["archive", "verify", s.dir.file("bad.zip"), "--quiet"])
        #expect(r.status == 1)
        #expect(r.stdout.contains("FAILED  simplex_v1_chat.db"), "\(r.stdout)\(r.stderr)")
        #expect(!r.stdout.contains("OK "), "--quiet listed entries that are fine: \(r.stdout)")
    }

    @Test func verboseAddsALinePerItem() throws {
        let s = try Setting()
        let normal = try CLI.run(["files", "encrypt", s.dir.file("plain"), "-o", s.dir.file("e1"), "--manifest", s.dir.file("k1.json")])
        let verbose = try CLI.run(["files", "encrypt", s.dir.file("plain"), "-o", s.dir.file("e2"), "--manifest", s.dir.file("k2.json"), "--verbose"])
        #expect(normal.status == 0 && verbose.status == 0)
        #expect(!normal.stdout.contains("f1.txt"))
        for i in 1...3 { #expect(verbose.stdout.contains("f\(i).txt"), "\(verbose.stdout)") }
        let list = try CLI.run(["archive", "verify", s.archive, "--passphrase-file", s.pass, "--verbose"])
        #expect(list.stdout.contains("simplex_v1_files/"), "verify --verbose lists every entry: \(list.stdout)")
    }

    @Test func helpSaysWhatTheLevelsMean() throws {
        let r = try CLI.run(["files", "encrypt", "--help"])
        let help = r.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" }).joined(separator: " ")
        #expect(help.contains("Print only problems: errors, failed items and what a check found wrong"))
        #expect(help.contains("Also print every item done and the details the summary leaves out."))
    }
}
