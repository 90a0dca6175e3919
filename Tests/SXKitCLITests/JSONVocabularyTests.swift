import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// One JSON vocabulary for every `--json` output (issue 15, README "JSON output"): a one-shot command
/// prints one compact object on one line; a stream prints one `"type"`-tagged object a line; our own
/// keys never say `source`/`file`/`outcome`/`event`/milliseconds; times are ISO 8601 UTC with `Z`;
/// a fatal error is one JSON object on stderr besides the exit status.
@Suite(.ownThreads, .serialized) struct JSONVocabularyTests {
    static let passphrase = "correct horse battery staple"
    static let env = ["SXKIT_PASSPHRASE": passphrase]

    /// Keys the vocabulary replaced (by `path`/`output`, `status`, `type`, `seconds`).
    static let bannedKeys: Set<String> = ["source", "file", "dest", "destination", "target", "outcome", "result", "state",
                                          "event", "milliseconds", "elapsedSeconds", "elapsed", "ms"]
    /// Keys holding SimpleX's own objects, whose field names are SimpleX's (DBMigrationResult, ArchiveError, MigrationPlan's MTRError).
    static let simplexKeys: Set<String> = ["migrationResult", "archiveErrors", "plan"]
    static let timeSuffixes = ["At", "Time", "time", "Date", "date", "Timestamp"]
    /// ISO 8601 in UTC: `2026-11-26T17:03:00Z`, a fraction allowed.
    static func isISOUTC(_ text: String) -> Bool {
        text.wholeMatch(of: #/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z/#) != nil
    }

    // MARK: checks

    /// Every vocabulary problem in a decoded value: banned keys, and times that are not ISO 8601 UTC.
    static func problems(_ value: Any, at path: String = "") -> [String] {
        if let list = value as? [Any] { return list.enumerated().flatMap { problems($1, at: "\(path)[\($0)]") } }
        guard let object = value as? [String: Any] else { return [] }
        // SimpleX's transfer events (`sndFile…`, `rcvFile…`) keep SimpleX's fields.
        if let type = object["type"] as? String, type.hasPrefix("snd") || type.hasPrefix("rcv") { return [] }
        var found: [String] = []
        for (key, child) in object {
            let here = path.isEmpty ? key : "\(path).\(key)"
            if bannedKeys.contains(key) { found.append("banned key \(here)") }
            if timeSuffixes.contains(where: { key.hasSuffix($0) }), let text = child as? String, !isISOUTC(text) {
                found.append("\(here) is not ISO 8601 UTC: \(text)")
            }
            if timeSuffixes.contains(where: { key.hasSuffix($0) }), child is NSNumber { found.append("\(here) is a number, not ISO 8601 UTC") }
            if !simplexKeys.contains(key) { found += problems(child, at: here) }
        }
        return found
    }

    /// A one-shot command's stdout: exactly one line, a JSON object, within the vocabulary.
    @discardableResult
    static func expectDocument(_ r: CLIResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(r.stdout.hasSuffix("\n") && r.stdout.filter { $0 == "\n" }.count == 1, "\(what): not one line: \(r.stdout)\(r.stderr)",
                sourceLocation: sourceLocation)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stdoutBytes)) as? [String: Any],
                                  "\(what): not an object: \(r.stdout)", sourceLocation: sourceLocation)
        let found = problems(object)
        #expect(found.isEmpty, "\(what): \(found)", sourceLocation: sourceLocation)
        return object
    }

    /// A streaming command's stdout: every line a JSON object with a string `type`, within the vocabulary.
    @discardableResult
    static func expectStream(_ r: CLIResult, _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> [[String: Any]] {
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        #expect(!lines.isEmpty && r.stdout.hasSuffix("\n"), "\(what): no lines: \(r.stderr)", sourceLocation: sourceLocation)
        var objects: [[String: Any]] = []
        for line in lines {
            let object = try #require(try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                                      "\(what): not an object: \(line)", sourceLocation: sourceLocation)
            #expect(object["type"] is String, "\(what): no type: \(line)", sourceLocation: sourceLocation)
            let found = problems(object)
            #expect(found.isEmpty, "\(what): \(found)", sourceLocation: sourceLocation)
            objects.append(object)
        }
        return objects
    }

    /// A fatal error under --json: the exit status, nothing on stdout, one error object on stderr.
    static func expectErrorObject(_ r: CLIResult, status: Int32, containing text: String,
                                  sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(r.status == status, "\(r.stdout)\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stdout.isEmpty, "\(r.stdout)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasSuffix("\n") && r.stderr.filter { $0 == "\n" }.count == 1, "not one line: \(r.stderr)", sourceLocation: sourceLocation)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(r.stderr.utf8)) as? [String: Any],
                                  "not a JSON object: \(r.stderr)", sourceLocation: sourceLocation)
        #expect(object["type"] as? String == "error", sourceLocation: sourceLocation)
        #expect((object["error"] as? String ?? "").contains(text), "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(object["exitStatus"] as? Int == Int(status), sourceLocation: sourceLocation)
        #expect(!(object["error"] as? String ?? "").hasPrefix("sxkit:"), sourceLocation: sourceLocation)
        return object
    }

    // MARK: the checker itself

    @Test func theCheckerFindsWhatTheVocabularyRules() {
        #expect(Self.problems(["source": "/a", "status": "done"]) == ["banned key source"])
        #expect(Self.problems(["items": [["milliseconds": 3]]]) == ["banned key items[0].milliseconds"])
        #expect(Self.problems(["modifiedAt": "2026-11-21 04:24:14"]).count == 1)
        #expect(Self.problems(["appliedAt": "2026-06-01T10:41:07.185425Z", "path": "/a"]).isEmpty)
        #expect(Self.problems(["archiveErrors": [["type": "fileError", "file": "a", "fileError": "x"]]]).isEmpty)
        #expect(Self.problems(["type": "rcvFileComplete", "fileName": "a"]).isEmpty)
    }

    // MARK: every command

    @Test func everyOneShotCommandPrintsOneCompactObject() throws {
        let temp = try TempFolder("sxkit-json")
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 1, documents: 2, chatItems: 40))
        let data = sample.directory.root
        let env = Self.env

        let inspect = try Self.expectDocument(try CLI.run(["db", "inspect", "--data-dir", data, "--json"], environment: env), "db inspect")
        let chat = try #require((inspect["databases"] as? [[String: Any]])?.first)
        let last = ((chat["details"] as? [String: Any])?["migrations"] as? [String: Any])?["lastTimestamp"] as? String
        #expect(last.map(Self.isISOUTC) == true, "\(String(describing: last))")
        #expect(chat["bytes"] is Int)

        let testKey = try Self.expectDocument(try CLI.run(["db", "test-key", "--data-dir", data, "--json"], environment: env), "db test-key")
        #expect((testKey["databases"] as? [[String: Any]])?.map { $0["status"] as? String } == ["correct", "correct"])

        let status = try Self.expectDocument(try CLI.run(["db", "status", "--data-dir", data, "--json"], environment: env), "db status")
        let migrations = try #require(((status["databases"] as? [[String: Any]])?.first?["migrationStatus"] as? [String: Any])?["migrations"] as? [[String: Any]])
        #expect(migrations.first?["status"] as? String == "applied")
        #expect((migrations.first?["appliedAt"] as? String).map(Self.isISOUTC) == true, "\(String(describing: migrations.first))")

        let migrate = try CLI.run(["db", "migrate", "--data-dir", data, "--confirm", "yesUp", "--json"], environment: env)
        #expect(try Self.expectDocument(migrate, "db migrate")["databases"] is [Any])
        try Self.expectDocument(try CLI.run(["db", "recover", "--data-dir", data, "--json"]), "db recover")

        let check = try Self.expectDocument(try CLI.run(["check", "--data-dir", data, "--read-data", "--json"], environment: env), "check")
        #expect(check["whole"] as? Bool == false && (check["cryptoFiles"] as? [String: Any])?["failed"] is [Any])
        let storage = try Self.expectDocument(try CLI.run(["storage", "--data-dir", data, "--json"], environment: env), "storage")
        #expect((storage["reclaimable"] as? [[String: Any]])?.first?["category"] as? String == "temp")
        try Self.expectDocument(try CLI.run(["clean", "--data-dir", data, "--temp", "--orphans", "--dry-run", "--json"], environment: env), "clean")
        let chats = try Self.expectDocument(try CLI.run(["chats", "list", "--data-dir", data, "--json"], environment: env), "chats list")
        let firstChat = try #require(((chats["users"] as? [[String: Any]])?.first?["chats"] as? [[String: Any]])?.first)
        #expect((firstChat["lastMessageAt"] as? String).map(Self.isISOUTC) == true, "\(firstChat)")
        let exported = try Self.expectDocument(try CLI.run(["chats", "export", "bob", "-o", temp.file("chats"), "--data-dir", data, "--json"], environment: env),
                                               "chats export")
        #expect(exported["databaseUnchanged"] as? Bool == true)

        let archive = temp.file("chat.zip")
        let export = try Self.expectDocument(try CLI.run(["archive", "export", archive, "--data-dir", data, "--json"], environment: env), "archive export")
        #expect(export["output"] as? String == archive)
        let list = try Self.expectDocument(try CLI.run(["archive", "list", archive, "--json"]), "archive list")
        let entry = try #require((list["entries"] as? [[String: Any]])?.first)
        #expect((entry["modifiedAt"] as? String).map(Self.isISOUTC) == true && entry["bytes"] is Int, "\(entry)")
        let verify = try Self.expectDocument(try CLI.run(["archive", "verify", archive, "--json"], environment: env), "archive verify")
        #expect(verify["path"] as? String == archive && verify["ok"] as? Bool == true)
        let imported = temp.file("imported")
        try Self.expectDocument(try CLI.run(["archive", "import", archive, "--data-dir", imported, "--json"], environment: env), "archive import")
        try Self.expectDocument(try CLI.run(["archive", "recover", "--data-dir", imported, "--json"]), "archive recover")

        let newPass = try temp.write("newpass", Array("a new passphrase".utf8))
        let rekey = try Self.expectDocument(try CLI.run(["db", "rekey", "--data-dir", imported, "--new-passphrase-file", newPass, "--keep-backup", "--json"],
                                                        environment: env), "db rekey")
        // What the text mode warns about on stderr is in the document.
        #expect((rekey["warnings"] as? [String])?.first?.contains("OLD passphrase") == true, "\(rekey)")

        let big = try temp.write("video.mp4", testBytes(300_000, seed: 1))
        let plan = try Self.expectDocument(try CLI.run(["transfer", "plan", big, temp.file("missing.bin"), "--json"]), "transfer plan")
        let planned = try #require(plan["files"] as? [[String: Any]])
        #expect(planned.count == 2 && planned[0]["path"] as? String == big && planned[0]["bytes"] as? Int == 300_000, "\(planned)")
        #expect(planned[1]["error"] is String && planned[1]["path"] as? String == temp.file("missing.bin"))
    }

    @Test func everyStreamPrintsTypedObjectsOneALine() throws {
        let temp = try TempFolder("sxkit-json")
        for folder in ["relay", "desc", "inbox"] { try FileManager.default.createDirectory(atPath: temp.file(folder), withIntermediateDirectories: true) }
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 1, documents: 2, chatItems: 40))
        let data = sample.directory.root
        let env = Self.env

        // files: a batch, one line a file, then the summary; every status a past participle.
        try temp.write("docs/a.txt", testBytes(3000, seed: 2))
        try temp.write("docs/b.txt", testBytes(5000, seed: 3))
        let manifest = temp.file("keys.json")
        let encrypt = try Self.expectStream(try CLI.run(["files", "encrypt", temp.file("docs"), "-o", temp.file("enc"), "--manifest", manifest, "--json"]), "files encrypt")
        let files = encrypt.filter { $0["type"] as? String == "file" }
        #expect(files.count == 2 && files.allSatisfy { $0["status"] as? String == "encrypted" && $0["output"] is String && $0["path"] is String })
        let summary = try #require(encrypt.last)
        #expect(summary["type"] as? String == "summary" && summary["operation"] as? String == "encrypted")
        #expect((summary["counts"] as? [String: Int])?["encrypted"] == 2 && summary["seconds"] is NSNumber, "\(summary)")
        let verify = try Self.expectStream(try CLI.run(["files", "verify", "--manifest", manifest, "--json"]), "files verify")
        #expect(verify.filter { $0["type"] as? String == "file" }.allSatisfy { $0["status"] as? String == "verified" })
        try Self.expectStream(try CLI.run(["files", "decrypt", temp.file("docs"), "--manifest", manifest, "-o", temp.file("plain"), "--json"]), "files decrypt")
        let dataDir = try Self.expectStream(try CLI.run(["files", "encrypt", "--data-dir", data, "--json"], environment: env), "files encrypt --data-dir")
        #expect(dataDir.contains { $0["status"] as? String == "encrypted" } && dataDir.contains { $0["status"] as? String == "missing" })
        #expect(dataDir.last?["path"] as? String == sample.directory.filesFolder)
        try Self.expectStream(try CLI.run(["files", "decrypt", "--data-dir", data, "-o", temp.file("export"), "--json"], environment: env),
                              "files decrypt --data-dir")

        let image = try temp.write("img/photo.jpg", try SyntheticImage.jpeg(width: 900, height: 600, seed: 4))
        let images = try Self.expectStream(try CLI.run(["image", "compress", image, "-o", temp.file("small"), "--max-size", "20KiB", "--json"]), "image compress")
        let compressed = try #require(images.first { $0["type"] as? String == "image" })
        #expect(["encoded", "stripped", "kept"].contains(compressed["status"] as? String ?? "") && compressed["seconds"] is NSNumber, "\(compressed)")

        // transfer: SimpleX's events, as SimpleX names them.
        let payload = try temp.write("report.pdf", testBytes(200_000, seed: 5))
        let sent = try Self.expectStream(try CLI.run(["transfer", "send", payload, "--relay", temp.file("relay"), "-o", temp.file("desc"),
                                                       "--temp-dir", temp.file("send-tmp"), "--json"]), "transfer send")
        #expect(sent.first?["type"] as? String == "sndFileStart" && sent.last?["type"] as? String == "sndFileCompleteXFTP")
        let recipient = temp.file("desc/report.pdf.recipient-1.yaml")
        let received = try Self.expectStream(try CLI.run(["transfer", "receive", recipient, "-o", temp.file("inbox"), "--relay", temp.file("relay"),
                                                           "--temp-dir", temp.file("recv-tmp"), "--json"]), "transfer receive")
        #expect(received.last?["type"] as? String == "rcvFileComplete")
        try Self.expectDocument(try CLI.run(["transfer", "info", recipient, "--json"]), "transfer info")
        try Self.expectDocument(try CLI.run(["transfer", "cancel", temp.file("desc/report.pdf.sender.yaml"), "--relay", temp.file("relay"), "--json"]),
                                "transfer cancel")

        // migrate: the events, then one summary line of its own type (never a pretty document after them).
        let migrated = try Self.expectStream(try CLI.run(["migrate", "send", "--data-dir", data, "--relay", temp.file("relay"), "-o", temp.file("desc"), "--json"],
                                                         environment: env), "migrate send")
        let sentSummary = try #require(migrated.last)
        #expect(sentSummary["type"] as? String == "migrationSent" && (sentSummary["exportedAt"] as? String).map(Self.isISOUTC) == true, "\(sentSummary)")
        let migrationDescription = try #require(sentSummary["recipientDescriptions"] as? [String]).first ?? ""
        let arrived = try Self.expectStream(try CLI.run(["migrate", "receive", migrationDescription, "--data-dir", temp.file("migrated"),
                                                         "--relay", temp.file("relay"), "--json"], environment: env), "migrate receive")
        #expect(arrived.first?["type"] as? String == "rcvFileStart")
        #expect(arrived.last?["type"] as? String == "migrationReceived" && arrived.last?["output"] as? String == temp.file("migrated"))
        #expect(arrived.filter { $0["type"] as? String == "migrationReceived" }.count == 1)
    }

    @Test func relayServeAnnouncesItselfAsATypedEventAndWarnsInTheStream() throws {
        let temp = try TempFolder("sxkit-json")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["relay", "serve", "--listen", "0.0.0.0:0", "--store", temp.file("store"), "--json"]
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        defer { if process.isRunning { process.terminate() } }
        var text = [UInt8]()
        while text.filter({ $0 == 0x0A }).count < 2 {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty { break }
            text.append(byte.first!)
        }
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        let r = CLIResult(status: process.terminationStatus, stdoutBytes: text,
                          stderr: String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
        let events = try Self.expectStream(r, "relay serve")
        #expect(events.map { $0["type"] as? String } == ["relayListening", "warning"], "\(events)")
        #expect(events.first?["path"] as? String == temp.file("store"))
        #expect((events.last?["warning"] as? String)?.contains("not loopback") == true)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
    }

    // MARK: fatal errors

    @Test func aFatalErrorUnderJSONIsOneErrorObjectOnStderr() throws {
        let temp = try TempFolder("sxkit-json")
        // Refused by what is on disk: exit 1.
        let missing = try CLI.run(["db", "inspect", "--data-dir", temp.file("nowhere"), "--json"])
        let text = try CLI.run(["db", "inspect", "--data-dir", temp.file("nowhere")])
        let object = try Self.expectErrorObject(missing, status: 1, containing: temp.file("nowhere"))
        // The same sentence the text mode prints, which stays as it was.
        #expect(text.stderr == "sxkit: \(object["error"] as? String ?? "")\n", "\(text.stderr)")

        // A wrong passphrase: exit 1, with the remedy in the CLI's words.
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 1, documents: 1, chatItems: 10))
        let wrong = try CLI.run(["archive", "export", temp.file("a.zip"), "--data-dir", sample.directory.root, "--json"],
                                environment: ["SXKIT_PASSPHRASE": "wrong"])
        let wrongObject = try Self.expectErrorObject(wrong, status: 1, containing: "the passphrase is wrong")
        #expect((wrongObject["remedy"] as? String)?.contains("--passphrase-file") == true, "\(wrongObject)")

        // The command line is wrong: exit 2, ArgumentParser's errors and validation too.
        _ = try Self.expectErrorObject(try CLI.run(["db", "inspect", "--json", "--bogus"]), status: 2, containing: "--bogus")
        _ = try Self.expectErrorObject(try CLI.run(["files", "verify", "--json", "--quiet", "--verbose"]), status: 2, containing: "contradict")
        _ = try Self.expectErrorObject(try CLI.run(["db", "inspect", "--json", "--passphrase", "hunter2"]), status: 2, containing: "never taken")
        // Without --json the usage error stays text.
        let plain = try CLI.run(["db", "inspect", "--bogus"])
        #expect(plain.status == 2 && plain.stderr.contains("--bogus") && (try? JSONSerialization.jsonObject(with: Data(plain.stderr.utf8))) == nil)
    }
}
