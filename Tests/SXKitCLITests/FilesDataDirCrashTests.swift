import Foundation
import SXCore
import SXTestSupport
import Testing

/// kill -9 (CrashPoint) at every crash point of `files encrypt --data-dir` and `files decrypt
/// --data-dir --in-place`: at the kill no file is a CryptoFile without its key in the chat DB, and
/// after a rerun every file decrypts with its DB key to its original (or is the original, for decrypt).
@Suite("files --data-dir crash safety", .ownThreads, .enabled(if: sqlcipherShellInstalled, "needs /usr/bin/sqlcipher"))
struct FilesDataDirCrashTests {
    /// More files than one group, so that a kill between groups is covered too.
    static let bulkFiles = 560
    static let grouping = ["--group-files", "300"]

    /// Every point, in order (as `ChatFilesWork.encryptCrashPoints` / `decryptCrashPoints`); `*-ahead` are reached only from the second group on (finishing a
    /// group while the next one is staged), which `bulkFiles` and `grouping` provide.
    static let encryptPoints = ["files-encrypt.journal-written", "files-encrypt.staged", "files-encrypt.journal-written-ahead",
                                "files-encrypt.db-committed", "files-encrypt.first-renamed", "files-encrypt.renamed",
                                "files-encrypt.group-done-ahead", "files-encrypt.group-done"]
    static let decryptPoints = ["files-decrypt.journal-written", "files-decrypt.staged", "files-decrypt.journal-written-ahead",
                                "files-decrypt.first-renamed", "files-decrypt.renamed", "files-decrypt.db-committed",
                                "files-decrypt.group-done-ahead", "files-decrypt.group-done"]

    /// A kill may leave the DB claiming a key for a file still plaintext (the journal settles it);
    /// it may never leave a CryptoFile whose key is not in the DB.
    static func checkAtKill(_ s: FilesSample, _ point: String) throws {
        let states = try s.states()
        let lost = states.filter { $0.value == .lost }.keys.sorted()
        #expect(lost.isEmpty, "\(point): \(lost.count) file(s) neither original nor decryptable with the DB key: \(lost.prefix(5))")
        if states.values.contains(.keyClaimedForPlaintext) {
            #expect(FileManager.default.fileExists(atPath: s.chat + ".files-journal"), "\(point): the DB claims keys for plaintext files and no journal covers them")
        }
    }

    @Test func killedAtEachEncryptCrashPointLosesNothing() throws {
        let base = try FilesSample(bulkFiles: Self.bulkFiles)
        for point in Self.encryptPoints {
            let s = try FilesSample(copying: base, tag: point)
            let killed = try s.run(["files", "encrypt", "--data-dir", s.root, "--quiet"] + Self.grouping, environment: [CrashPoint.environmentVariable: point])
            #expect(killed.status == 9 || killed.status == 137, "\(point): not killed (status \(killed.status)): \(killed.stderr)")
            try Self.checkAtKill(s, point)
            let rerun = try s.run(["files", "encrypt", "--data-dir", s.root])
            #expect(rerun.status == 0, "\(point): rerun: \(rerun.stderr)")
            #expect(rerun.stderr.contains("an earlier run was interrupted") == (point != "files-encrypt.group-done"), "\(point): \(rerun.stderr)")
            let states = try s.states()
            let notEncrypted = states.filter { $0.value != .encrypted && $0.value != .missing }
            #expect(notEncrypted.isEmpty, "\(point): after the rerun \(notEncrypted.count) file(s) are not encrypted: \(notEncrypted.prefix(5))")
            #expect(s.tempLeftovers.isEmpty, "\(point): \(s.tempLeftovers)")
        }
    }

    @Test func killedAtEachDecryptCrashPointLosesNothing() throws {
        let base = try FilesSample(bulkFiles: Self.bulkFiles)
        let encrypt = try base.run(["files", "encrypt", "--data-dir", base.root, "--quiet"])
        #expect(encrypt.status == 0, "\(encrypt.stderr)")
        for point in Self.decryptPoints {
            let s = try FilesSample(copying: base, tag: point)
            let killed = try s.run(["files", "decrypt", "--data-dir", s.root, "--in-place", "--quiet"] + Self.grouping, environment: [CrashPoint.environmentVariable: point])
            #expect(killed.status == 9 || killed.status == 137, "\(point): not killed (status \(killed.status)): \(killed.stderr)")
            try Self.checkAtKill(s, point)
            // An export in between is read-only and says the journal is pending.
            if point != "files-decrypt.group-done" {
                let export = try s.run(["files", "decrypt", "--data-dir", s.root, "-o", s.temp.file("peek"), "--quiet"])
                #expect(export.stderr.contains("left '\(s.chat).files-journal'"), "\(point): \(export.stderr)")
            }
            let rerun = try s.run(["files", "decrypt", "--data-dir", s.root, "--in-place"])
            #expect(rerun.status == 0, "\(point): rerun: \(rerun.stderr)")
            let states = try s.states()
            let notPlain = states.filter { $0.value != .plaintext && $0.value != .missing }
            #expect(notPlain.isEmpty, "\(point): after the rerun \(notPlain.count) file(s) are not plaintext: \(notPlain.prefix(5))")
            #expect(try s.rows().allSatisfy { !$0.isEncrypted }, "\(point): keys left in the DB")
            #expect(s.tempLeftovers.isEmpty, "\(point): \(s.tempLeftovers)")
        }
    }
}
