import Foundation
import SXSample
import SXTestSupport
import Testing

/// `sxkit archive export` and `sxkit archive list` run as a user would.
@Suite(.ownThreads) struct ArchiveCommandTests {
    static let passphraseEnvironment = ["SXKIT_PASSPHRASE": "correct horse battery staple"]

    func sample(_ dir: TempFolder) throws -> String {
        _ = try SampleCopies.create(at: dir.file("data"))
        return dir.file("data")
    }

    func export(_ data: String, _ out: String, _ extra: [String] = [], prefix: [String] = []) throws -> CLIResult {
        try CLI.run(["archive", "export", out, "--data-dir", data] + extra, environment: Self.passphraseEnvironment, prefix: prefix)
    }

    func temps(_ folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasPrefix(".sxkit-tmp-") }
    }

    func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
    }

    @Test func exportPrintsSummaryAndJSONAndRefusesExistingOutput() throws {
        let dir = try TempFolder()
        let data = try sample(dir)
        let out = dir.file("backup.zip")
        let human = try export(data, out)
        #expect(human.status == 0, "\(human.stderr)")
        #expect(human.stdout.contains("exported ") && human.stdout.contains("deflated") && human.stdout.contains("stored"))
        #expect(shell("unzip -tq '\(out)'") == 0 && shell("bsdtar -tf '\(out)' >/dev/null") == 0)

        let again = try export(data, out, ["--json"])
        #expect(again.status == 1 && again.stderr.contains("already exists") && again.stderr.contains("--force"))
        let before = try sha256(out)

        let forced = try export(data, out, ["--json", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let doc = try json(forced.stdout)
        #expect((doc["archiveErrors"] as? [Any])?.isEmpty == true)
        #expect((doc["entries"] as? Int ?? 0) >= 10)
        #expect((doc["bytes"] as? Int ?? 0) > (doc["archiveBytes"] as? Int ?? .max) / 2)
        #expect(doc["archiveBytes"] as? Int == (try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int))
        #expect(doc["seconds"] is Double || doc["seconds"] is Int)
        #expect(before.count == 64)
        #expect(temps(dir.path).isEmpty)
    }

    @Test func noCompressionStoresEveryEntry() throws {
        let dir = try TempFolder()
        let data = try sample(dir)
        let out = dir.file("stored.zip")
        #expect(try export(data, out, ["--no-compression", "-q"]).status == 0)
        let list = try CLI.run(["archive", "list", out, "--json"])
        #expect(list.status == 0)
        let rows = try #require((try JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(rows.count >= 10)
        #expect(rows.allSatisfy { $0["method"] as? String == "stored" && $0["bytes"] as? Int == $0["compressedBytes"] as? Int })
        let compressed = dir.file("deflated.zip")
        #expect(try export(data, compressed, ["-q"]).status == 0)
        let methods = try #require((try JSONSerialization.jsonObject(with: Data(try CLI.run(["archive", "list", compressed, "--json"]).stdout.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
        #expect(methods.contains { $0["method"] as? String == "deflate" })
    }

    /// Another program in the middle of a write transaction: the export must not copy the database
    /// mid-write; it fails with a sentence that says what to do, and leaves no file behind.
    @Test(.enabled(if: sqlcipherShellInstalled))
    func writerHoldingTheLockStopsTheExport() throws {
        let dir = try TempFolder()
        let data = try sample(dir)
        let shellProcess = Process()
        shellProcess.executableURL = URL(fileURLWithPath: sqlcipherShellPath)
        shellProcess.arguments = [data + "/simplex_v1_chat.db"]
        let input = Pipe()
        shellProcess.standardInput = input
        shellProcess.standardOutput = FileHandle.nullDevice
        shellProcess.standardError = FileHandle.nullDevice
        try shellProcess.run()
        defer {
            try? input.fileHandleForWriting.close()
            shellProcess.waitUntilExit()
        }
        input.fileHandleForWriting.write(Data("PRAGMA key = 'correct horse battery staple';\nBEGIN IMMEDIATE;\nCREATE TABLE held(x);\n".utf8))
        // Wait until the shell holds the write lock: another writer is then refused at once.
        var locked = false
        for _ in 0..<30 where !locked {
            Thread.sleep(forTimeInterval: 0.2)
            let probe = try sqlcipherShell(data + "/simplex_v1_chat.db", "PRAGMA key = 'correct horse battery staple';\nBEGIN IMMEDIATE;\n")
            locked = probe.error.contains("locked")
        }
        #expect(locked)

        let out = dir.file("out.zip")
        let r = try export(data, out)
        #expect(r.status == 1)
        #expect(r.stderr.contains("another program is writing to") && r.stderr.contains("close SimpleX Chat"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: out))
        #expect(temps(dir.path).isEmpty)
    }

    /// A file nobody may read: the export completes without it, names it, and exits 3.
    @Test func unreadableFileIsAnArchiveErrorAndTheRestIsArchived() throws {
        let dir = try TempFolder()
        let data = try sample(dir)
        try dir.write("data/simplex_v1_files/secret.txt", Array("private".utf8))
        shell("chmod 0777 '\(dir.path)' && chmod -R a+rwX '\(data)' && chmod 000 '\(data)/simplex_v1_files/secret.txt'")
        // Root reads everything: run as the unprivileged 'nobody' user when we are root.
        let prefix = getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
        let out = dir.file("out.zip")
        let r = try export(data, out, ["--json"], prefix: prefix)
        #expect(r.status == 3, "\(r.stdout) \(r.stderr)")
        let doc = try json(r.stdout)
        let errors = try #require(doc["archiveErrors"] as? [[String: Any]])
        #expect(errors.count == 1)
        #expect(errors.first?["type"] as? String == "fileError")
        // The bare file name, as simplex-chat's Archive.hs names a file in an ArchiveError.
        #expect(errors.first?["file"] as? String == "secret.txt")
        let message = errors.first?["fileError"] as? String ?? ""
        #expect(message.contains("Permission denied"), "\(message)")
        #expect(shell("unzip -tq '\(out)'") == 0)
        let list = try CLI.run(["archive", "list", out])
        #expect(list.stdout.contains("simplex_v1_chat.db") && list.stdout.contains("simplex_v1_files/IMG_1001.jpg"))
        #expect(!list.stdout.contains("secret.txt"))

        let human = try export(data, dir.file("out2.zip"), [], prefix: prefix)
        #expect(human.status == 3 && human.stderr.contains("secret.txt") && human.stdout.contains("1 NOT ARCHIVED"))
    }

    /// kill -9 at each crash point: nothing at OUT (or the old archive, untouched), a recognisable
    /// temp file, which the next export removes.
    @Test func killedExportLeavesNoArchiveAndTheNextRunCleansUp() throws {
        let dir = try TempFolder()
        let data = try sample(dir)
        let out = dir.file("out.zip")
        for point in ["export.mid-entry", "export.before-rename"] {
            let r = try CLI.run(["archive", "export", out, "--data-dir", data],
                                environment: Self.passphraseEnvironment.merging(["SXKIT_CRASH_AT": point]) { $1 })
            #expect(r.status == SIGKILL, "\(point): \(r.status) \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out), "\(point)")
            #expect(temps(dir.path).count == 1 && temps(dir.path)[0].hasPrefix(".sxkit-tmp-out.zip."), "\(point): \(temps(dir.path))")
            let next = try export(data, out)
            #expect(next.status == 0 && next.stderr.contains("removed 1 temp file"), "\(point): \(next.stderr)")
            #expect(temps(dir.path).isEmpty)
            #expect(shell("unzip -tq '\(out)'") == 0)
            // With --force the old archive stays whole when the new export is killed.
            let old = try sha256(out)
            let forced = try CLI.run(["archive", "export", out, "--force", "--data-dir", data],
                                     environment: Self.passphraseEnvironment.merging(["SXKIT_CRASH_AT": point]) { $1 })
            #expect(forced.status == SIGKILL)
            #expect(try sha256(out) == old)
            try FileManager.default.removeItem(atPath: out)
        }
    }

    @Test func listShowsInfoZipAndSxkitArchivesWithTheSameCRCsAsUnzip() throws {
        let dir = try TempFolder()
        let data = try sample(dir)
        let infoZip = dir.file("info.zip")
        #expect(shell("cd '\(data)' && zip -qr '\(infoZip)' simplex_v1_files simplex_v1_chat.db") == 0)
        let ours = dir.file("ours.zip")
        #expect(try export(data, ours, ["-q"]).status == 0)
        let untouched = try FolderSnapshot.take(dir.path)
        for archive in [infoZip, ours] {
            let text = try CLI.run(["archive", "list", archive])
            #expect(text.status == 0, "\(text.stderr)")
            let lines = text.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first?.hasPrefix("      size  compressed  method") == true || lines.first?.contains("compressed  method") == true, "\(lines.first ?? "")")
            #expect(text.stdout.contains("simplex_v1_files/IMG_1001.jpg") && text.stdout.contains("simplex_v1_chat.db"))
            // Columns line up: every row has the name starting at the same column as the header's.
            let nameColumn = try #require(lines.first?.range(of: "name")).lowerBound.utf16Offset(in: lines[0])
            for line in lines.dropFirst().dropLast() {
                #expect(String(line.dropFirst(nameColumn)).hasPrefix("simplex_v1_"), "\(line)")
            }
            let rows = try #require((try JSONSerialization.jsonObject(with: Data(try CLI.run(["archive", "list", archive, "--json"]).stdout.utf8)) as? [String: Any])?["entries"] as? [[String: Any]])
            // Cross-check sizes and CRCs with Info-ZIP's own listing.
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/unzip")
            p.arguments = ["-v", archive]
            let pipe = Pipe()
            p.standardOutput = pipe
            try p.run()
            let verbose = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            p.waitUntilExit()
            for row in rows {
                let name = row["name"] as! String
                let line = try #require(verbose.split(separator: "\n").first { $0.hasSuffix("  " + name) }, "\(name)")
                let fields = line.split(separator: " ")
                #expect(Int(fields[0]) == row["bytes"] as? Int, "\(name)")
                #expect(Int(fields[2]) == row["compressedBytes"] as? Int, "\(name)")
                #expect(String(fields[6]) == row["crc32"] as? String, "\(name)")
                #expect(fields[1].lowercased().hasPrefix(row["method"] as! String == "deflate" ? "defl" : "stored"), "\(name)")
            }
            #expect(rows.contains { $0["name"] as? String == "simplex_v1_files/" } == (archive == infoZip), "folder entries only from zip -r")
        }
        let after = try FolderSnapshot.take(dir.path)
        #expect(after == untouched, "list changed: \(after.differences(from: untouched))")
        let bad = try CLI.run(["archive", "list", data + "/simplex_v1_chat.db"])
        #expect(bad.status == 1 && bad.stderr.contains("is not a ZIP archive"))
    }
}
