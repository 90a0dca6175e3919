import CSQLCipher
import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

/// `DatabaseRekey` on a chat + agent pair: data, settings and cipher after each kind of change,
/// cross-checked with the `sqlcipher` shell; refusals leave every byte as it was.
@Suite("Database rekey", .ownThreads, .enabled(if: sqlcipherShellInstalled, "needs /usr/bin/sqlcipher"))
struct RekeyTests {
    /// A data directory with a WAL-mode chat DB (auto_vacuum FULL, user_version 7, an index) and a
    /// rollback-journal agent DB.
    static func makePair(_ dir: TempFolder, passphrase: String, chatRows: Int = 300) throws -> DatabaseSet {
        let set = DatabaseSet(dataDirectory: DataDirectory(root: dir.path, layout: .desktop))
        let chat = try open(set.targets[0].path, passphrase, mode: .readWriteCreate)
        try chat.execute("""
            PRAGMA auto_vacuum = FULL; PRAGMA journal_mode = WAL;
            CREATE TABLE contacts(contact_id INTEGER PRIMARY KEY, name TEXT NOT NULL, note BLOB);
            CREATE INDEX idx_contacts_name ON contacts(name);
            \(series(chatRows)) INSERT INTO contacts(name, note) SELECT 'contact ' || value, randomblob(value % 50) FROM series;
            CREATE TABLE chat_items(id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT, ts REAL);
            INSERT INTO chat_items(text, ts) VALUES ('héllo ''quoted''', 1.5), (NULL, 2.25);
            PRAGMA user_version = 7;
            """)
        let agent = try open(set.targets[1].path, passphrase, mode: .readWriteCreate)
        try agent.execute("CREATE TABLE connections(conn_id BLOB PRIMARY KEY, status TEXT); INSERT INTO connections VALUES (x'0102', 'ready'), (x'0304', 'new');")
        return set
    }

