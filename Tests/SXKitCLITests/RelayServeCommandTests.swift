import Foundation
import Testing
import SXCore
import SXCrypto
import SXSample
import SXTestSupport
import SXTransfer
import SXXFTP
import SXXFTPClient

/// `sxkit relay serve` as a user runs it: its xftp:// address first, chunks through it over XFTP,
/// SIGTERM stops it, a restart keeps its identity.
@Suite(.ownThreads)
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
        return (process, String(decoding: out.fileHandleForReading.readLine(), as: UTF8.self), err)
    }

    @Test func servesChunksAndStopsCleanlyOnSIGTERM() async throws {
        let folder = try TempFolder()
        let store = folder.file("store")
        let (process, line, err) = try startRelay(["--listen", "127.0.0.1:0", "--store", store, "--certificate-algorithm", "ed25519"])
        defer { if process.isRunning { process.terminate() } }
        let server = try XFTPServerAddress.parse(line).get()
        #expect(server.hosts == [.ipv4(127, 0, 0, 1)] && server.portNumber > 0, "first line: \(line)")
        #expect(try POSIXFile.status(store).st_mode & 0o777 == 0o700)
        // The address's key hash is the fingerprint file's, the SHA-256 of ca.crt.
        #expect(try folder.read("store/fingerprint") == Array((Base64URL.encode(server.keyHash) + "\n").utf8))
        #expect(try POSIXFile.status(folder.file("store/server.key")).st_mode & 0o777 == 0o600)

        let bytes = testBytes(1 << 20, seed: 7)
        let path = try folder.write("chunk", bytes)
        let relay = XFTPChunkRelay(server: server)
        let created = try await relay.createWithFreshKeys(size: Int64(bytes.count), digest: SHA256Digest.of(bytes))
        try await relay.upload(created.sender, from: path, offset: 0, length: Int64(bytes.count))
        try await relay.download(created.recipients[0], to: folder.file("out"))
        #expect(try folder.read("out") == bytes)
        try await relay.delete(created.sender)

        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationReason == .exit && process.terminationStatus == 0)
        let stderr = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(stderr.contains("server stopped") && stderr.contains("created a new server identity"), "stderr: \(stderr)")

        // Started again on the same store: the same identity, so the same address but for the port.
        let (again, secondLine, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", store])
        defer { if again.isRunning { again.terminate() } }
        #expect(try XFTPServerAddress.parse(secondLine).get().keyHash == server.keyHash)
        kill(again.processIdentifier, SIGTERM)
        again.waitUntilExit()
    }

    /// The commands a user runs, through a relay started with `sxkit relay serve`: a file sent,
    /// received and compared, cancelled (then "not found"), and a whole profile migrated.
    @Test func transferAndMigrateThroughTheXFTPServer() throws {
        let folder = try TempFolder()
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("store")])
        defer { if process.isRunning { process.terminate() } }
        let url = line
        #expect(url.hasPrefix("xftp://") && url.contains("@127.0.0.1:"), "first line: \(line)")
        for sub in ["desc", "inbox", "tmp"] { try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true) }

        let source = try folder.write("video.mp4", testBytes(5_500_000, seed: 3))
        let sent = try CLI.run(["transfer", "send", source, "--server", url, "--recipients", "2", "-o", folder.file("desc"), "--temp-dir", folder.file("tmp")])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("to \(url)") && !sent.stdout.contains("--relay <"), "\(sent.stdout)")
        let got = try CLI.run(["transfer", "receive", folder.file("desc/video.mp4.recipient-1.yaml"), "-o", folder.file("inbox"), "--temp-dir", folder.file("tmp")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try folder.read("inbox/video.mp4") == folder.read("video.mp4"))
        let cancelled = try CLI.run(["transfer", "cancel", folder.file("desc/video.mp4.sender.yaml")])
        #expect(cancelled.status == 0, "\(cancelled.stderr)")
        let gone = try CLI.run(["transfer", "receive", folder.file("desc/video.mp4.recipient-2.yaml"), "-o", folder.file("inbox/again.mp4"), "--temp-dir", folder.file("tmp")])
        #expect(gone.status == 1 && gone.stderr.contains("the sender cancelled the transfer, it expired, or this description's key is not the chunk's"), "\(gone.stderr)")

        // The default sample: its archive (about 5.5 MiB) is several chunks, so the link needs a redirect.
        let profile = try SampleCopies.create(at: folder.file("profile"))
        let pass = try folder.write("pass", Array(ArchiveImportCommandTests.newPassphrase.utf8))
        let migrated = try CLI.run(["migrate", "send", "--data-dir", profile.directory.root, "--server", url, "-o", folder.file("mdesc"), "--passphrase-file", pass])
        #expect(migrated.status == 0, "\(migrated.stderr)")
        let names = try Folders.names(in: folder.file("mdesc"))
        let linkName = try #require(names.first { $0.hasPrefix("simplex-chat.") && $0.hasSuffix(".link.txt") })
        let link = String(decoding: try folder.read("mdesc/" + linkName), as: UTF8.self).trimmingCharacters(in: .newlines)
        // The apps' link: the description through a redirect (the archive is several chunks), and their data.
        #expect(link.hasPrefix("simplex:/file#/?desc=") && link.hasSuffix("&data=%7B%22networkConfig%22%3A%7B%22hostMode%22%3A%22public%22%2C%22requiredHostMode%22%3Afalse%7D%7D"))
        #expect(migrated.stdout.contains(link) && migrated.stdout.contains("Migrate from another device"))
        let direct = try FileDescription.load(folder.file("mdesc/" + linkName.replacingOccurrences(of: ".link.txt", with: ".recipient-1.yaml")))
        #expect(direct.chunks.count > 1)
        #expect(names.contains { $0.hasSuffix(".redirect.sender.yaml") })
        let info = try CLI.run(["transfer", "info", folder.file("mdesc/" + linkName)])
        #expect(info.stdout.contains("redirect:") && info.stdout.contains("chunks:     1 "), "\(info.stdout)")
        // Received from the link alone, as the app would: identical files and rows. The first run is
        // killed once it has followed the redirect, whose chunk the server then forgot (acknowledged):
        // the rerun goes on from the description the first one kept.
        let receive = ["migrate", "receive", folder.file("mdesc/" + linkName), "--data-dir", folder.file("moved"), "--passphrase-file", pass]
        // Killed first once the redirect's description was placed, before its chunk was acknowledged
        // (the rerun acknowledges it and goes on from the kept description), then as above.
        let placed = try CLI.run(receive, environment: ["SXKIT_CRASH_AT": "transfer-receive-placed"])
        #expect(placed.status == SIGKILL, "\(placed.stderr)")
        let killed = try CLI.run(receive, environment: ["SXKIT_CRASH_AT": "transfer-receive-redirect-followed"])
        #expect(killed.status == SIGKILL, "\(killed.stderr)")
        let arrived = try CLI.run(receive)
        #expect(arrived.status == 0, "\(arrived.stderr)")
        #expect(try contentHashes(folder.file("moved")) == contentHashes(profile.directory.root))
        #expect(try rowCounts(folder.file("moved/simplex_v1_chat.db")) == rowCounts(profile.directory.root + "/simplex_v1_chat.db"))

        // Databases without a passphrase are refused before anything is exported, unless allowed.
        let decrypted = try CLI.run(["db", "rekey", "--data-dir", profile.directory.root, "--passphrase-file", pass, "--decrypt"])
        #expect(decrypted.status == 0, "\(decrypted.stderr)")
        let refused = try CLI.run(["migrate", "send", "--data-dir", profile.directory.root, "--server", url, "-o", folder.file("m2"), "--no-passphrase"])
        #expect(refused.status == 1 && refused.stderr.contains("is not encrypted (plaintext SQLite)") && refused.stderr.contains("--allow-unencrypted"), "\(refused.stderr)")
        let leftInOutput = FileManager.default.fileExists(atPath: folder.file("m2")) ? try Folders.names(in: folder.file("m2")) : []
        #expect(leftInOutput.isEmpty)
        let allowed = try CLI.run(["migrate", "send", "--data-dir", profile.directory.root, "--server", url, "-o", folder.file("m2"), "--no-passphrase",
                                   "--allow-unencrypted"])
        #expect(allowed.status == 0, "\(allowed.stderr)")

        // The link received again with the relay gone: the record of the import answers, before any
        // redirect is fetched.
        process.terminate()
        process.waitUntilExit()
        let again = try CLI.run(["migrate", "receive", folder.file("mdesc/" + linkName), "--data-dir", folder.file("moved"), "--passphrase-file", pass])
        #expect(again.status == 0 && again.stdout.contains("nothing was imported twice"), "\(again.stdout)\(again.stderr)")
    }

    /// One of the servers given cannot be reached: the chunks meant for it are created on the other
    /// (as the apps' agent tries the user's other servers), the send says so, and the file arrives.
    @Test func aSendGoesOnWhenOneOfItsServersCannotBeReached() throws {
        let folder = try TempFolder()
        let (process, url, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("store")])
        defer { if process.isRunning { process.terminate() } }
        // The same identity on a port nothing listens on.
        let dead = String(url[..<url.lastIndex(of: ":")!]) + ":1"
        for sub in ["desc", "inbox", "tmp"] { try FileManager.default.createDirectory(atPath: folder.file(sub), withIntermediateDirectories: true) }
        let source = try folder.write("video.mp4", testBytes(3_000_000, seed: 5))
        let sent = try CLI.run(["transfer", "send", source, "--server", dead, "--server", url, "-o", folder.file("desc"), "--temp-dir", folder.file("tmp")])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stderr.contains("is unavailable") && sent.stderr.contains("creating it on \(url) instead"), "\(sent.stderr)")
        #expect(sent.stdout.contains("chunk(s) to \(url) in "), "only the server that holds the chunks: \(sent.stdout)")
        let description = try FileDescription.load(folder.file("desc/video.mp4.recipient-1.yaml"))
        #expect(description.chunks.count > 1 && description.chunks.allSatisfy { $0.replicas.map(\.server.description) == [url] })
        let got = try CLI.run(["transfer", "receive", folder.file("desc/video.mp4.recipient-1.yaml"), "-o", folder.file("inbox"), "--temp-dir", folder.file("tmp")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try folder.read("inbox/video.mp4") == folder.read("video.mp4"))
    }

    /// Waits up to 15 s for `process` to exit; one still running is killed (so a test never hangs)
    /// and reported as nil.
    private func exitStatus(_ process: Process) -> Int32? {
        for _ in 0..<1500 where process.isRunning { usleep(10_000) }
        guard !process.isRunning else {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            return nil
        }
        return process.terminationReason == .exit ? process.terminationStatus : -process.terminationStatus
    }

    /// A supervisor may signal as soon as the address appears, and a shell may have started the
    /// server with SIGTERM ignored: either way SIGTERM stops it cleanly, every time.
    @Test func sigtermRightAfterTheAddressStopsTheServer() throws {
        let folder = try TempFolder()
        let store = folder.file("s")
        for round in 0..<20 {
            let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", store, "--quiet"])
            #expect(line.hasPrefix("xftp://"))
            kill(process.processIdentifier, SIGTERM)
            #expect(exitStatus(process) == 0, "round \(round): still running 15 s after SIGTERM, or not a clean exit")
        }
        // Started from a shell that ignores SIGTERM: the server's own handler replaces the inherited SIG_IGN.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "trap '' TERM; exec \"$0\" relay serve --listen 127.0.0.1:0 --store \"$1\" --quiet", CLI.binary, store]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        #expect(String(decoding: out.fileHandleForReading.readLine(), as: UTF8.self).hasPrefix("xftp://"))
        kill(process.processIdentifier, SIGTERM)
        #expect(exitStatus(process) == 0, "an inherited SIG_IGN kept the server running")
    }

    @Test func jsonModeAnnouncesTheAddressAsOneLine() async throws {
        let folder = try TempFolder()
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("s"), "--json"])
        defer { if process.isRunning { process.terminate() } }
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        #expect(object?["type"] as? String == "relayListening")
        #expect((object?["address"] as? String)?.hasPrefix("xftp://") == true)
        #expect(object?["identityCreated"] as? Bool == true)
        kill(process.processIdentifier, SIGINT)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }

    @Test func aNonLoopbackAddressIsWarnedAbout() async throws {
        let folder = try TempFolder()
        let (process, line, err) = try startRelay(["--listen", "0.0.0.0:0", "--store", folder.file("s")])
        #expect(line.hasPrefix("xftp://") && line.contains("@0.0.0.0:"), "\(line)")
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
                          ["--listen", "127.0.0.1:0", "--store", folder.path, "--certificate-algorithm", "rsa"],
                          ["--listen", "127.0.0.1:0"]] {
            let result = try CLI.run(["relay", "serve"] + arguments)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
        }
    }

    @Test func aPortInUseIsAClearFailure() throws {
        let folder = try TempFolder()
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("a")])
        defer { process.terminate(); process.waitUntilExit() }
        let port = String(try XFTPServerAddress.parse(line).get().portNumber)
        let result = try CLI.run(["relay", "serve", "--listen", "127.0.0.1:" + port, "--store", folder.file("b")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("cannot listen on 127.0.0.1:\(port)"), "stderr: \(result.stderr)")
    }

    @Test func aPasswordFileGuardsUploadsAndMustBePrivate() throws {
        let folder = try TempFolder()
        let password = try folder.write("password", Array("s3cret\n".utf8))
        chmod(password, 0o644)
        let open = try CLI.run(["relay", "serve", "--listen", "127.0.0.1:0", "--store", folder.file("a"), "--password-file", password])
        #expect(open.status == 1 && open.stderr.contains("can be read by others"), "\(open.stderr)")
        chmod(password, 0o600)
        let (process, line, _) = try startRelay(["--listen", "127.0.0.1:0", "--store", folder.file("b"), "--password-file", password])
        defer { process.terminate(); process.waitUntilExit() }
        let source = try folder.write("note.txt", testBytes(100_000, seed: 5))
        for sub in ["d1", "d2", "tmp"] { try Folders.create(folder.file(sub)) }
        let refused = try CLI.run(["transfer", "send", source, "--server", line, "-o", folder.file("d1"), "--temp-dir", folder.file("tmp")])
        #expect(refused.status != 0 && refused.stderr.contains("refused chunk"), "\(refused.stderr)")
        let withPassword = line.replacingOccurrences(of: "@", with: ":s3cret@")
        // Never on the command line; from the environment (or the 0600 servers file).
        let onArgv = try CLI.run(["transfer", "send", source, "--server", withPassword, "-o", folder.file("d2"), "--temp-dir", folder.file("tmp")])
        #expect(onArgv.status != 0 && onArgv.stderr.contains("never taken on the command line"), "\(onArgv.stderr)")
        let sent = try CLI.run(["transfer", "send", source, "-o", folder.file("d2"), "--temp-dir", folder.file("tmp")],
                               environment: ["SXKIT_XFTP_SERVERS": withPassword])
        #expect(sent.status == 0, "\(sent.stderr)")
        // Descriptions never carry the password (SimpleX refuses it there: Protocol.hs 1271-1277).
        let description = String(decoding: try folder.read("d2/note.txt.recipient-1.yaml"), as: UTF8.self)
        #expect(!description.contains("s3cret"))
    }

}
