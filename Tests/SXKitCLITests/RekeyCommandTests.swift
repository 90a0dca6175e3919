import Foundation
import SXTestSupport
import Testing

/// `sxkit db rekey` / `db recover` end to end, with kill -9 at every crash point and at random
/// instants: afterwards each database opens with exactly one of the two passphrases, recovery puts
/// both on the same one with their data intact, and a rerun completes.
@Suite("db rekey and recover", .ownThreads, .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlcipher"), "needs /usr/bin/sqlcipher"))
struct RekeyCommandTests {
    static let old = "old pass'wörd"
    static let new = "new \"pass\" ñ'"

    /// Every crash point of `DatabaseRekey.crashPoints` that a run without desktop settings reaches
    /// (`rekey.settings-staged` and `rekey.before-settings` are RekeyDesktopSettingsTests'), and the
    /// passphrase both databases end on once recovered: before the `swap` journal the originals
    /// stand, from it on the new copies do.
    static let crashPoints: [(String, rolledForward: Bool)] = [
        ("rekey.exported-1", false), ("rekey.exported-2", false), ("rekey.bak-copy", false), ("rekey.backed-up", false),
        ("rekey.journal-written", true), ("rekey.between-swaps", true), ("rekey.before-bak-removal", true),
        ("rekey.before-journal-delete", true),
    ]

    struct DataDir {
        let folder: TempFolder
        var path: String { folder.path }
        var chat: String { folder.file("simplex_v1_chat.db") }
        var agent: String { folder.file("simplex_v1_agent.db") }
        var databases: [String] { [chat, agent] }

        /// A WAL chat DB and a rollback-journal agent DB made by the `sqlcipher` shell.
        init(passphrase: String, rows: Int = 500) throws {
            folder = try TempFolder("sxkit-rekey")
            try shellSQL(chat, passphrase, """
                PRAGMA auto_vacuum = FULL; PRAGMA journal_mode = WAL;
                CREATE TABLE chat_items(id INTEGER PRIMARY KEY, text TEXT, blob BLOB);
                CREATE INDEX idx_text ON chat_items(text);
                INSERT INTO chat_items(text, blob) SELECT 'item ' || value, randomblob(value % 300) FROM generate_series(1, \(rows));
                PRAGMA user_version = 3;
                """)
            try shellSQL(agent, passphrase, "CREATE TABLE conns(id BLOB PRIMARY KEY, n INTEGER); INSERT INTO conns SELECT randomblob(16), value FROM generate_series(1, 100);")
        }

        func file(_ name: String) -> String { folder.file(name) }
        func exists(_ name: String) -> Bool { FileManager.default.fileExists(atPath: file(name)) }
        var leftovers: [String] {
            ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).filter {
                $0.hasSuffix(".exported") || $0.hasSuffix(".bak") || $0.hasSuffix(".rekey-journal") || $0.contains(".sxkit-tmp-")
            }.sorted()
        }
    }

    /// Runs SQL in the shell with a key; fails the test on an error.
    static func shellSQL(_ path: String, _ passphrase: String, _ sql: String) throws {
        let result = try shell(path, passphrase, sql)
        if result.status != 0 || !result.error.isEmpty {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "sqlcipher: \(result.error)"])
        }
    }

    static func shell(_ path: String, _ passphrase: String, _ script: String) throws -> (status: Int32, output: String, error: String) {
        let key = passphrase.isEmpty ? "" : "PRAGMA key = '\(passphrase.replacingOccurrences(of: "'", with: "''"))';\n"
        return try sqlcipherShell(path, key + script + "\n")
    }

    /// The shell's hash of schema and every row, or nil when the passphrase does not open the file.
    static func contentHash(_ path: String, _ passphrase: String) throws -> String? {
        let result = try shell(path, passphrase, "SELECT count(*) FROM sqlite_master;\n.sha3sum")
        guard result.status == 0, result.error.isEmpty else { return nil }
        return result.output.split(separator: "\n").last.map(String.init)
    }

    /// Which of the passphrases open `path` (by `sxkit db test-key`).
    static func opening(_ path: String, _ candidates: [String]) throws -> [String] {
        try candidates.filter { try CLI.run(["db", "test-key", "--db", path, "--quiet"], environment: ["SXKIT_PASSPHRASE": $0]).status == 0 }
    }

    static func rekeyArgs(_ dir: DataDir, from: String, to: String, _ extra: [String] = []) throws -> ([String], [String: String]) {
        let newFile = dir.file("new-passphrase")
        try Data(to.utf8).write(to: URL(fileURLWithPath: newFile))
        return (["db", "rekey", "--data-dir", dir.path, "--new-passphrase-file", newFile, "--quiet"] + extra, ["SXKIT_PASSPHRASE": from])
    }

    /// After a kill: each database opens with exactly one passphrase; `db test-key` warns when files
    /// are left; `db recover` settles both on the same passphrase with their data; a rerun completes.
    static func checkAfterKill(_ dir: DataDir, hashes: [String], expectForward: Bool?, context: String) throws {
        for db in dir.databases {
            let opens = try opening(db, [old, new])
            #expect(opens.count == 1, "\(context): \(db) opens with \(opens)")
        }
        if !dir.leftovers.isEmpty {
            let warned = try CLI.run(["db", "test-key", "--data-dir", dir.path, "--quiet"], environment: ["SXKIT_PASSPHRASE": old])
            #expect(warned.stderr.contains("run `sxkit db recover`"), "\(context): test-key did not warn: \(warned.stderr)")
        }
        let recover = try CLI.run(["db", "recover", "--data-dir", dir.path])
        #expect(recover.status == 0, "\(context): \(recover.stderr)")
        #expect(dir.leftovers.filter { !$0.hasSuffix(".bak") } == [], "\(context): leftovers \(dir.leftovers)")
        let settled = try opening(dir.chat, [old, new])
        let agentSettled = try opening(dir.agent, [old, new])
        #expect(settled.count == 1 && agentSettled == settled, "\(context): the databases do not share one passphrase")
        if let expectForward { #expect(settled == [expectForward ? new : old], "\(context): settled on \(settled)") }
        guard let current = settled.first else { return }
        for (db, hash) in zip(dir.databases, hashes) {
            #expect(try contentHash(db, current) == hash, "\(context): \(db) lost data")
        }
        let again = try CLI.run(["db", "recover", "--data-dir", dir.path])
        #expect(again.stdout.contains("Nothing to recover"), "\(context): \(again.stdout)")

        let target = current == old ? new : old
        let (args, env) = try rekeyArgs(dir, from: current, to: target)
        let rerun = try CLI.run(args, environment: env)
        #expect(rerun.status == 0, "\(context): the rerun failed: \(rerun.stderr)")
        for (db, hash) in zip(dir.databases, hashes) {
            #expect(try contentHash(db, target) == hash, "\(context): \(db) after the rerun")
        }
        #expect(dir.leftovers == [], "\(context): leftovers after the rerun: \(dir.leftovers)")
    }

    @Test func killedAtEachCrashPointRecoversToOnePassphrase() throws {
        for (point, forward) in Self.crashPoints {
            let dir = try DataDir(passphrase: Self.old)
            let hashes = try dir.databases.map { try #require(try Self.contentHash($0, Self.old)) }
            let (args, env) = try Self.rekeyArgs(dir, from: Self.old, to: Self.new)
            let killed = try CLI.run(args, environment: env.merging(["SXKIT_CRASH_AT": point]) { $1 })
            #expect(killed.status == 9 || killed.status == 137, "\(point): the run was not killed (status \(killed.status)): \(killed.stderr)")
            #expect(!dir.leftovers.isEmpty, "\(point): a kill there leaves nothing to recover?")
            try Self.checkAfterKill(dir, hashes: hashes, expectForward: forward, context: point)
        }
    }

    @Test func aRerunAfterAKillRecoversByItself() throws {
        let dir = try DataDir(passphrase: Self.old)
        let (args, env) = try Self.rekeyArgs(dir, from: Self.old, to: Self.new)
        _ = try CLI.run(args, environment: env.merging(["SXKIT_CRASH_AT": "rekey.bak-copy"]) { $1 })
        let rerun = try CLI.run(args.filter { $0 != "--quiet" }, environment: env)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("Found: an interrupted passphrase change"), "\(rerun.stdout)")
        #expect(try Self.opening(dir.chat, [Self.old, Self.new]) == [Self.new])
        #expect(try Self.opening(dir.agent, [Self.old, Self.new]) == [Self.new])
        #expect(dir.leftovers == [])
    }

    @Test func killedAtRandomInstantsRecoversToOnePassphrase() throws {
        var killed = 0
        for delay in [0.25, 0.6, 1.0] {
            let dir = try DataDir(passphrase: Self.old, rows: 60_000)
            let hashes = try dir.databases.map { try #require(try Self.contentHash($0, Self.old)) }
            let (args, env) = try Self.rekeyArgs(dir, from: Self.old, to: Self.new)
            let process = try CLI.start(args, environment: env)
            Thread.sleep(forTimeInterval: delay)
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                killed += 1
            }
            process.waitUntilExit()
            try Self.checkAfterKill(dir, hashes: hashes, expectForward: nil, context: "killed after \(delay) s")
        }
        #expect(killed >= 2, "the runs finished before they could be killed; make the databases bigger")
    }

    @Test func jsonReportAndKeptBackups() throws {
        let dir = try DataDir(passphrase: "")
        let (args, env) = try Self.rekeyArgs(dir, from: "", to: Self.new, ["--keep-backup"])
        let result = try CLI.run(args.filter { $0 != "--quiet" } + ["--json"], environment: env)
        #expect(result.status == 0, "\(result.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: Data(result.stdoutBytes)) as? [String: Any])
        let entries = try #require(doc["databases"] as? [[String: Any]])
        #expect(entries.map { $0["path"] as? String } == dir.databases)
        #expect(entries.allSatisfy { $0["oldCipher"] as? String == "plaintext" && $0["newCipher"] as? String == "sqlcipher4" && $0["seconds"] is Double })
        // Under --json the warning the text mode writes on stderr is in the document.
        #expect((doc["warnings"] as? [String])?.contains { $0.contains("OLD passphrase") } == true, "no warning about kept backups: \(result.stdout)")
        #expect(try Self.contentHash(dir.chat + ".bak", "") != nil, "the kept backup opens with the old (empty) passphrase")
        #expect(try Self.contentHash(dir.chat, Self.new) != nil)

        let decrypt = try CLI.run(["db", "rekey", "--data-dir", dir.path, "--decrypt"], environment: ["SXKIT_PASSPHRASE": Self.new])
        #expect(decrypt.status == 1)
        #expect(decrypt.stderr.contains(".bak' already exists"), "\(decrypt.stderr)")
        for db in dir.databases { try FileManager.default.removeItem(atPath: db + ".bak") }
        let decrypted = try CLI.run(["db", "rekey", "--data-dir", dir.path, "--decrypt"], environment: ["SXKIT_PASSPHRASE": Self.new])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        #expect(decrypted.stdout.contains("no longer encrypted"))
        #expect(try Self.contentHash(dir.chat, "") != nil)
        #expect(dir.leftovers == [])
    }

    @Test func theNewPassphraseNeverComesFromTheCommandLine() throws {
        let dir = try DataDir(passphrase: Self.old)
        let onArgv = try CLI.run(["db", "rekey", "--data-dir", dir.path, "--new-passphrase", "x"], environment: ["SXKIT_PASSPHRASE": Self.old])
        #expect(onArgv.status == 2, "an option that takes the passphrase itself must not exist")
        // No new passphrase, no terminal: a message that says where to put it, and no prompt.
        let none = try CLI.run(["db", "rekey", "--data-dir", dir.path], environment: ["SXKIT_PASSPHRASE": Self.old])
        #expect(none.status == 1)
        #expect(none.stderr.contains("--new-passphrase-file") && none.stderr.contains("SXKIT_NEW_PASSPHRASE"), "\(none.stderr)")
        #expect(!none.stderr.contains("Enter"))
        let conflict = try CLI.run(["db", "rekey", "--data-dir", dir.path, "--decrypt", "--new-passphrase-file", dir.file("x")],
                                   environment: ["SXKIT_PASSPHRASE": Self.old])
        #expect(conflict.status == 2)
        let same = try CLI.run(["db", "rekey", "--data-dir", dir.path], environment: ["SXKIT_PASSPHRASE": Self.old, "SXKIT_NEW_PASSPHRASE": Self.old])
        #expect(same.status == 1)
        #expect(same.stderr.contains("same as the current one"))
        #expect(try Self.opening(dir.chat, [Self.old, Self.new]) == [Self.old])
        #expect(dir.leftovers == [])
    }
}
