import Foundation
import Testing
import SXCore
import SXCrypto
import SXRelayHTTP
import SXSample
import SXTestSupport
import SXTransfer

/// `sxkit relay serve` as a user runs it: address line first, chunks through it, SIGTERM stops it.
struct RelayServeCommandTests {
    /// Starts the relay with its stdout on a pipe and returns it with the first stdout line.
    private func startRelay(_ arguments: [String]) throws -> (Process, String, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["relay", "serve"] + arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var line = [UInt8]()
        while true {
            let byte = out.fileHandleForReading.readData(ofLength: 1)
            if byte.isEmpty || byte.first == 0x0A { break }
            line.append(byte.first!)
        }
        return (process, String(decoding: line, as: UTF8.self), err)
    }

    @Test func servesChunksAndStopsCleanlyOnSIGTERM() async throws {
        let folder = try TempFolder()
        let store = folder.file("store")
        let (process, line, err) = try startRelay(["--listen", "127.0.0.1:0", "--store", store])
        defer { if process.isRunning { process.terminate() } }
        let prefix = "listening on http://127.0.0.1:"
        #expect(line.hasPrefix(prefix), "first line: \(line)")
        let url = String(line.dropFirst("listening on ".count))
        #expect(Int(line.dropFirst(prefix.count)).map { $0 > 0 } == true)
        #expect(try POSIXFile.status(store).st_mode & 0o777 == 0o700)

        let bytes = testBytes(1_500_000, seed: 7)
        let path = try folder.write("chunk", bytes)
        // Long idle timeout: other suites' synchronous tests may hold this process's cooperative threads
        // for minutes, and the response is read only when a thread is free.
        let timeouts = HTTPChunkRelay.Timeouts(connect: .seconds(10), idle: .seconds(1800), request: .seconds(3600))
        try await HTTPChunkRelay.with(url: url, timeouts: timeouts) { relay in
            #expect(relay.address == .sxkit(url))
            let created = try await relay.createWithFreshKeys(size: Int64(bytes.count), digest: SHA256Digest.of(bytes))
            try await relay.upload(created.sender, from: path, offset: 0, length: Int64(bytes.count))
            try await relay.download(created.recipients[0], to: folder.file("out"))
            #expect(try folder.read("out") == bytes)
            await #expect(throws: RelayError.wrongKey(relay: url, id: created.recipients[0].idText)) {
                try await relay.download(ChunkReplica(id: created.recipients[0].id, key: .generate()), to: folder.file("bad"))
            }
            try await relay.delete(created.sender)
        }

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("relay stopped"), "stderr: \(stderr)")
    }

    /// The commands a user runs, through a relay started with `sxkit relay serve`: a file sent,
    /// received and compared, cancelled (then "not found"), and a whole profile migrated.
    @Test func transferAndMigrateThroughTheHTTPRelay() throws {
        let folder = try TempFolder()
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("store")])
        defer { if process.isRunning { process.terminate() } }
        let url = String(line.dropFirst("listening on ".count))
        #expect(url.hasPrefix("http://127.0.0.1:"), "first line: \(line)")
        for sub in ["desc", "inbox", "tmp"] { try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true) }

        let source = try folder.write("video.mp4", testBytes(5_500_000, seed: 3))
        let sent = try CLI.run(["transfer", "send", source, "--relay", url, "--recipients", "2", "-o", folder.file("desc"), "--temp-dir", folder.file("tmp")])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("to \(url)") && !sent.stdout.contains("--relay <"), "\(sent.stdout)")
        let got = try CLI.run(["transfer", "receive", folder.file("desc/video.mp4.recipient-1.yaml"), "-o", folder.file("inbox"), "--temp-dir", folder.file("tmp")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try folder.read("inbox/video.mp4") == folder.read("video.mp4"))
        let cancelled = try CLI.run(["transfer", "cancel", folder.file("desc/video.mp4.sender.yaml")])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        let gone = try CLI.run(["transfer", "receive", folder.file("desc/video.mp4.recipient-2.yaml"), "-o", folder.file("inbox/again.mp4"), "--temp-dir", folder.file("tmp")])
        #expect(gone.status == 1 && gone.stderr.contains("the sender cancelled the transfer, it expired, or it was never uploaded"), "\(gone.stderr)")

        let profile = try SampleDataDirectory.create(at: folder.file("profile"), options: .init(photos: 1, documents: 2, chatItems: 50))
        let pass = try folder.write("pass", Array(ArchiveImportCommandTests.newPassphrase.utf8))
        let migrated = try CLI.run(["migrate", "send", "--data-dir", profile.directory.root, "--relay", url, "-o", folder.file("desc"), "--passphrase-file", pass])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let description = try #require(try FileManager.default.contentsOfDirectory(atPath: folder.file("desc")).first { $0.hasPrefix("simplex-chat.") && $0.hasSuffix(".recipient-1.yaml") })
        let arrived = try CLI.run(["migrate", "receive", folder.file("desc/" + description), "--data-dir", folder.file("moved"), "--passphrase-file", pass])
        #expect(arrived.status == 0, "\(arrived.stderr)")
        #expect(try contentHashes(folder.file("moved")) == contentHashes(profile.directory.root))
        #expect(try rowCounts(folder.file("moved/simplex_v1_chat.db")) == rowCounts(profile.directory.root + "/simplex_v1_chat.db"))
    }

    @Test func jsonModeAnnouncesTheAddressAsOneLine() async throws {
        let folder = try TempFolder()
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("s"), "--json"])
        defer { if process.isRunning { process.terminate() } }
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String]
        #expect(object?["type"] == "relayListening")
        #expect(object?["url"]?.hasPrefix("http://127.0.0.1:") == true)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aNonLoopbackAddressIsWarnedAbout() async throws {
        let folder = try TempFolder()
        let (process, line, err) = try startRelay(["--listen", "0.0.0.0:0", "--store", folder.file("s")])
        #expect(line.hasPrefix("listening on http://0.0.0.0:"))
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("warning: listening on 0.0.0.0, not loopback"), "stderr: \(stderr)")
    }

    @Test func badOptionsAreUsageErrors() throws {
        let folder = try TempFolder()
        for arguments in [["--listen", "localhost", "--store", folder.path],
                          ["--listen", "127.0.0.1:99999", "--store", folder.path],
                          ["--listen", "127.0.0.1:0", "--store", folder.path, "--expiry", "2 weeks"],
                          ["--listen", "127.0.0.1:0", "--store", folder.path, "--max-store", "lots"],
                          ["--listen", "127.0.0.1:0"]] {
            let result = try CLI.run(["relay", "serve"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPortInUseIsAClearFailure() throws {
        let folder = try TempFolder()
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("a")])
        defer { process.terminate(); process.waitUntilExit() }
        let port = line.split(separator: ":").last.map(String.init) ?? ""
        let result = try CLI.run(["relay", "serve", "--listen", "127.0.0.1:" + port, "--store", folder.file("b")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "stderr: \(result.stderr)")
    }

}
