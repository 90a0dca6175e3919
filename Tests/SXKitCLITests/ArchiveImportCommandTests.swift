import Foundation
import SXCore
import SXDatabase
import SXSample
import SXTestSupport
import Testing

/// `archive import`, `archive verify` and `archive recover` end to end, on archives written by tools
/// the project did not write (Info-ZIP `zip`), from sample data directories.
@Suite(.ownThreads, .serialized) struct ArchiveImportCommandTests {
    static let newPassphrase = "correct horse battery staple"
    static let oldPassphrase = "old passphrase, different"

    /// A sample data directory (source of the archive: seed 1, default passphrase), zipped with `zip -r`.
    struct Fixture {
        let folder: TempFolder
        let archive: String
        let newPass: String
        let oldPass: String
        /// The target template: a sample data directory with seed 2 and the old passphrase.
        let template: String
        let archiveFiles: [String: String]
        let templateFiles: [String: String]

        init(stored: Bool = false, padding: Int = 0) throws {
            folder = try TempFolder("sx-import")
            let source = try SampleCopies.create(at: folder.file("source"))
            for i in 0..<padding {
                #expect(shell("head -c \(3 << 20) /dev/urandom > '\(source.directory.filesFolder!)/pad_\(i).bin'") == 0)
            }
            archive = folder.file(stored ? "stored.zip" : "deflated.zip")
            let zip = try tool("/usr/bin/zip", ["-q", "-r"] + (stored ? ["-0"] : []) + [archive, "simplex_v1_chat.db", "simplex_v1_agent.db", "simplex_v1_files", "simplex_v1_assets"],
                               cwd: source.directory.root)
            #expect(zip == 0)
            newPass = try folder.write("new.pass", Array(ArchiveImportCommandTests.newPassphrase.utf8))
            oldPass = try folder.write("old.pass", Array(ArchiveImportCommandTests.oldPassphrase.utf8))
            template = folder.file("template")
            _ = try SampleCopies.create(at: template, options: .init(seed: 2, passphrase: SecretBytes(Array(ArchiveImportCommandTests.oldPassphrase.utf8))))
            archiveFiles = try contentHashes(source.directory.root)
            templateFiles = try contentHashes(template)
        }

        /// A fresh copy of the template.
        func target(_ name: String) throws -> String {
            let path = folder.file(name)
            #expect(shell("cp -a '\(template)' '\(path)'") == 0)
            return path
        }

        /// Asserts the data directory is entirely the template's (old) or entirely the archive's (new).
        func expectWhole(_ root: String, new: Bool, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let (good, bad) = new ? (ArchiveImportCommandTests.newPassphrase, ArchiveImportCommandTests.oldPassphrase)
                                  : (ArchiveImportCommandTests.oldPassphrase, ArchiveImportCommandTests.newPassphrase)
            for db in ["simplex_v1_chat.db", "simplex_v1_agent.db"] {
                #expect(opens(root + "/" + db, good), "\(db) does not open with the \(new ? "archive's" : "old") passphrase", sourceLocation: sourceLocation)
                #expect(!opens(root + "/" + db, bad), "\(db) opens with the other passphrase", sourceLocation: sourceLocation)
                if new {
                    #expect(opens(root + "/" + db + ".bak", ArchiveImportCommandTests.oldPassphrase), "\(db).bak is not the old database", sourceLocation: sourceLocation)
                } else {
                    #expect(!FileManager.default.fileExists(atPath: root + "/" + db + ".bak"), sourceLocation: sourceLocation)
                }
            }
            #expect(try contentHashes(root) == (new ? archiveFiles : templateFiles), "files are not all \(new ? "new" : "old")", sourceLocation: sourceLocation)
            // The previous profile's files and wallpapers were moved aside whole into one folder, not merged.
            let previous = (try FileManager.default.contentsOfDirectory(atPath: root)).filter { $0.hasPrefix("simplex_v1_previous_") }
            if new {
                #expect(previous.count == 1, "\(previous)", sourceLocation: sourceLocation)
                if let folder = previous.first {
                    let moved = try contentHashes(root + "/" + folder, folders: ["files", "wallpapers"])
                    let expected = Dictionary(uniqueKeysWithValues: templateFiles.map { ($0.key.replacingOccurrences(of: "simplex_v1_files/", with: "files/")
                        .replacingOccurrences(of: "simplex_v1_assets/wallpapers/", with: "wallpapers/"), $0.value) })
                    #expect(moved == expected, "the previous folder does not hold the old profile's files", sourceLocation: sourceLocation)
                }
            } else {
                #expect(previous.isEmpty, "\(previous)", sourceLocation: sourceLocation)
            }
            for leftover in [".sxkit-import-staging", "simplex_v1_chat.db.import-journal"] {
                #expect(!FileManager.default.fileExists(atPath: root + "/" + leftover), "\(leftover) is left", sourceLocation: sourceLocation)
            }
        }
    }

