import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

/// What happens to the old file after a passphrase change: its backup is a hard link, and removing
/// it erases the salt in place, so the old bytes no longer open with the old passphrase even through
/// a descriptor that outlived the file's name.
@Suite("Rekey backup erasure", .ownThreads, .enabled(if: sqlcipherShellInstalled, "needs /usr/bin/sqlcipher"))
struct RekeyBackupErasureTests {
    @Test func removedBackupNoLongerOpensWithTheOldPassphrase() throws {
        let dir = try TempFolder()
        let set = try RekeyTests.makePair(dir, passphrase: "old", chatRows: 8000)
        let chat = set.targets[0].path
        // A descriptor to the old file, as anyone who opened it before the change may hold.
        let held = try POSIXFile.open(chat, flags: O_RDONLY)
        defer { close(held) }
        _ = try DatabaseRekey.run(set, current: secret("old"), new: secret("new"))
        #expect(!FileManager.default.fileExists(atPath: chat + ".bak"))
        let size = Int(try POSIXFile.status("/proc/self/fd/\(held)").st_size)
        var oldBytes = [UInt8](repeating: 0, count: size)
        let n = try oldBytes.withUnsafeMutableBytes { try POSIXFile.pread(held, into: $0, at: 0, path: chat) }
        #expect(n == size)
        let copy = try dir.write("old-inode.db", oldBytes)
        let db = try DatabaseConnection(path: copy, mode: .readOnly)
        try db.applyKey(secret("old"))
        #expect(!db.keyIsCorrect(), "the erased backup still opens with the old passphrase")
        // Only the head was rewritten: the pages past it are the old ciphertext, now undecipherable.
        #expect(size > 200_000)
    }

    @Test func aBackupWithAnotherNameIsUnlinkedNotOverwritten() throws {
        let dir = try TempFolder()
        let set = try RekeyTests.makePair(dir, passphrase: "old")
        let chat = set.targets[0].path
        // Someone's own second name for the database (a forensic copy made with ln).
        let evidence = dir.file("evidence.db")
        #expect(link(chat, evidence) == 0)
        _ = try DatabaseRekey.run(set, current: secret("old"), new: secret("new"))
        #expect(!FileManager.default.fileExists(atPath: chat + ".bak"))
        let db = try DatabaseConnection(path: evidence, mode: .readOnly)
        try db.applyKey(secret("old"))
        #expect(db.keyIsCorrect(), "a file with another name was overwritten")
    }

    @Test func keptBackupIsALinkToTheOldFileWithMode0600() throws {
        let dir = try TempFolder()
        let set = try RekeyTests.makePair(dir, passphrase: "old")
        let chat = set.targets[0].path
        let oldInode = try POSIXFile.status(chat).st_ino
        _ = try DatabaseRekey.run(set, current: secret("old"), new: secret("new"), options: RekeyOptions(keepBackup: true))
        let backup = try POSIXFile.status(chat + ".bak")
        #expect(backup.st_ino == oldInode)
        #expect(backup.st_mode & 0o777 == 0o600)
        #expect(try POSIXFile.status(chat).st_ino != oldInode)
    }
}
