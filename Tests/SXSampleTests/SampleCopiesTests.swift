import Foundation
import SXCore
import SXCrypto
import SXSample
import SXTestSupport
import Testing

/// The test run's own machinery: the sample copies every other test target uses, and the threads
/// every suite runs on. A copy must be the sample a build would give; a suite without the threads
/// trait would quietly hold a core while it waits.
@Suite(.ownThreads) struct SampleCopiesTests {
    static let options = SampleDataDirectory.Options(photos: 1, documents: 2, seed: 4, contacts: 3, groups: 1, chatItems: 15)

    /// Relative path → what a copy keeps of each entry: its kind, mode and bytes.
    static func contents(_ root: String) throws -> [String: String] {
        try FolderSnapshot.take(root).entries.mapValues { entry in
            "\(entry.kind) \(String(entry.mode, radix: 8)) " + (entry.bytes.map { Hex.encode(SHA256Digest.of([UInt8]($0))) } ?? "-")
        }
    }

    @Test func aCopyIsTheSampleABuildGivesAndEachCopyIsItsOwn() throws {
        let temp = try TempFolder()
        let built = try SampleDataDirectory.create(at: temp.file("built"), options: Self.options)
        let first = try SampleCopies.create(at: temp.file("first"), options: Self.options)
        let second = try SampleCopies.create(at: temp.file("second"), options: Self.options)

        #expect(first.directory.root == temp.file("first"))
        #expect(first.files == built.files)
        #expect(first.directory.chatDatabase == temp.file("first") + "/simplex_v1_chat.db")
        // The databases differ from a build's only in their random salts, so compare all but them.
        let builtFiles = try Self.contents(built.directory.root).filter { !$0.key.hasSuffix(".db") }
        let firstFiles = try Self.contents(first.directory.root)
        #expect(firstFiles.filter { !$0.key.hasSuffix(".db") } == builtFiles)
        #expect(firstFiles.keys.contains("simplex_v1_chat.db") && firstFiles.keys.contains("simplex_v1_agent.db"))
        #expect(try Self.contents(second.directory.root) == firstFiles)

        // A test that changes its copy changes nobody else's.
        try FileManager.default.removeItem(atPath: first.directory.chatDatabase)
        let third = try SampleCopies.create(at: temp.file("third"), options: Self.options)
        #expect(try Self.contents(third.directory.root) == firstFiles)
    }

    @Test func otherOptionsGiveAnotherSample() throws {
        let temp = try TempFolder()
        var other = Self.options
        other.seed = 5
        let a = try SampleCopies.create(at: temp.file("a"), options: Self.options)
        let b = try SampleCopies.create(at: temp.file("b"), options: other)
        #expect(a.files != b.files)
    }

    @Test func aCopyIsNeverMadeOverADataDirectory() throws {
        let temp = try TempFolder()
        let first = try SampleCopies.create(at: temp.file("data"), options: Self.options)
        let before = try FolderSnapshot.take(first.directory.root)
        #expect(throws: (any Error).self) { try SampleCopies.create(at: temp.file("data"), options: Self.options) }
        #expect(try FolderSnapshot.take(first.directory.root).differences(from: before) == [])
    }

    @Test func aSuiteWithTheTraitRunsOnTheRunsOwnThreads() async {
        #expect(TestThreads.isCurrent)
        await Task.yield()
        #expect(TestThreads.isCurrent)
    }

    /// Every suite in every test target carries `.ownThreads` (SXTerminalTests, which does not link
    /// SXTestSupport, excepted): a top-level `@Suite` names it, and a file of tests has such a suite.
    @Test func everySuiteCarriesTheThreadsTrait() throws {
        let tests = VectorFiles.repositoryRoot + "/Tests"
        var missing: [String] = []
        for target in try FileManager.default.contentsOfDirectory(atPath: tests).sorted()
        where target.hasSuffix("Tests") && target != "SXTerminalTests" {
            for name in try FileManager.default.contentsOfDirectory(atPath: tests + "/" + target).sorted() where name.hasSuffix(".swift") {
                let text = try String(contentsOfFile: tests + "/" + target + "/" + name, encoding: .utf8)
                let suites = text.split(separator: "\n").filter { $0.hasPrefix("@Suite") }
                if suites.contains(where: { !$0.contains(".ownThreads") })
                    || (text.contains("@Test") && suites.isEmpty) {
                    missing.append(target + "/" + name)
                }
            }
        }
        #expect(missing.isEmpty, "suites without .ownThreads: \(missing)")
    }

    /// Every descriptor a test opens itself is closed on exec. Tests run side by side in one process,
    /// and a child spawned with `posix_spawn` (a passphrase command) keeps, for its whole life, a copy
    /// of every descriptor without close-on-exec, and with it any `flock` taken on it. (Foundation's
    /// `Process` closes them in the child; even so a copy lives from clone to exec, which is why locks
    /// are let go with `TempOwnership.release`.)
    @Test func everyDescriptorATestOpensIsClosedOnExec() throws {
        let tests = VectorFiles.repositoryRoot + "/Tests"
        let call = /(?:^|[^.\w])(open|socket|posixOpenpt)\(.*\b(O_|SOCK_)[A-Z]/
        var leaking: [String] = []
        let files = FileManager.default.enumerator(atPath: tests)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        #expect(files.count > 100)
        for name in files.sorted() {
            let text = try String(contentsOfFile: tests + "/" + name, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
            where line.contains(call) && !line.contains("CLOEXEC") {
                leaking.append("\(name):\(number + 1)")
            }
            if text.contains("pipe(&") && !text.contains("FD_CLOEXEC") { leaking.append(name + ": pipe") }
        }
        #expect(leaking.isEmpty, "descriptors without close-on-exec: \(leaking)")
    }
}
