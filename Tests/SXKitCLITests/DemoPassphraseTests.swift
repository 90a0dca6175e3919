import Foundation
import Testing
import SXTestSupport

/// The demo says its passphrases, leaves one in a file for --passphrase-file, and its --help says
/// what it leaves behind and how to remove it.
@Suite(.ownThreads) struct DemoPassphraseTests {
    @Test func sampleOnlySaysThePassphraseAndTheFileOpensTheDatabases() throws {
        let dir = try TempFolder()
        let r = try CLI.run(["demo", "--sample-only", "--dir", dir.file("s")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("sample data directory: \(dir.file("s"))\n"))
        #expect(r.stdout.contains("passphrase of both databases: \"correct horse battery staple\" (also in \(dir.file("s/demo-passphrase.txt")), for --passphrase-file)"))
        #expect(r.stdout.contains("remove it with: rm -rf \(dir.file("s"))"))
        let file = dir.file("s/demo-passphrase.txt")
        #expect(try String(contentsOfFile: file, encoding: .utf8) == "correct horse battery staple")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let key = try CLI.run(["db", "test-key", "--data-dir", dir.file("s"), "--passphrase-file", file])
        #expect(key.status == 0, "\(key.stdout)\(key.stderr)")
    }

    @Test func helpSaysWhatItLeavesBehindAndHowToRemoveIt() throws {
        let r = try CLI.run(["demo", "--help"])
        #expect(r.status == 0)
        let help = r.stdout.replacingOccurrences(of: "\n", with: " ").split(separator: " ").joined(separator: " ")
        for phrase in ["\"correct horse battery staple\"", "\"demo: a longer passphrase, with 'quotes' and ünïcode\"",
                       "demo-passphrase.txt", "What it leaves behind: one folder, --dir or a new $TMPDIR/sxkit-demo.XXXXXX",
                       "nothing outside it", "simplex_v1_chat.db", "imported/ and migrated/", "rm -rf FOLDER"] {
            #expect(help.contains(phrase), "demo --help does not say: \(phrase)")
        }
    }

    @Test func readmeSaysTheDemoPassphrases() throws {
        let readme = try String(contentsOfFile: VectorFiles.repositoryRoot + "/README.md", encoding: .utf8)
        #expect(readme.contains("correct horse battery staple"))
        #expect(readme.contains("demo: a longer passphrase, with 'quotes' and ünïcode"))
        #expect(readme.contains("demo-passphrase.txt"))
    }
}
