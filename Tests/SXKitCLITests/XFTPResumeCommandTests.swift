import Foundation
import Testing
import SXCore
import SXTestSupport
import SXTransfer
import SXXFTP

/// `relay serve` killed with SIGKILL in the middle of a send and of a receive, and started again on
/// the same store and port: running the interrupted command again finishes it, and what arrives is
/// identical; nothing partial was ever served.
@Suite(.ownThreads)
struct XFTPResumeCommandTests {
    final class Server {
        let process = Process()
        let address: String

        init(store: String, listen: String) throws {
            process.executableURL = URL(fileURLWithPath: CLI.binary)
            process.arguments = ["relay", "serve", "--listen", listen, "--store", store, "--certificate-algorithm", "ed25519"]
            let out = Pipe()
            process.standardOutput = out
            process.standardError = FileHandle.nullDevice
            try process.run()
            address = String(decoding: out.fileHandleForReading.readLine(), as: UTF8.self)
        }

        var port: Int { (try? XFTPServerAddress.parse(address).get().portNumber) ?? 0 }

        func kill9() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    private func start(_ arguments: [String]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// Waits (up to 60 s) until `condition` holds.
    private func waitUntil(_ condition: () throws -> Bool) throws -> Bool {
        for _ in 0..<3000 {
            if try condition() { return true }
            usleep(20_000)
        }
        return false
    }

    @Test func aServerKilledMidUploadAndMidDownloadLosesNothing() throws {
        let folder = try TempFolder()
        let store = folder.file("store")
        var server = try Server(store: store, listen: "127.0.0.1:0")
        let listen = "127.0.0.1:\(server.port)"
        defer { if server.process.isRunning { server.kill9() } }
        for sub in ["desc", "inbox", "send", "receive"] { try Folders.create(folder.file(sub)) }
        let source = try folder.write("movie.mkv", testBytes(48 << 20, seed: 11))

        // Killed once two chunks are stored; the sender retries, then the same command finishes.
        let send = ["transfer", "send", source, "--server", server.address, "-o", folder.file("desc"), "--temp-dir", folder.file("send"), "--parallel", "1"]
        let sending = try start(send)
        #expect(try waitUntil {
            String(decoding: (try? FileBytes.read(folder.file("store/store.log"), limit: 1 << 20)) ?? [], as: UTF8.self)
                .components(separatedBy: "FPUT ").count > 2
        })
        #expect(sending.isRunning, "the send finished before the server was killed: the test proves nothing")
        server.kill9()
        sending.waitUntilExit()
        server = try Server(store: store, listen: listen)
        let resent = try CLI.run(send)
        #expect(resent.status == 0, "\(resent.stderr)")
        if sending.terminationStatus != 0 {
            #expect(resent.stdout.contains("already there from an earlier run"), "\(resent.stdout)")
        }

        // Killed once a chunk has arrived at the receiver; the same command finishes.
        let description = folder.file("desc/movie.mkv.recipient-1.yaml")
        let receive = ["transfer", "receive", description, "-o", folder.file("inbox"), "--temp-dir", folder.file("receive"), "--parallel", "1"]
        let receiving = try start(receive)
        #expect(try waitUntil {
            try Folders.names(in: folder.file("receive")).contains { name in
                name.hasPrefix("sxkit-receive-") && ((try? Folders.names(in: folder.file("receive/" + name)))?.contains { $0.hasPrefix("chunk-") && !$0.hasSuffix(".part") } ?? false)
            } || !receiving.isRunning
        })
        #expect(receiving.isRunning, "the receive finished before the server was killed: the test proves nothing")
        server.kill9()
        receiving.waitUntilExit()
        server = try Server(store: store, listen: listen)
        if receiving.terminationStatus != 0 {
            let again = try CLI.run(receive)
            #expect(again.status == 0, "\(again.stderr)")
        }
        #expect(try folder.read("inbox/movie.mkv") == folder.read("movie.mkv"))
    }
}