    /// Every row of every table, schema and settings: what a rekey must keep.
    static func contents(_ path: String, _ passphrase: String) throws -> [String] {
        let (db, _) = try DatabaseOpener.open(path, passphrase: secret(passphrase), mode: .readOnly)
        var out = try db.rows("SELECT type, name, sql FROM sqlite_master ORDER BY name").map { "\($0)" }
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            guard case .text(let table) = row[0] else { continue }
            out += try db.rows("SELECT * FROM \"\(table)\" ORDER BY rowid").map { "\(table): \($0)" }
        }
        for pragma in ["user_version", "auto_vacuum", "journal_mode"] {
            out.append("\(pragma) = \(try db.scalarText("PRAGMA \(pragma)") ?? "nil")")
        }
        return out
    }

    static func noLeftovers(_ set: DatabaseSet) -> Bool {
        let fm = FileManager.default
        let names = (try? fm.contentsOfDirectory(atPath: Path.parent(set.targets[0].path))) ?? []
        return !names.contains { $0.hasSuffix(".exported") || $0.hasSuffix(".bak") || $0.hasSuffix(".rekey-journal") || $0.contains(".sxkit-tmp-") }
    }

    func shellOpens(_ path: String, _ passphrase: String) throws -> Bool {
        let quoted = passphrase.replacingOccurrences(of: "'", with: "''")
        let key = passphrase.isEmpty ? "" : "PRAGMA key = '\(quoted)';\n"
        let result = try sqlcipherShell(path, key + "SELECT count(*) FROM sqlite_master;\n")
        return result.status == 0 && result.error.isEmpty
    }

    @Test func setChangeAndRemoveThePassphraseKeepEverything() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "")
        let before = try set.targets.map { try Self.contents($0.path, "") }
        #expect(before[0].contains("journal_mode = wal") && before[0].contains("auto_vacuum = 1") && before[0].contains("user_version = 7"))

        // plaintext → encrypted → another passphrase → plaintext; quotes, spaces and non-ASCII both sides.
        let steps = [("", "n'ew pass wörd 🔑"), ("n'ew pass wörd 🔑", "an''other ä b"), ("an''other ä b", "")]
        for (old, new) in steps {
            let report = try DatabaseRekey.run(set, current: secret(old), new: secret(new))
            #expect(report.databases.map(\.oldCipher) == Array(repeating: old.isEmpty ? .plaintext : .sqlcipher4, count: 2))
            #expect(report.databases.map(\.newCipher) == Array(repeating: new.isEmpty ? .plaintext : .sqlcipher4, count: 2))
            for (i, target) in set.targets.enumerated() {
                #expect(try Self.contents(target.path, new) == before[i], "\(target.label) changed after \(old) → \(new)")
                #expect(try shellOpens(target.path, new), "the shell does not open \(target.path) with the new passphrase")
                #expect(try !shellOpens(target.path, old), "the shell still opens \(target.path) with the old passphrase")
                let expected: DatabaseFileKind = new.isEmpty ? .plaintextSQLite : .encryptedOrNotDatabase(looksRandom: true)
                #expect(try DatabaseFileKind.classify(path: target.path) == expected)
            }
            #expect(Self.noLeftovers(set), "backups, copies or journal left after success")
            #expect(RekeyRecovery.pending(for: set) == nil)
        }
    }

    @Test func sqlcipher3DatabaseComesOutAsSQLCipher4() throws {
        let dir = try TempFolder()
        let path = dir.file("old_chat.db")
        let made = try sqlcipherShell(path, "PRAGMA key = 'v3'; PRAGMA cipher_compatibility = 3; CREATE TABLE t(a); INSERT INTO t VALUES (1), (2), (3);\n")
        #expect(made.status == 0, "\(made.error)")
        let set = DatabaseSet(file: path)
        let report = try DatabaseRekey.run(set, current: secret("v3"), new: secret("v4 now"))
        #expect(report.databases.first?.oldCipher == .sqlcipher3)
        #expect(report.databases.first?.newCipher == .sqlcipher4)
        let (db, cipher) = try DatabaseOpener.open(path, passphrase: secret("v4 now"), mode: .readOnly)
        #expect(cipher == .sqlcipher4)
        #expect(try db.scalarInt("SELECT sum(a) FROM t") == 6)
        #expect(try db.scalarInt("PRAGMA cipher_page_size") == 4096)
        let shell = try sqlcipherShell(path, "PRAGMA key = 'v4 now'; SELECT sum(a) FROM t;\n")
        #expect(shell.output.split(separator: "\n").last == "6", "\(shell.output) \(shell.error)")
    }

    @Test func theSamePassphraseIsRefused() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "same")
        #expect(throws: RekeyError.samePassphrase) { try DatabaseRekey.run(set, current: secret("same"), new: secret("same")) }
    }

    @Test func aWrongCurrentPassphraseChangesNothing() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "right")
        let error = try #require(throws: DatabaseError.self) { try DatabaseRekey.run(set, current: secret("wrong"), new: secret("new")) }
        #expect(error.isNotADatabase)
        #expect(try shellOpens(set.targets[0].path, "right") && shellOpens(set.targets[1].path, "right"))
        #expect(Self.noLeftovers(set))
    }

    @Test func backupsAreRemovedUnlessKeptAndAKeptBackupOpensWithTheOldPassphrase() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "old")
        _ = try DatabaseRekey.run(set, current: secret("old"), new: secret("mid"))
        #expect(Self.noLeftovers(set))
        let report = try DatabaseRekey.run(set, current: secret("mid"), new: secret("new"), options: RekeyOptions(keepBackup: true))
        for (target, result) in zip(set.targets, report.databases) {
            let backup = target.path + ".bak"
            #expect(result.backup == backup)
            #expect(try shellOpens(backup, "mid"), "a kept backup opens with the old passphrase")
            #expect(try !shellOpens(backup, "new"))
            #expect(try shellOpens(target.path, "new"))
            #expect(POSIXFile.linkStatus(backup).map { $0.st_mode & 0o777 } == 0o600)
        }
        // A backup from an earlier run is never overwritten.
        #expect(throws: RekeyError.backupExists(path: set.targets[0].path + ".bak")) {
            try DatabaseRekey.run(set, current: secret("new"), new: secret("newer"))
        }
    }

    @Test func aDatabaseLockedByAnotherProcessIsRefusedAndNothingChanges() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "old")
        let hashes = try set.targets.map { try Data(contentsOf: URL(fileURLWithPath: $0.path)) }
        for locked in set.targets {
            // A second process holding a write lock, kept open through the pipe.
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: sqlcipherShellPath)
            shell.arguments = [locked.path]
            let input = Pipe(), output = Pipe()
            shell.standardInput = input
            shell.standardOutput = output
            shell.standardError = FileHandle.nullDevice
            try shell.run()
            defer {
                try? input.fileHandleForWriting.close()
                shell.waitUntilExit()
            }
            input.fileHandleForWriting.write(Data("PRAGMA key = 'old';\nBEGIN EXCLUSIVE;\nSELECT 'lock' || 'ed';\n".utf8))
            var seen = ""
            while !seen.contains("locked") {
                let chunk = output.fileHandleForReading.availableData
                #expect(!chunk.isEmpty, "the shell ended before taking the lock")
                if chunk.isEmpty { return }
                seen += String(decoding: chunk, as: UTF8.self)
            }
            let error = try #require(throws: RekeyError.self) { try DatabaseRekey.run(set, current: secret("old"), new: secret("new")) }
            #expect(error == .databaseInUse(path: locked.path))
            #expect(error.description.contains(locked.path) && error.description.contains("close SimpleX Chat"))
            #expect(error.description.contains("nothing was changed"))
            #expect(try set.targets.map { try Data(contentsOf: URL(fileURLWithPath: $0.path)) } == hashes)
            #expect(Self.noLeftovers(set))
        }
    }

    @Test(.enabled(if: getuid() == 0, "mounts a tmpfs"))
    func aDiskWithoutRoomForTheCopyIsRefusedUpFrontAndChangesNothing() throws {
        let dir = try TempFolder()
        let mount = dir.file("small")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: true)
        guard run("/bin/mount", ["-t", "tmpfs", "-o", "size=3m", "tmpfs", mount]) == 0 else {
            Issue.record("cannot mount a tmpfs")
            return
        }
        defer { run("/bin/umount", [mount]) }
        let small = DatabaseSet(dataDirectory: DataDirectory(root: mount, layout: .desktop))
        // A 2 MiB chat DB on a 3 MiB disk: its new copy cannot fit.
        let chat = try open(small.targets[0].path, "old", mode: .readWriteCreate)
        try chat.execute("CREATE TABLE blobs(b BLOB); \(series(1900)) INSERT INTO blobs SELECT randomblob(1000) FROM series;")
        let agent = try open(small.targets[1].path, "old", mode: .readWriteCreate)
        try agent.execute("CREATE TABLE c(x); INSERT INTO c VALUES (1);")
        let before = try small.targets.map { try Data(contentsOf: URL(fileURLWithPath: $0.path)) }

        // Refused before the export starts (it used to run into the full disk part-way, and roll back).
        let error = try #require(throws: NotEnoughSpace.self) { try DatabaseRekey.run(small, current: secret("old"), new: secret("new")) }
        #expect(error.purpose == "changing the passphrase" && error.spare == FreeSpace.spareBytes, "\(error)")
        #expect(error.description.contains("keeping 64.0 MiB spare") && error.description.hasSuffix("nothing was changed"))
        #expect(try small.targets.map { try Data(contentsOf: URL(fileURLWithPath: $0.path)) } == before, "an original changed")
        #expect(Self.noLeftovers(small), "a partial copy was left on the full disk")
        #expect(try shellOpens(small.targets[0].path, "old"))
    }

    @Test func recoveryRefusesWhileAnotherProcessHasTheDatabaseOpen() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "old")
        try Data("leftover".utf8).write(to: URL(fileURLWithPath: set.targets[0].path + ".exported"))
        // An idle reader of the WAL-mode chat DB, as the running app would be.
        let shell = Process()
        shell.executableURL = URL(fileURLWithPath: sqlcipherShellPath)
        shell.arguments = [set.targets[0].path]
        let input = Pipe(), output = Pipe()
        shell.standardInput = input
        shell.standardOutput = output
        shell.standardError = FileHandle.nullDevice
        try shell.run()
        input.fileHandleForWriting.write(Data("PRAGMA key = 'old';\nSELECT 'open' || 'ed', count(*) FROM contacts;\n".utf8))
        var seen = ""
        while !seen.contains("opened") {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(throws: RekeyError.databaseInUse(path: set.targets[0].path)) { try RekeyRecovery.recover(set) }
        #expect(FileManager.default.fileExists(atPath: set.targets[0].path + ".exported"), "a refused recovery deleted the copy")
        try input.fileHandleForWriting.close()
        shell.waitUntilExit()
        #expect(try RekeyRecovery.recover(set).action == .rolledBack)
    }

    @Test func recoveryRollsBackWhenNoDatabaseWasReplaced() throws {
        let dir = try TempFolder()
        let set = try Self.makePair(dir, passphrase: "old")
        #expect(try RekeyRecovery.recover(set).action == .none)
        // What a crash right after the first export leaves.
        try Data("not yet verified".utf8).write(to: URL(fileURLWithPath: set.targets[0].path + ".exported"))
        let pending = try #require(RekeyRecovery.pending(for: set))
        #expect(pending.operation == .passphraseChange)
        #expect(pending.summary.contains("no database had been replaced"))
        let report = try RekeyRecovery.recover(set)
        #expect(report.action == .rolledBack)
        #expect(report.removed == [set.targets[0].path + ".exported"])
        #expect(Self.noLeftovers(set))
        #expect(try shellOpens(set.targets[0].path, "old") && shellOpens(set.targets[1].path, "old"))
    }
}

@discardableResult
private func run(_ tool: String, _ arguments: [String]) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: tool)
    p.arguments = arguments
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return -1 }
    p.waitUntilExit()
    return p.terminationStatus
}

/// A `WITH` clause naming the integers 1…n `series(value)` (the library has no generate_series).
func series(_ n: Int) -> String {
    "WITH RECURSIVE series(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM series WHERE value < \(n))"
}
