import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// Names the shell and UTF-8 make hard: commands printed to paste run with exactly the names they
/// name, and a name that is not UTF-8 works everywhere (shown escaped, opened by its bytes).
@Suite(.ownThreads) struct FileNameCommandTests {
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

    /// Runs `script` in bash inside `folder`, with `sx` naming the binary and `e` holding the byte 0xE9
    /// (a Latin-1 é), so that every name is made, given and checked as raw bytes by bash and coreutils,
    /// independently of sxkit's own path handling. Each step echoes a marker the test looks for.
    static func bashSteps(_ script: String, in folder: String) throws -> CLIResult {
        try runBash("set -u\nsx=\(ShellQuoteForTests.single(CLI.binary))\ne=$'\\xe9'\ncd \(ShellQuoteForTests.single(folder))\n" + script)
    }

    @Test func filesAndImagesWhoseNamesAreNotUTF8AreEncryptedDecryptedAndCompressed() throws {
        let dir = try TempFolder()
        _ = try dir.write("good.jpg", try SyntheticImage.jpeg(width: 300, height: 200, seed: 1))
        let run = try Self.bashSteps("""
            mkdir in && cp good.jpg "in/caf$e.jpg" && echo made
            $sx files encrypt in -o enc --manifest keys.json > encrypt.out 2>&1 && echo encrypted
            ! cmp -s good.jpg "enc/in/caf$e.jpg" && echo "ciphertext under the same bytes"
            $sx files decrypt enc -o dec --manifest keys.json > decrypt.out 2>&1 && cmp good.jpg "dec/enc/in/caf$e.jpg" && echo decrypted
            $sx files encrypt --in-place in --manifest inplace.json > /dev/null 2>&1 && ! cmp -s good.jpg "in/caf$e.jpg" && echo "encrypted in place"
            $sx files decrypt --in-place in --manifest inplace.json > /dev/null 2>&1 && cmp good.jpg "in/caf$e.jpg" && echo "decrypted in place"
            $sx image compress "in/caf$e.jpg" -o "small$e/" --json > compress.out 2>&1 && head -c 3 "small$e/caf$e.jpg" | od -An -tx1 | tr -d ' \n'; echo
            ls enc/in dec/enc/in "small$e" | od -c | grep -c '351' || true
            """, in: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout.split(separator: "\n").map(String.init) == [
            "made", "encrypted", "ciphertext under the same bytes", "decrypted", "encrypted in place", "decrypted in place", "ffd8ff", "3",
        ], "\(run.stdout)\(run.stderr)\n\((try? dir.read("encrypt.out")).map { String(decoding: $0, as: UTF8.self) } ?? "")")
        // Shown escaped in JSON; the manifest keeps the byte losslessly (as the JSON escape of its carrier).
        let compressed = String(decoding: try dir.read("compress.out"), as: UTF8.self)
        #expect(compressed.contains("\"path\":\"\(dir.path)/in/caf\\\\xE9.jpg\""), "\(compressed)")
        #expect(String(decoding: try dir.read("keys.json"), as: UTF8.self).contains("\"enc/in/caf\\uEFE9.jpg\""))
    }

    @Test func aFileWhoseNameIsNotUTF8IsSentAndReceived() throws {
        let dir = try TempFolder()
        _ = try dir.write("payload.bin", testBytes(300_000, seed: 9))
        let run = try Self.bashSteps("""
            mkdir relay && cp payload.bin "caf$e.bin"
            $sx transfer send "$PWD/caf$e.bin" --relay relay -o "desc$e" --temp-dir t > send.out 2>&1 && echo sent
            test -f "desc$e/caf$e.bin.recipient-1.yaml" && test -f "desc$e/caf$e.bin.sender.yaml" && echo "descriptions named by the bytes"
            $sx transfer receive "desc$e/caf$e.bin.recipient-1.yaml" --relay relay -o "in$e/" --temp-dir t > receive.out 2>&1 && echo received
            cmp payload.bin "in$e/caf"$'\\xef\\xbf\\xbd'".bin" && echo "same bytes, under the name's UTF-8 reading"
            """, in: dir.path)
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stdout == "sent\ndescriptions named by the bytes\nreceived\nsame bytes, under the name's UTF-8 reading\n",
                "\(run.stdout)\(String(decoding: (try? dir.read("send.out")) ?? [], as: UTF8.self))\(String(decoding: (try? dir.read("receive.out")) ?? [], as: UTF8.self))")
    }

    @Test func aDataDirectoryWhoseNameIsNotUTF8IsBuiltReadArchivedAndImported() throws {
        let dir = try TempFolder()
        let run = try Self.bashSteps("""
            $sx demo --sample-only --dir "demo$e" > demo.out 2>&1 && test -f "demo$e/simplex_v1_chat.db" && echo built
            pass="demo$e/demo-passphrase.txt"
            $sx db test-key --data-dir "demo$e" --passphrase-file "$pass" > key.out 2>&1 && echo "passphrase tested"
            $sx storage --data-dir "demo$e" --passphrase-file "$pass" --json > storage.out 2>&1 && echo "storage reported"
            $sx files encrypt --data-dir "demo$e" --passphrase-file "$pass" > files.out 2>&1 && echo "files encrypted"
            $sx archive export --data-dir "demo$e" --passphrase-file "$pass" "a$e.zip" > export.out 2>&1 && test -s "a$e.zip" && echo exported
            $sx archive import "a$e.zip" --data-dir "new$e" --passphrase-file "$pass" > import.out 2>&1 && cmp "demo$e/simplex_v1_files/IMG_1000.jpg" "new$e/simplex_v1_files/IMG_1000.jpg" && echo imported
            $sx db inspect --data-dir "new$e" --passphrase-file "$pass" > inspect.out 2>&1 && echo inspected
            """, in: dir.path)
        let outputs = ["demo", "key", "storage", "files", "export", "import", "inspect"].map { "\($0): " + String(decoding: (try? dir.read($0 + ".out")) ?? [], as: UTF8.self) }
        #expect(run.stdout == "built\npassphrase tested\nstorage reported\nfiles encrypted\nexported\nimported\ninspected\n",
                "\(run.stdout)\(run.stderr)\n\(outputs.joined(separator: "\n"))")
        #expect(outputs[2].contains("demo\\\\xE9"), "storage --json shows the name escaped: \(outputs[2])")
    }
}

/// Single quotes for the fixed paths these tests build (they hold no quote).
@Suite(.ownThreads)
enum ShellQuoteForTests {
    static func single(_ path: String) -> String { "'" + path + "'" }
}