    /// Under `umask 000` a new profile is still owner-only: its folders 0700, its files and
    /// databases 0600; and a passphrase file others can read is used but named.
    @Test func aProfileImportedUnderAnOpenUmaskIsOwnerOnly() throws {
        let f = try Fixture()
        let target = f.folder.file("open-umask")
        chmod(f.newPass, 0o644)
        let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--passphrase-file", f.newPass],
                              prefix: ["/bin/sh", "-c", "umask 000; exec \"$0\" \"$@\""])
        #expect(run.status == 0, "\(run.stderr)")
        #expect(run.stderr.contains("warning: the passphrase file \(f.newPass) can be read by others on this machine (mode 644)"), "\(run.stderr)")
        func mode(_ path: String) -> Int { POSIXFile.linkStatus(path).map { Int($0.st_mode & 0o777) } ?? -1 }
        #expect(mode(target) == 0o700)
        for entry in FileManager.default.enumerator(atPath: target)!.compactMap({ $0 as? String }) {
            let path = target + "/" + entry
            let expected = Folders.isFolder(path) ? 0o700 : 0o600
            #expect(mode(path) == expected, "\(entry) is \(String(mode(path), radix: 8))")
        }
        chmod(f.newPass, 0o600)
        let quiet = try CLI.run(["archive", "import", f.archive, "--data-dir", f.folder.file("private-pass"), "--passphrase-file", f.newPass])
        #expect(quiet.status == 0 && !quiet.stderr.contains("can be read by others"), "\(quiet.stderr)")
    }

    @Test func importsDeflatedAndStoredZipsExactly() throws {
        for stored in [false, true] {
            let f = try Fixture(stored: stored)
            let target = f.folder.file("fresh")
            let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--passphrase-file", f.newPass, "--json"])
            #expect(run.status == 0, "\(run.stderr)")
            let doc = try JSONSerialization.jsonObject(with: Data(run.stdoutBytes)) as? [String: Any]
            #expect((doc?["archiveErrors"] as? [Any])?.isEmpty == true)
            #expect(doc?["entries"] as? Int == 14)
            #expect(doc?["seconds"] is Double)
            #expect(try contentHashes(target) == f.archiveFiles)
            for db in ["simplex_v1_chat.db", "simplex_v1_agent.db"] {
                #expect(try sha256(target + "/" + db) == sha256(f.folder.file("source/" + db)))
                #expect(try rowCounts(target + "/" + db) == rowCounts(f.folder.file("source/" + db)))
            }
            let mode = try FileManager.default.attributesOfItem(atPath: target + "/simplex_v1_chat.db")[.posixPermissions] as? Int
            #expect(mode == 0o600)
        }
    }

    @Test func importOverADataDirectoryKeepsTheOldOnesAside() throws {
        let f = try Fixture()
        let target = try f.target("existing")
        // A file only the old profile has: it must not become an orphan of the new one.
        try Data("old profile only".utf8).write(to: URL(fileURLWithPath: target + "/simplex_v1_files/stale.txt"))
        let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass, "--json"])
        #expect(run.status == 0, "\(run.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(run.stdoutBytes)) as? [String: Any]
        #expect((doc?["archiveErrors"] as? [Any])?.isEmpty == true)
        let previous = try #require((doc?["previousFolders"] as? [String]))
        #expect(previous.count == 2 && previous[0].hasPrefix(target + "/simplex_v1_previous_") && previous[0].hasSuffix("/files")
                && previous[1].hasSuffix("/wallpapers"), "\(previous)")
        #expect(!FileManager.default.fileExists(atPath: target + "/simplex_v1_files/stale.txt"))
        #expect(FileManager.default.fileExists(atPath: previous[0] + "/stale.txt"))
        try FileManager.default.removeItem(atPath: previous[0] + "/stale.txt")
        try f.expectWhole(target, new: true)
        // A second import is refused while the backups are in the way, naming one.
        let again = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass])
        #expect(again.status == 1)
        #expect(again.stderr.contains("simplex_v1_chat.db.bak"))
    }

    /// Entries outside the layout that are not hostile (a folder inside the files folder, an unknown
    /// file at the top) are skipped, each reported as an `import` ArchiveError, as SimpleX ignores them.
    @Test func entriesOutsideTheLayoutAreSkippedAndReported() throws {
        let f = try Fixture()
        let source = f.folder.file("source")
        try FileManager.default.createDirectory(atPath: source + "/simplex_v1_files/nested", withIntermediateDirectories: true)
        try Data("inside a folder".utf8).write(to: URL(fileURLWithPath: source + "/simplex_v1_files/nested/deep.txt"))
        try Data("at the top".utf8).write(to: URL(fileURLWithPath: source + "/notes.txt"))
        #expect(try tool("/usr/bin/zip", ["-q", "-r", f.archive, "simplex_v1_files/nested", "notes.txt"], cwd: source) == 0)
        let verify = try CLI.run(["archive", "verify", f.archive, "--passphrase-file", f.newPass])
        #expect(verify.status == 0 && verify.stdout.contains("note    'notes.txt' is outside the chat archive layout"), "\(verify.stdout)")
        let target = f.folder.file("fresh")
        let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--passphrase-file", f.newPass, "--json"])
        #expect(run.status == 3, "\(run.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(run.stdoutBytes)) as? [String: Any]
        let errors = doc?["archiveErrors"] as? [[String: Any]] ?? []
        let named = errors.compactMap { $0["importError"] as? String }
        #expect(errors.allSatisfy { $0["type"] as? String == "import" })
        #expect(named.contains { $0.hasPrefix("'simplex_v1_files/nested/deep.txt'") && $0.contains("skipped") }, "\(named)")
        #expect(named.contains { $0.hasPrefix("'notes.txt'") }, "\(named)")
        #expect(!FileManager.default.fileExists(atPath: target + "/simplex_v1_files/nested") && !FileManager.default.fileExists(atPath: target + "/notes.txt"))
        #expect(try contentHashes(target) == f.archiveFiles)
    }

    @Test func wrongPassphraseIsRefusedBeforeAnyChange() throws {
        let f = try Fixture()
        let target = try f.target("existing")
        let before = try FolderSnapshot.take(target)
        let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.oldPass])
        #expect(run.status == 1)
        #expect(run.stderr.contains("the passphrase is wrong: it does not open"), "\(run.stderr)")
        #expect(try FolderSnapshot.take(target) == before)
    }

    @Test func databasesHeldByAnotherProcessAreNotReplaced() throws {
        let f = try Fixture()
        let target = try f.target("existing")
        let before = try FolderSnapshot.take(target)
        // SQLite's shared-lock bytes, taken the way another SQLite process would hold them.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        holder.arguments = ["-c", "import fcntl,sys,time\nf=open(sys.argv[1],'rb')\nfcntl.lockf(f,fcntl.LOCK_SH,510,0x40000002,0)\nprint('locked',flush=True)\ntime.sleep(30)",
                            target + "/simplex_v1_chat.db"]
        let out = Pipe()
        holder.standardOutput = out
        try holder.run()
        defer { kill(holder.processIdentifier, SIGKILL); holder.waitUntilExit() }
        _ = out.fileHandleForReading.availableData
        let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass])
        #expect(run.status == 1)
        #expect(run.stderr.contains("open in another program"), "\(run.stderr)")
        #expect(try FolderSnapshot.take(target) == before)
    }

    @Test func killedAtEachCrashPointLeavesTheOldOrTheNewDataDirectory() throws {
        let f = try Fixture()
        let points = ["import.staging-created", "import.entry-staged", "import.staged", "import.journal-written",
                      "import.db-backed-up", "import.chat-db-swapped", "import.agent-db-swapped", "import.folder-replaced",
                      "import.files-moved", "import.staging-removed"]
        for (i, point) in points.enumerated() {
            let target = try f.target("crash-\(i)")
            let run = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass],
                                  environment: [CrashPoint.environmentVariable: point])
            #expect(run.status == SIGKILL, "\(point): not killed (\(run.status)) \(run.stderr)")
            let noticed = try CLI.run(["db", "test-key", "--data-dir", target, "--passphrase-file", f.oldPass])
            #expect(noticed.stderr.contains("interrupted archive import"), "\(point): \(noticed.stderr)")
            let recover = try CLI.run(["archive", "recover", "--data-dir", target])
            #expect(recover.status == 0 || recover.status == 3, "\(point): \(recover.stderr)")
            try f.expectWhole(target, new: i >= points.firstIndex(of: "import.journal-written")!)
            let again = try CLI.run(["archive", "recover", "--data-dir", target])
            #expect(again.stdout.contains("Nothing to recover"))
        }
    }

    @Test func timerKillsLeaveTheOldOrTheNewDataDirectory() throws {
        let f = try Fixture(stored: true, padding: 30)
        // Kill times are fractions of how long a whole import takes on this machine (a fixed 0.5 s
        // missed every import but the first on a fast one).
        let timed = try f.target("timer-whole")
        let clock = ContinuousClock()
        let started = clock.now
        let whole = try CLI.run(["archive", "import", f.archive, "--data-dir", timed, "--force", "--passphrase-file", f.newPass, "--quiet"])
        #expect(whole.status == 0 || whole.status == 3, "\(whole.stderr)")
        let duration = started.duration(to: clock.now)
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        var killed = 0
        for (i, delay) in [0.1, 0.3, 0.55, 0.8].map({ $0 * seconds }).enumerated() {
            let target = try f.target("timer-\(i)")
            let p = try CLI.start(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass, "--quiet"])
            Thread.sleep(forTimeInterval: delay)
            if p.isRunning { kill(p.processIdentifier, SIGKILL); killed += 1 }
            p.waitUntilExit()
            let recover = try CLI.run(["archive", "recover", "--data-dir", target])
            #expect(recover.status == 0 || recover.status == 3, "\(recover.stderr)")
            let isNew = opens(target + "/simplex_v1_chat.db", ArchiveImportCommandTests.newPassphrase)
            try f.expectWhole(target, new: isNew)
        }
        #expect(killed >= 2, "the imports finished before they could be killed; make the archive bigger")
    }

    @Test func theNextImportRollsBackAnInterruptedOne() throws {
        let f = try Fixture()
        let target = try f.target("again")
        let first = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass],
                                environment: [CrashPoint.environmentVariable: "import.staged"])
        #expect(first.status == SIGKILL)
        let second = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(second.stdoutBytes)) as? [String: Any]
        #expect((doc?["recovery"] as? [String: Any])?["action"] as? String == "rolledBack")
        try f.expectWhole(target, new: true)
    }

    /// Killed past its point of no return, the same import run again finds it finished (by its own
    /// recovery) and stops there: before, it imported the archive a second time over itself, so the
    /// data directory's `.bak` files were copies of the archive's databases, and the old profile's
    /// were lost. Into an empty data directory no `.bak` appears at all.
    @Test(arguments: ["import.journal-written", "import.db-backed-up", "import.chat-db-swapped", "import.agent-db-swapped",
                      "import.folder-replaced", "import.files-moved", "import.staging-removed"])
    func theSameImportRunAgainAfterAKillImportsOnce(point: String) throws {
        let f = try Fixture()
        let target = try f.target("rerun")
        let args = ["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass]
        let killed = try CLI.run(args, environment: [CrashPoint.environmentVariable: point])
        #expect(killed.status == SIGKILL, "\(point): not killed (\(killed.status)) \(killed.stderr)")
        let again = try CLI.run(args)
        #expect(again.status == 0, "\(point): \(again.stderr)")
        #expect(again.stdout.contains("Recovered: finished the import"), "\(again.stdout)")
        #expect(again.stdout.contains("is complete in \(target); nothing was imported twice."), "\(again.stdout)")
        #expect(!again.stdout.contains("Imported "), "\(again.stdout)")
        try f.expectWhole(target, new: true)

        // An empty data directory has no databases to back up.
        guard point != "import.db-backed-up" else { return }
        let empty = f.folder.file("rerun-empty")
        let first = try CLI.run(["archive", "import", f.archive, "--data-dir", empty, "--passphrase-file", f.newPass, "--json"],
                                environment: [CrashPoint.environmentVariable: point])
        #expect(first.status == SIGKILL)
        let second = try CLI.run(["archive", "import", f.archive, "--data-dir", empty, "--passphrase-file", f.newPass, "--json"])
        #expect(second.status == 0, "\(second.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(second.stdoutBytes)) as? [String: Any]
        #expect(doc?["finishedInterruptedImport"] as? Bool == true && doc?["entries"] as? Int == 0, "\(String(decoding: second.stdoutBytes, as: UTF8.self))")
        let names = try FileManager.default.contentsOfDirectory(atPath: empty)
        #expect(names.filter { $0.hasSuffix(".bak") || $0.hasPrefix("simplex_v1_previous_") || $0.hasPrefix(".sxkit") }.isEmpty, "\(names)")
        #expect(opens(empty + "/simplex_v1_chat.db", Self.newPassphrase) && opens(empty + "/simplex_v1_agent.db", Self.newPassphrase))
    }

    /// Another archive (or the same one rewritten: a new modification time) after the kill is a new
    /// import: the interrupted one is finished, and the backups it made of the old profile are then
    /// in the way of this one (refused, as any import over a `.bak`), so nothing of the old profile is lost.
    @Test func anotherArchiveAfterAKillIsImportedOverTheFinishedOne() throws {
        let f = try Fixture()
        let target = try f.target("other")
        let killed = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass],
                                 environment: [CrashPoint.environmentVariable: "import.chat-db-swapped"])
        #expect(killed.status == SIGKILL)
        #expect(shell("touch '\(f.archive)'") == 0)
        let again = try CLI.run(["archive", "import", f.archive, "--data-dir", target, "--force", "--passphrase-file", f.newPass])
        #expect(again.status == 1, "\(again.stdout) \(again.stderr)")
        #expect(again.stderr.contains(".bak"), "the finished import's backups are in the way of a second one: \(again.stderr)")
        #expect(!again.stdout.contains("nothing was imported twice"))
    }

    /// An archive dated past 2262 (nanoseconds since 1970 no longer fit 64 bits) imports, no trap.
    @Test func anArchiveFromTheFarFutureImports() throws {
        let f = try Fixture()
        #expect(shell("touch -d @10000000000 '\(f.archive)'") == 0)
        let run = try CLI.run(["archive", "import", f.archive, "--data-dir", f.folder.file("future"), "--passphrase-file", f.newPass])
        #expect(run.status == 0, "\(run.stderr)")
    }

    @Test func verifyPassesAGoodArchiveAndNamesADamagedEntry() throws {
        let f = try Fixture(stored: true)
        let good = try CLI.run(["archive", "verify", f.archive, "--passphrase-file", f.newPass])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(good.stdout.contains("the archive is sound"))
        #expect(good.stdout.contains("quick_check: ok"))
        let wrong = try CLI.run(["archive", "verify", f.archive, "--passphrase-file", f.oldPass])
        #expect(wrong.status == 1)
        #expect(wrong.stdout.contains("passphrase is wrong"))

        // Flip one byte in the middle of a stored entry's data: its CRC no longer matches.
        let damaged = f.folder.file("damaged.zip")
        let script = """
            import sys, zipfile, struct
            src, dst, name = sys.argv[1:4]
            data = bytearray(open(src, 'rb').read())
            i = zipfile.ZipFile(src).getinfo(name)
            n, e = struct.unpack_from('<HH', data, i.header_offset + 26)
            data[i.header_offset + 30 + n + e + i.compress_size // 2] ^= 0xFF
            open(dst, 'wb').write(data)
            """
        #expect(try tool("/usr/bin/python3", ["-c", script, f.archive, damaged, "simplex_v1_files/README.md"]) == 0)
        let bad = try CLI.run(["archive", "verify", damaged])
        #expect(bad.status == 1)
        #expect(bad.stdout.contains("FAILED  simplex_v1_files/README.md"), "\(bad.stdout)")
        #expect(bad.stdout.contains("CRC"))

        // Import takes the rest and names the damaged file (exit 3).
        let target = f.folder.file("partial")
        let run = try CLI.run(["archive", "import", damaged, "--data-dir", target, "--passphrase-file", f.newPass, "--json"])
        #expect(run.status == 3, "\(run.stderr)")
        let doc = try JSONSerialization.jsonObject(with: Data(run.stdoutBytes)) as? [String: Any]
        let errors = doc?["archiveErrors"] as? [[String: Any]] ?? []
        #expect(errors.count == 1)
        #expect(errors.first?["type"] as? String == "fileError")
        #expect(errors.first?["file"] as? String == "README.md")
        #expect(!FileManager.default.fileExists(atPath: target + "/simplex_v1_files/README.md"))
        var expected = f.archiveFiles
        expected["simplex_v1_files/README.md"] = nil
        #expect(try contentHashes(target) == expected)
    }
}

