import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// Names the shell and UTF-8 make hard: commands printed to paste run with exactly the names they
/// name, and a name that is not UTF-8 is refused by its escaped name, never opened under another.
@Suite struct FileNameCommandTests {
    /// Runs `line` (a command sxkit printed) in bash with `sxkit` standing for a function that
    /// prints each argument it receives followed by a NUL.
    static func argumentsReceived(_ line: String) throws -> [UInt8] {
        try runBash("sxkit() { printf '%s\\0' \"$@\"; }\n" + line).stdoutBytes
    }

    @Test(arguments: ["two words.bin", "it's.bin", "say \"hi\".bin", "$HOME and `x`.bin", "line\nbreak.bin", "plain.bin"])
    func printedCommandsPasteToTheExactArguments(name: String) throws {
        let dir = try TempFolder()
        try FileManager.default.createDirectory(atPath: dir.file("relay"), withIntermediateDirectories: true)
        let file = try dir.write(name, testBytes(1000, seed: 2))
        let descriptions = dir.file("desc folder")
        let sent = try CLI.run(["transfer", "send", file, "--relay", dir.file("relay"), "-o", descriptions, "--temp-dir", dir.file("tmp")])
        #expect(sent.status == 0, "\(sent.stderr)")
        let lines = sent.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let cancel = try #require(lines.first { $0.hasPrefix("to cancel: ") }, "\(sent.stdout)")
        let expected = ["transfer", "cancel", descriptions + "/" + name + ".sender.yaml"].flatMap { (word: String) -> [UInt8] in Array(word.utf8) + [0] }
        #expect(try Self.argumentsReceived(String(cancel.dropFirst("to cancel: ".count))) == expected, "\(cancel)")
        // A folder relay's line ends with a placeholder for the recipient to fill in (" --relay <…>").
        let receiveLine = try #require(lines.first { $0.hasPrefix("  sxkit transfer receive ") }, "\(sent.stdout)")
        let receive = String(receiveLine.prefix { _ in true }.split(separator: " --relay <", maxSplits: 1)[0])
        let expectedReceive = ["transfer", "receive", name + ".recipient-1.yaml"].flatMap { (word: String) -> [UInt8] in Array(word.utf8) + [0] }
        #expect(try Self.argumentsReceived(receive) == expectedReceive, "\(receive)")
        #expect(!receive.contains("\n") && !cancel.contains("\n"), "a printed command stays on one line")
    }

    /// Creates `folder/caf\xE9.jpg` (Latin-1 bytes) holding `bytes`; returns the folder's path.
    static func latin1File(in folder: String, _ bytes: [UInt8]) throws -> [UInt8] {
        let name = Array((folder + "/caf").utf8) + [0xE9] + Array(".jpg".utf8)
        let fd = (name.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o600) }
        #expect(fd >= 0)
        #expect(write(fd, bytes, bytes.count) == bytes.count)
        close(fd)
        return name
    }

    @Test func aNameThatIsNotUTF8IsRefusedByItsEscapedName() throws {
        let dir = try TempFolder()
        let jpeg = try SyntheticImage.jpeg(width: 200, height: 100, seed: 1)
        try FileManager.default.createDirectory(atPath: dir.file("in"), withIntermediateDirectories: true)
        _ = try Self.latin1File(in: dir.file("in"), jpeg)
        try dir.write("in/good.jpg", jpeg)
        let escaped = dir.file("in/caf\\xE9.jpg")
        let encrypt = try CLI.run(["files", "encrypt", dir.file("in"), "-o", dir.file("enc"), "--manifest", dir.file("keys.json")])
        #expect(encrypt.status == 3, "\(encrypt.stderr)")
        #expect(encrypt.stderr.contains("\(escaped): its name is not UTF-8"), "\(encrypt.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.file("enc/in")) == ["good.jpg"])
        let compress = try CLI.run(["image", "compress", dir.file("in"), "-o", dir.file("small"), "--json"])
        #expect(compress.status == 3, "\(compress.stderr)")
        #expect((compress.stdout + compress.stderr).contains("caf\\\\xE9.jpg") || compress.stderr.contains(escaped), "\(compress.stdout)\(compress.stderr)")

        // Named on the command line (raw argv bytes, through bash's $'…').
        let binary = ShellQuoteForTests.single(CLI.binary)
        let raw = "$'" + dir.file("in/caf") + "\\xe9.jpg'"
        let send = try runBash("\(binary) transfer send \(raw) --relay \(ShellQuoteForTests.single(dir.path)) --temp-dir \(ShellQuoteForTests.single(dir.file("t")))")
        #expect(send.status == 1 && send.stderr.contains("'\(escaped)': its name is not UTF-8"), "\(send.stderr)")
        let data = try runBash("\(binary) storage --data-dir $'\(dir.path)/d\\xe9'")
        #expect(data.status == 2 && data.stderr.contains("'\(dir.path)/d\\xE9': its name is not UTF-8"), "\(data.stderr)")
        let demo = try runBash("\(binary) demo --sample-only --dir $'\(dir.path)/demo\\xe9'")
        #expect(demo.status == 1 && demo.stderr.contains("demo\\xE9': its name is not UTF-8"), "\(demo.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("demo\u{FFFD}")))
    }
}

/// Single quotes for the fixed paths these tests build (they hold no quote).
enum ShellQuoteForTests {
    static func single(_ path: String) -> String { "'" + path + "'" }
}
