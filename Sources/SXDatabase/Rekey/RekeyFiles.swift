import Foundation
import SXCore

/// The files a passphrase change writes beside each database (FORMATS §3), and the journal that
/// marks the point of no return.
public enum RekeyFiles {
    /// The new copy of `database`, written and verified before anything is replaced.
    public static func exported(_ database: String) -> String { DataDirectoryNames.exported(of: database) }
    /// The copy of the original taken before the swap.
    public static func backup(_ database: String) -> String { DataDirectoryNames.backup(of: database) }
    /// One journal per set, beside its first (chat) database: present means "swap in progress".
    public static func journal(_ set: DatabaseSet) -> String { DataDirectoryNames.rekeyJournal(of: set.targets[0].path) }

    /// Companions SQLite may leave beside a file it wrote.
    static func companions(_ path: String) -> [String] { DataDirectoryNames.companions(of: path) }


    static func exists(_ path: String) -> Bool { POSIXFile.linkStatus(path) != nil }

    static func size(_ path: String) -> Int64? { POSIXFile.linkStatus(path).map { Int64($0.st_size) } }

    /// Unlinks `path`; a missing file is not an error.
    static func remove(_ path: String) throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("delete", path: path) }
    }

    /// A linked backup kept the database's permissions; a kept one holds old secrets: 0600.
    static func protectKeptBackups(_ databases: [String]) {
        for database in databases { _ = chmod(backup(database), 0o600) }
    }

    /// How much of an encrypted backup is overwritten: more than any page size, so the salt (the first
    /// 16 bytes of page 1) is certainly gone.
    static let saltOverwriteBytes: Int64 = 1 << 17

    /// Makes a backup unreadable, flushes, then unlinks it: a backup keyed with the old passphrase must
    /// not stay readable to whoever learns that passphrase later.
    ///
    /// An encrypted backup is erased cryptographically: SQLCipher derives every page key from the
    /// passphrase AND the random salt at the start of the file, so overwriting the first page leaves
    /// the rest undecipherable even with the old passphrase — without rewriting hundreds of MB. A
    /// plaintext backup (the database was just encrypted) is overwritten whole. (On copy-on-write or
    /// wear-levelled storage old blocks may survive; this is the most a program can do.)
    static func secureRemove(_ path: String) throws {
        guard let st = POSIXFile.linkStatus(path) else { return }
        // A file with another name (a linked backup whose database was never swapped) is only
        // unlinked: overwriting it would destroy the other name's data.
        if (st.st_mode & S_IFMT) == S_IFREG, st.st_nlink == 1 {
            let encrypted = (try? DatabaseFileKind.classify(path: path)) == .encryptedOrNotDatabase(looksRandom: true)
            let fd = try POSIXFile.open(path, flags: O_WRONLY)
            defer { close(fd) }
            var noise = [UInt8](repeating: 0, count: 1 << 20)
            var rng = SplitMix64(seed: UInt64(truncatingIfNeeded: st.st_ino) ^ 0x5EC0_DE1E)
            for i in noise.indices { noise[i] = UInt8(truncatingIfNeeded: rng.next()) }
            var left = encrypted ? min(Int64(st.st_size), saltOverwriteBytes) : Int64(st.st_size)
            while left > 0 {
                let n = Int(min(left, Int64(noise.count)))
                try noise.withUnsafeBytes { try POSIXFile.writeAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<n]), path: path) }
                left -= Int64(n)
            }
            try POSIXFile.fsync(fd, path: path)
        }
        try remove(path)
    }

    /// Copies the open file `source` (from its start) to `destination` through a temp file, fsyncs
    /// the copy and its folder. Reads through a descriptor the caller keeps open, because closing any
    /// descriptor of a database file would drop the POSIX locks SQLite holds on it in this process.
    static func copyDurably(from source: Int32, sourcePath: String, to destination: String) throws {
        let writer = try AtomicFileWriter(destination: destination, mode: 0o600)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var offset: Int64 = 0
        while true {
            let n = try buffer.withUnsafeMutableBytes { try POSIXFile.pread(source, into: $0, at: offset, path: sourcePath) }
            if n == 0 { break }
            try buffer.withUnsafeBytes { try writer.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            offset += Int64(n)
            CrashPoint.reach("rekey.bak-copy")
        }
        try writer.commit()
    }

    /// Flushes a finished file to disk.
    static func fsyncFile(_ path: String) throws {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        try POSIXFile.fsync(fd, path: path)
    }
}

/// Written atomically, durably, 0600. Phase `backup` (every new copy verified; backups being made)
/// tells recovery that the `.bak` files are this run's to delete; phase `swap` (every backup on disk)
/// is the point of no return: from then on an interrupted run is finished forward, never rolled back.
struct RekeyJournal: Codable, Equatable {
    static let backupPhase = "backup"
    static let swapPhase = "swap"
    var phase: String
    /// The databases being swapped, in order.
    var databases: [String]
    /// Whether the `.bak` files stay when the change is finished.
    var keepBackup: Bool
    /// The desktop app's settings to put in step, staged beside them (absent in journals of runs
    /// that had none to change).
    var desktopSettings: StagedDesktopSettings?

    /// Which settings file, which change, and the file as it was when the change was prepared.
    struct StagedDesktopSettings: Codable, Equatable {
        var path: String
        var kind: DesktopSettingsChange.Kind
        var identity: FileIdentity
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try AtomicFileWriter.write(Array(try encoder.encode(self)), to: path, mode: 0o600)
    }

    static func read(_ path: String) throws -> RekeyJournal {
        do {
            let journal = try JSONDecoder().decode(RekeyJournal.self, from: Data(try FileBytes.read(path, limit: 1 << 20)))
            guard [backupPhase, swapPhase].contains(journal.phase), !journal.databases.isEmpty else {
                throw RekeyError.journalUnreadable(path: path, cause: "unknown phase '\(journal.phase)'")
            }
            return journal
        } catch let error as RekeyError {
            throw error
        } catch {
            throw RekeyError.journalUnreadable(path: path, cause: ErrorCause.text(of: error))
        }
    }
}
