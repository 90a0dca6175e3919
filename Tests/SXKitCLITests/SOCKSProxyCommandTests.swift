import Foundation
import Testing
import SXCore
import SXSample
import SXTestSupport

/// `--socks-proxy`: every connection to the XFTP server goes through the proxy (a minimal SOCKS5
/// server in Python, independent of sxkit's code), and the transfer arrives identical.
@Suite(.ownThreads)
struct SOCKSProxyCommandTests {
    /// argv: the log (one line a connection: `AUTH|HOST:PORT`, AUTH being `user:password` or
    /// `none`), and `any` (username/password when offered) or `none-only` (refuses it).
    static let proxyScript = #"""
    import asyncio, socket, struct, sys
    log = open(sys.argv[1], "a")
    mode = sys.argv[2]
    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()
    async def handle(reader, writer):
        head = await reader.readexactly(2)
        methods = await reader.readexactly(head[1])
        if 2 in methods and mode == "any":
            writer.write(b"\x05\x02")
            ver, ulen = await reader.readexactly(2)
            user = (await reader.readexactly(ulen)).decode()
            password = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
            writer.write(b"\x01\x00")
            auth = f"{user}:{password}"
        elif 0 in methods:
            writer.write(b"\x05\x00")
            auth = "none"
        else:
            writer.write(b"\x05\xff")
            await writer.drain()
            writer.close()
            return
        ver, cmd, _, kind = await reader.readexactly(4)
        if kind == 3:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        elif kind == 1:
            host = socket.inet_ntoa(await reader.readexactly(4))
        else:
            host = socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16))
        port = struct.unpack("!H", await reader.readexactly(2))[0]
        log.write(f"{auth}|{host}:{port}\n"); log.flush()
        up_reader, up_writer = await asyncio.open_connection(host, port)
        writer.write(b"\x05\x00\x00\x01\x7f\x00\x00\x01" + struct.pack("!H", port))
        await writer.drain()
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer))
    async def main():
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        print(server.sockets[0].getsockname()[1], flush=True)
        await server.serve_forever()
    asyncio.run(main())
    """#

    static func pythonExecutable() throws -> String {
        let which = Process()
        which.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        which.arguments = ["python3", "-c", "import sys; print(sys.executable)"]
        let out = Pipe()
        which.standardOutput = out
        try which.run()
        which.waitUntilExit()
        return String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A proxy process (the interpreter itself, not a wrapper script that would outlive it) and its port.
    final class Proxy {
        let process = Process()
        let port: String
        let log: String

        init(folder: TempFolder, name: String, mode: String) throws {
            log = folder.file(name + ".log")
            process.executableURL = URL(fileURLWithPath: try SOCKSProxyCommandTests.pythonExecutable())
            process.arguments = ["-c", SOCKSProxyCommandTests.proxyScript, log, mode]
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            port = String(decoding: out.fileHandleForReading.readLine(), as: UTF8.self)
        }

        /// Each connection's (authentication, target), in order.
        func connections() throws -> [(auth: String, target: String)] {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            return text.split(separator: "\n").map {
                let parts = $0.split(separator: "|", maxSplits: 1).map(String.init)
                return (parts[0], parts.count > 1 ? parts[1] : "")
            }
        }

        // SIGKILL: the test process may pass SIGTERM on as ignored.
        deinit { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
    }

    @Test func transfersGoThroughTheProxyEachRunOnItsOwnCircuits() throws {
        let folder = try TempFolder()
        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519"])
        let address = relay.address, target = "127.0.0.1:" + relay.port
        let proxy = try Proxy(folder: folder, name: "proxy", mode: "any")

        for sub in ["desc", "inbox", "tmp", "inbox2"] { try Folders.create(folder.file(sub)) }
        let source = try folder.write("song.ogg", testBytes(3_000_000, seed: 9))
        let through = ["--socks-proxy", "127.0.0.1:" + proxy.port]
        let sent = try CLI.run(["transfer", "send", source, "--server", address, "--recipients", "3", "-o", folder.file("desc"),
                                "--temp-dir", folder.file("tmp")] + through)
        #expect(sent.status == 0, "\(sent.stderr)")
        let sendConnections = try proxy.connections()
        let got = try CLI.run(["transfer", "receive", folder.file("desc/song.ogg.recipient-1.yaml"), "-o", folder.file("inbox"),
                               "--temp-dir", folder.file("tmp")] + through)
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try folder.read("inbox/song.ogg") == folder.read("song.ogg"))
        let receiveConnections = Array(try proxy.connections().dropFirst(sendConnections.count))
        #expect(!sendConnections.isEmpty && !receiveConnections.isEmpty)
        #expect((sendConnections + receiveConnections).allSatisfy { $0.target == target }, "\(sendConnections + receiveConnections)")
        // Isolation by authentication, as SimpleX's clients: a username of the run's own (base64 of
        // 32 bytes), an empty password; one for all of a run's connections, another for the next run.
        let sendUsers = Set(sendConnections.map(\.auth)), receiveUsers = Set(receiveConnections.map(\.auth))
        #expect(sendUsers.count == 1 && receiveUsers.count == 1 && sendUsers != receiveUsers, "\(sendUsers) \(receiveUsers)")
        for auth in sendUsers.union(receiveUsers) {
            #expect(auth.hasSuffix(":") && Data(base64Encoded: String(auth.dropLast()))?.count == 32, "\(auth)")
        }

        // `@` first: no authentication offered.
        let plain = try CLI.run(["transfer", "receive", folder.file("desc/song.ogg.recipient-2.yaml"), "-o", folder.file("inbox2"),
                                 "--temp-dir", folder.file("tmp"), "--socks-proxy", "@127.0.0.1:" + proxy.port])
        #expect(plain.status == 0, "\(plain.stderr)")
        let plainConnections = Array(try proxy.connections().dropFirst(sendConnections.count + receiveConnections.count))
        #expect(!plainConnections.isEmpty && plainConnections.allSatisfy { $0.auth == "none" && $0.target == target }, "\(plainConnections)")

        // A proxy that takes no username: the refusal says so and how to do without, and nothing arrives.
        let strict = try Proxy(folder: folder, name: "strict", mode: "none-only")
        try Folders.create(folder.file("inbox3"))
        let refused = try CLI.run(["transfer", "receive", folder.file("desc/song.ogg.recipient-3.yaml"), "-o", folder.file("inbox3"),
                                   "--temp-dir", folder.file("tmp"), "--retry", "1", "--socks-proxy", "127.0.0.1:" + strict.port])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the SOCKS proxy 127.0.0.1:\(strict.port): it accepts no username/password authentication"), "\(refused.stderr)")
        #expect(refused.stderr.contains("@HOST:PORT"), "\(refused.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.file("inbox3")).isEmpty)

        // A bad proxy address is a usage error; so are credentials on the command line.
        for bad in ["tor", "user:secret@127.0.0.1:9050"] {
            let usage = try CLI.run(["transfer", "receive", folder.file("desc/song.ogg.recipient-1.yaml"), "--socks-proxy", bad])
            #expect(usage.status == 2, "\(bad): \(usage.stderr)")
        }
    }

    /// A migration sent through a proxy says so in its link's data, as the apps' links do; received
    /// without a proxy it is refused before anything is created (as the Android app asks to use Tor
    /// first); `--direct` downloads without the proxy; a rerun that downloads nothing is not refused.
    @Test func aMigrationLinkCarriesTheProxyAndItsReceiveHonoursIt() throws {
        let folder = try TempFolder()
        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519"])
        let proxy = try Proxy(folder: folder, name: "proxy", mode: "any")
        let profile = try SampleCopies.create(at: folder.file("profile"), options: .init(photos: 1, documents: 1, seed: 4, chatItems: 20))
        let pass = try folder.write("pass", Array(ArchiveImportCommandTests.newPassphrase.utf8))
        let through = ["--socks-proxy", "127.0.0.1:" + proxy.port]
        let sent = try CLI.run(["migrate", "send", "--data-dir", profile.directory.root, "--server", relay.address, "-o", folder.file("mdesc"),
                                "--passphrase-file", pass] + through)
        #expect(sent.status == 0, "\(sent.stderr)")
        let linkName = try #require(try Folders.names(in: folder.file("mdesc")).first { $0.hasSuffix(".link.txt") })
        let link = String(decoding: try folder.read("mdesc/" + linkName), as: UTF8.self).trimmingCharacters(in: .newlines)
        let data = try #require(link.components(separatedBy: "&data=").last?.removingPercentEncoding)
        #expect(data == #"{"networkConfig":{"socksProxy":"127.0.0.1:"# + proxy.port + #"","hostMode":"onion","requiredHostMode":false}}"#)
        let connectionsBefore = try proxy.connections().count

        let receive = ["migrate", "receive", folder.file("mdesc/" + linkName), "--data-dir", folder.file("moved"), "--passphrase-file", pass]
        let refused = try CLI.run(receive)
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("the link says its sender reaches the servers through Tor (SOCKS proxy 127.0.0.1:\(proxy.port))")
                && refused.stderr.contains("nothing was downloaded") && refused.stderr.contains("--direct"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder.file("moved/simplex_v1_chat.db")))
        let madeByTheRefusal = (try? Folders.names(in: folder.file("moved/tmp"))) ?? []
        #expect(madeByTheRefusal.isEmpty, "\(madeByTheRefusal)")
        let direct = try CLI.run(receive + ["--direct"])
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(try proxy.connections().count == connectionsBefore, "--direct does not use the proxy")
        #expect(try rowCounts(folder.file("moved/simplex_v1_chat.db")) == rowCounts(profile.directory.root + "/simplex_v1_chat.db"))
        let again = try CLI.run(receive)
        #expect(again.status == 0 && again.stdout.contains("nothing was imported twice"), "\(again.stdout)\(again.stderr)")
    }
}
