import Foundation
import Testing
import SXChats
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// `chats export` in the library: transcripts for every chat, a manifest whose hashes `sha256sum`
/// confirms, nothing changed in the profile, outputs never replaced unasked.
@Suite(.ownThreads) struct ChatExportTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    func sample(_ folder: TempFolder) throws -> SampleDataDirectory {
        try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 2, chatItems: 200))
    }

    func export(_ data: SampleDataDirectory, to output: String, _ options: ChatExport.Options) throws -> ChatExport.Report {
        try ChatExport(database: data.directory.chatDatabase, passphrase: Self.passphrase, options: options)
            .run(to: output, command: ["sxkit", "chats", "export"], version: "test")
    }

    /// `sha256sum`'s answer, independent of sxkit's digest.
    func sha256sum(_ path: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return String(text.prefix(64))
    }

    @Test("two threads, each with its own connection, write the same files as one; an error in one stops the export and publishes nothing of that chat")
    func threads() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try sample(folder)
        var options = ChatExport.Options(formats: [.txt, .jsonl, .html], filesFolder: data.directory.filesFolder)
        options.threads = 1
        let one = try export(data, to: folder.file("one"), options)
        options.threads = 2
        let two = try export(data, to: folder.file("two"), options)
        #expect(one.chats == two.chats && one.chats.count > 2)
        func files(_ root: String) throws -> [String: Data] {
            try FolderSnapshot.take(root).entries.filter { $0.value.bytes != nil && $0.key != "manifest.json" }.mapValues { $0.bytes! }
        }
        let written = try files(folder.file("one"))
        #expect(written.count > one.chats.count * 3)
        #expect(written == (try files(folder.file("two"))), "the same bytes from two threads")
        let manifests = try [folder.file("one"), folder.file("two")].map { root -> [[String: Any]] in
            let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: Path.join(root, "manifest.json")))) as? [String: Any]
            return try #require(object?["files"] as? [[String: Any]])
        }
        #expect(manifests[0].map { $0["path"] as? String } == manifests[1].map { $0["path"] as? String }, "the manifest lists files in the same order")

        // A chat that cannot be written (its page's folder is a file) fails the export on either thread.
        let blocked = folder.file("blocked")
        try Folders.create(blocked)
        try AtomicFileWriter.write([1], to: Path.join(blocked, "1-alice"), mode: 0o600)
        #expect(throws: (any Error).self) { try export(data, to: blocked, options) }
        #expect(!POSIXFile.exists(Path.join(blocked, "index.html")) && !POSIXFile.exists(Path.join(blocked, "manifest.json")))
    }

    @Test("every chat in both formats: one line per item, a manifest whose hashes sha256sum confirms, the profile unchanged")
    func everything() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try sample(folder)
        let before = try FolderSnapshot.take(data.directory.root)
        let output = folder.file("out")
        let progress = ProgressTracker(label: "export")
        let report = try ChatExport(database: data.directory.chatDatabase, passphrase: Self.passphrase, options: .init(formats: [.txt, .jsonl]))
            .run(to: output, command: ["sxkit", "chats", "export"], version: "test", progress: progress)
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only")
        let counted = progress.snapshot()
        #expect(counted.itemsTotal == counted.itemsDone && counted.itemsDone == Int(report.chats.reduce(0) { $0 + $1.messages }), "the progress counts every item")
        #expect(report.databaseUnchanged)
        #expect(report.databaseSHA256 == (try sha256sum(data.directory.chatDatabase)))

        let catalog = try ReadAccess.read(data.directory.chatDatabase, passphrase: Self.passphrase) { db, _ in try ChatCatalog.read(db) }
        #expect(report.chats.count == catalog.reduce(0) { $0 + $1.chats.count })
        // The chats are read side by side (their items merged in time order); each file still holds its
        // own chat's items, in the order one chat read alone gives.
        let alone = try ReadAccess.read(data.directory.chatDatabase, passphrase: Self.passphrase) { db, _ in
            let reader = try ChatHistoryReader(db)
            return try report.chats.map { chat in
                var ids: [Int64] = []
                try reader.forEach(ChatReference(userId: chat.userId, kind: chat.kind, id: chat.id)) { ids.append($0.chatItemId) }
                return ids
            }
        }
        for (chat, ids) in zip(report.chats, alone) {
            let expected = catalog.first { $0.userId == chat.userId }?.chats.first { $0.kind == chat.kind && $0.id == chat.id }?.messages
            #expect(chat.messages == expected)
            let jsonl = try String(contentsOfFile: Path.join(output, chat.files[1]), encoding: .utf8)
            let lines = jsonl.split(separator: "\n")
            #expect(Int64(lines.count) == chat.messages)
            let exportedIds = try lines.map { line -> Int64 in
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                return Int64(try #require(object["chat_item_id"] as? Int))
            }
            #expect(exportedIds == ids, "\(chat.kind):\(chat.id)")
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["chat_item_id"] is Int && (object["sent_at"] as? String)?.hasSuffix("Z") == true && object["sender"] is [String: Any])
            }
            let txt = try String(contentsOfFile: Path.join(output, chat.files[0]), encoding: .utf8)
            #expect(txt.split(separator: "\n").filter { $0.hasPrefix("[") }.count == Int(chat.messages))
            #expect(try POSIXFile.status(Path.join(output, chat.files[0])).st_mode & 0o777 == 0o600)
        }

        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report.manifest))) as? [String: Any])
        let files = try #require(manifest["files"] as? [[String: Any]])
        #expect(files.count == report.chats.count * 2)
        for file in files {
            let path = Path.join(output, try #require(file["path"] as? String))
            #expect(file["sha256"] as? String == (try sha256sum(path)), "\(path)")
        }
        let database = try #require((manifest["databases"] as? [[String: Any]])?.first)
        #expect(database["sha256_before"] as? String == database["sha256_after"] as? String)
        #expect(manifest["sxkit"] as? String == "test" && (manifest["command"] as? [String]) == ["sxkit", "chats", "export"])
    }

    @Test("an existing output is refused before anything is written; replacing is asked for")
    func outputsAreNotReplacedUnasked() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try sample(folder)
        let output = folder.file("out")
        let first = try export(data, to: output, .init(chats: ["bob"]))
        let transcript = Path.join(output, first.chats[0].files[0])
        try Data([1, 2, 3]).write(to: URL(fileURLWithPath: transcript))
        let manifestBefore = try FileBytes.read(first.manifest, limit: 1 << 20)
        #expect(throws: (any Error).self) { try export(data, to: output, .init(chats: ["bob"])) }
        #expect(try FileBytes.read(transcript, limit: 10) == [1, 2, 3] && (try FileBytes.read(first.manifest, limit: 1 << 20)) == manifestBefore)
        _ = try export(data, to: output, .init(chats: ["bob"], outputPolicy: .replace))
        #expect(try FileBytes.read(transcript, limit: 1 << 20).count > 3)
    }

    @Test("chats by name or KIND:ID, a user, a time window; unknown and ambiguous names are errors")
    func selection() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try sample(folder)
        let byName = try export(data, to: folder.file("a"), .init(chats: ["family", "direct:2"]))
        #expect(byName.chats.map { "\($0.kind.rawValue):\($0.name)" } == ["group:family", "direct:bob"])
        let work = try export(data, to: folder.file("b"), .init(user: "alice-work"))
        #expect(work.chats.map(\.kind) == [.notes])
        #expect(throws: ChatExportError.noSuchChat("nobody")) { try export(data, to: folder.file("c"), .init(chats: ["nobody"])) }
        // Both users have a note folder called "Private notes".
        #expect(throws: ChatExportError.self) { try export(data, to: folder.file("d"), .init(chats: ["Private notes"])) }
        #expect(throws: ChatExportError.noSuchUser("zed", known: ["alice", "alice-work"])) { try export(data, to: folder.file("e"), .init(user: "zed")) }
        #expect(!FileManager.default.fileExists(atPath: folder.file("c")) && !FileManager.default.fileExists(atPath: folder.file("e")))

        let all = try export(data, to: folder.file("f"), .init(chats: ["bob"]))
        let lines = try String(contentsOfFile: Path.join(folder.file("f"), all.chats[0].files[0]), encoding: .utf8).split(separator: "\n").filter { $0.hasPrefix("[") }
        try #require(lines.count >= 3)
        // The window [second item, third item) holds the items from the second one's time on, before the third's.
        let times = lines.map { String($0.dropFirst().prefix(19)) }
        let windowed = try export(data, to: folder.file("g"), .init(chats: ["bob"], since: times[1], until: times[2]))
        #expect(windowed.chats[0].messages == Int64(times.filter { $0 >= times[1] && $0 < times[2] }.count))
    }

    @Test("what SimpleX records about an item reaches both transcripts: quote, edit, deletion, voice, events, unknown content")
    func itemDetails() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try sample(folder)
        let (db, _) = try DatabaseOpener.open(data.directory.chatDatabase, passphrase: Self.passphrase, mode: .readWrite)
        let bob = try #require(try db.scalarInt("SELECT contact_id FROM contacts WHERE local_display_name = 'bob'"))
        let ids = try db.rows("SELECT chat_item_id FROM chat_items WHERE contact_id = \(bob) ORDER BY created_at, chat_item_id LIMIT 5").map { row -> Int64 in
            if case .integer(let v) = row[0] { return v } else { return 0 }
        }
        try db.execute("""
            UPDATE chat_items SET quoted_sent_at = '2024-01-01 00:00:01', quoted_content = '{"type":"text","text":"the original"}', quoted_sent = 1, item_edited = 1
                WHERE chat_item_id = \(ids[1]);
            UPDATE chat_items SET item_deleted = 1 WHERE chat_item_id = \(ids[2]);
            UPDATE chat_items SET item_sent = 0, item_content = '{"rcvMsgContent":{"msgContent":{"type":"voice","text":"","duration":9}}}', item_text = 'voice message (00:09)'
                WHERE chat_item_id = \(ids[3]);
            UPDATE chat_items SET item_sent = 0, item_content = '{"rcvHologram":{"x":1}}', item_text = '?' WHERE chat_item_id = \(ids[4]);
            """)
        let report = try export(data, to: folder.file("out"), .init(formats: [.txt, .jsonl], chats: ["bob"]))
        let txt = try String(contentsOfFile: Path.join(folder.file("out"), report.chats[0].files[0]), encoding: .utf8)
        #expect(txt.contains(" (edited)\n    > me: the original\n"), "\(txt)")
        #expect(txt.contains(" (deleted)\n"), "\(txt)")
        #expect(txt.contains("bob: [voice message, 9 s]"), "\(txt)")
        #expect(txt.contains(#"bob: [rcvHologram: not understood by this sxkit] {"rcvHologram":{"x":1}}"#), "\(txt)")
        let lines = try String(contentsOfFile: Path.join(folder.file("out"), report.chats[0].files[1]), encoding: .utf8).split(separator: "\n")
        let objects = try lines.map { try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        let byId = Dictionary(uniqueKeysWithValues: objects.map { ($0["chat_item_id"] as! Int, $0) })
        #expect(byId[Int(ids[1])]?["edited"] as? Bool == true)
        #expect((byId[Int(ids[1])]?["quote"] as? [String: Any])?["text"] as? String == "the original")
        #expect(byId[Int(ids[2])]?["deleted"] as? String == "deleted")
        #expect(byId[Int(ids[3])]?["type"] as? String == "voice" && byId[Int(ids[3])]?["duration"] as? Int == 9)
        #expect((byId[Int(ids[3])]?["sender"] as? [String: Any])?["name"] as? String == "bob")
        #expect(byId[Int(ids[4])]?["kind"] as? String == "unknown" && byId[Int(ids[4])]?["raw"] as? String == #"{"rcvHologram":{"x":1}}"#)
    }

    @Test("attached files go to media/ decrypted and checked (sha256sum equals the original's); missing and tampered ones are marked, not fatal")
    func media() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try sample(folder)
        let files = try #require(data.directory.filesFolder)
        // Tamper with one CryptoFile the database references: its copy must be refused by its tag.
        let tampered = try #require(data.files.first { $0.encrypted && $0.referenced })
        var bytes = try FileBytes.read(Path.join(files, tampered.name), limit: 64 << 20)
        bytes[bytes.count / 2] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: Path.join(files, tampered.name)))
        let before = try FolderSnapshot.take(data.directory.root)
        let output = folder.file("out")
        let report = try export(data, to: output, .init(formats: [.jsonl], filesFolder: files))
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only")

        var copied: [String: String] = [:]   // name → media path
        var errors: [String: String] = [:]   // name → why
        for chat in report.chats {
            for line in try String(contentsOfFile: Path.join(output, chat.files[0]), encoding: .utf8).split(separator: "\n") {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                guard let file = object["file"] as? [String: Any], let name = file["name"] as? String else { continue }
                if let media = file["media"] as? String { copied[name] = media }
                if let why = file["media_error"] as? String { errors[name] = why }
            }
        }
        let referenced = data.files.filter(\.referenced)
        for original in referenced where original.name != tampered.name {
            let media = try #require(copied[original.name], "\(original.name) was not copied: \(errors[original.name] ?? "")")
            #expect(try sha256sum(Path.join(output, media)) == original.sha256, "\(original.name)")
            #expect(try POSIXFile.status(Path.join(output, media)).st_mode & 0o777 == 0o600)
        }
        #expect(copied[tampered.name] == nil && errors[tampered.name]?.contains("tag does not match") == true, "\(errors)")
        for name in SampleDataDirectory.missingFiles where errors[name] != nil || copied[name] != nil {
            #expect(errors[name] == "missing from the files folder")
        }
        #expect(report.chats.reduce(0) { $0 + $1.mediaCopied } == copied.count)
        #expect(report.chats.reduce(0) { $0 + $1.mediaFailed } == 1)
        // Every media copy is in the manifest with its hash.
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report.manifest))) as? [String: Any])
        let listed = Set((manifest["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
        #expect(Set(copied.values).isSubset(of: listed))
    }

    @Test("bad rows: paths that climb out or are absolute are never followed, malformed JSON and right-to-left or emoji text are kept, a WAL is read")
    func badRows() throws {
        let folder = try TempFolder("sxkit-export")
        let data = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 2, chatItems: 200, walMode: true))
        try Data("secret outside".utf8).write(to: URL(fileURLWithPath: folder.file("outside.txt")))
        let (db, _) = try DatabaseOpener.open(data.directory.chatDatabase, passphrase: Self.passphrase, mode: .readWrite)
        let bob = try #require(try db.scalarInt("SELECT contact_id FROM contacts WHERE local_display_name = 'bob'"))
        let ids = try db.rows("SELECT chat_item_id FROM chat_items WHERE contact_id = \(bob) ORDER BY created_at, chat_item_id LIMIT 4").map { row -> Int64 in
            if case .integer(let v) = row[0] { return v } else { return 0 }
        }
        try #require(ids.count == 4)
        let rtl = "مرحبا بالعالم 👋🏽 שלום"
        try db.execute("""
            UPDATE chat_items SET item_content = '{"sndMsgContent":{"msgContent":{"type":"text","text":"\(rtl)"}}}', item_text = '\(rtl)' WHERE chat_item_id = \(ids[0]);
            UPDATE chat_items SET item_content = '{"rcvMsgContent":{"msgContent":', item_text = 'broken' WHERE chat_item_id = \(ids[1]);
            INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, chat_item_id, ci_file_status, protocol, created_at, updated_at, user_id)
                VALUES (\(bob), 'climb.txt', '../../outside.txt', 14, 16384, \(ids[2]), 'rcv_complete', 'xftp', '2024-01-01 00:00:00', '2024-01-01 00:00:00', 1);
            INSERT INTO files (contact_id, file_name, file_path, file_size, chunk_size, chat_item_id, ci_file_status, protocol, created_at, updated_at, user_id)
                VALUES (\(bob), 'absolute.txt', '\(folder.file("outside.txt"))', 14, 16384, \(ids[3]), 'rcv_complete', 'xftp', '2024-01-01 00:00:00', '2024-01-01 00:00:00', 1);
            """)
        let before = try FolderSnapshot.take(data.directory.root)
        let output = folder.file("out")
        let report = try export(data, to: output, .init(formats: [.txt, .jsonl], chats: ["bob"], filesFolder: data.directory.filesFolder))
        #expect(try FolderSnapshot.take(data.directory.root) == before, "read-only, WAL included")
        let txt = try String(contentsOfFile: Path.join(output, report.chats[0].files[0]), encoding: .utf8)
        #expect(txt.contains("me: \(rtl)"), "\(txt)")
        #expect(txt.contains(#"[content not readable as stored] {"rcvMsgContent":{"msgContent":"#), "\(txt)")
        #expect(txt.contains("[file: climb.txt, 14 bytes, rcv_complete] (not copied: its stored path leaves the files folder)"), "\(txt)")
        #expect(txt.contains("[file: absolute.txt, 14 bytes, rcv_complete] (not copied: its stored path leaves the files folder)"), "\(txt)")
        let media = (try? FileManager.default.contentsOfDirectory(atPath: Path.join(output, "media"))) ?? []
        #expect(!media.contains { $0.contains("climb") || $0.contains("absolute") })
        let jsonl = try String(contentsOfFile: Path.join(output, report.chats[0].files[1]), encoding: .utf8)
        #expect(jsonl.contains(rtl) && jsonl.contains(#""kind":"invalid""#))
    }

    @Test("times: the stored UTC text in a zone, with its offset; fractions kept")
    func clock() {
        let plusOne = TranscriptClock(zone: TimeZone(secondsFromGMT: 3600)!)
        #expect(plusOne.iso8601("2024-01-01 10:00:05") == "2024-01-01T11:00:05+01:00")
        #expect(TranscriptClock.utc.iso8601("2024-01-01 10:00:05.250000") == "2024-01-01T10:00:05.250Z")
        #expect(plusOne.readable("2024-12-31 23:30:00") == "2025-01-01 00:30:00 +01:00")
        #expect(TranscriptClock.utc.iso8601("not a time") == "not a time")
        #expect(TranscriptClock.utc.iso8601("2024-13-01 10:00:05") == "2024-13-01 10:00:05", "no month 13")
        #expect(TranscriptClock.utc.iso8601("2024-02-29T23:59:59.5Z") == "2024-02-29T23:59:59.500Z")
        let minusFive = TranscriptClock(zone: TimeZone(secondsFromGMT: -5 * 3600 - 1800)!)
        #expect(minusFive.iso8601("2024-03-01 02:00:00") == "2024-02-29T20:30:00-05:30")
        #expect(TranscriptClock.utc.readable("2024-01-01 10:00:05.123") == "2024-01-01 10:00:05 +00:00")
        // A zone with daylight saving time: the offset of the instant, not of today.
        let berlin = TranscriptClock(zone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(berlin.iso8601("2024-07-01 12:00:00") == "2024-07-01T14:00:00+02:00")
        #expect(berlin.iso8601("2024-01-01 12:00:00") == "2024-01-01T13:00:00+01:00")
    }
}