/// SHA-256 of every file in the files and wallpapers folders, keyed by path relative to `root`.
func contentHashes(_ root: String, folders: [String] = ["simplex_v1_files", "simplex_v1_assets/wallpapers"]) throws -> [String: String] {
    var hashes: [String: String] = [:]
    for folder in folders {
        let path = root + "/" + folder
        guard FileManager.default.fileExists(atPath: path) else { continue }
        for name in try FileManager.default.contentsOfDirectory(atPath: path) {
            hashes[folder + "/" + name] = try sha256(path + "/" + name)
        }
    }
    return hashes
}

func opens(_ database: String, _ passphrase: String) -> Bool {
    KeyTester.test(DatabaseTarget(role: nil, path: database), passphrase: SecretBytes(Array(passphrase.utf8))).outcome == .correct
}

/// Rows of every table, opened read-only (immutable) with the archive's passphrase.
func rowCounts(_ database: String) throws -> [String: Int64] {
    let (connection, _) = try DatabaseOpener.open(database, passphrase: SecretBytes(Array(ArchiveImportCommandTests.newPassphrase.utf8)), mode: .immutable)
    var counts: [String: Int64] = [:]
    for row in try connection.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
        guard case .text(let table)? = row.first else { continue }
        counts[table] = try connection.scalarInt("SELECT count(*) FROM \"\(table)\"")
    }
    return counts
}

/// Runs a tool the project did not write; returns its exit status.
func tool(_ executable: String, _ arguments: [String], cwd: String? = nil) throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    try process.run()
    process.waitUntilExit()
    return process.terminationStatus
}
