import Foundation
import Testing
import SXCore
import SXTestSupport

/// `--socks-proxy`: every connection to the XFTP server goes through the proxy (a minimal SOCKS5
/// server in Python, independent of sxkit's code), and the transfer arrives identical.
struct SOCKSProxyCommandTests {
    static let proxyScript = #"""
    import asyncio, socket, struct, sys
    log = open(sys.argv[1], "a")
    async def pipe(reader, writer):
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()
    async def handle(reader, writer):
        head = await reader.readexactly(2)
        await reader.readexactly(head[1])
        writer.write(b"\x05\x00")
        ver, cmd, _, kind = await reader.readexactly(4)
        if kind == 3:
            host = (await reader.readexactly((await reader.readexactly(1))[0])).decode()
        elif kind == 1:
            host = socket.inet_ntoa(await reader.readexactly(4))
        else:
            host = socket.inet_ntop(socket.AF_INET6, await reader.readexactly(16))
        port = struct.unpack("!H", await reader.readexactly(2))[0]
        log.write(f"{host}:{port}\n"); log.flush()
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

    @Test func transfersGoThroughTheProxy() throws {
        let folder = try TempFolder()
        let relay = Process()
        relay.executableURL = URL(fileURLWithPath: CLI.binary)
        relay.arguments = ["relay", "serve", "--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519"]
        let relayOut = Pipe()
        relay.standardOutput = relayOut
        relay.standardError = FileHandle.nullDevice
        try relay.run()
        defer { relay.terminate(); relay.waitUntilExit() }
        let address = String(decoding: relayOut.fileHandleForReading.readLine(), as: UTF8.self)

        // The interpreter itself, not a wrapper script that would outlive `terminate()`.
        let proxy = Process()
        proxy.executableURL = URL(fileURLWithPath: try Self.pythonExecutable())
        proxy.arguments = ["-c", Self.proxyScript, folder.file("proxy.log")]
        let proxyOut = Pipe()
        proxy.standardOutput = proxyOut
        try proxy.run()
        // SIGKILL: the test process may pass SIGTERM on as ignored.
        defer { kill(proxy.processIdentifier, SIGKILL); proxy.waitUntilExit() }
        let proxyPort = String(decoding: proxyOut.fileHandleForReading.readLine(), as: UTF8.self)

        for sub in ["desc", "inbox", "tmp"] { try Folders.create(folder.file(sub)) }
        let source = try folder.write("song.ogg", testBytes(3_000_000, seed: 9))
        let through = ["--socks-proxy", "127.0.0.1:" + proxyPort]
        let sent = try CLI.run(["transfer", "send", source, "--server", address, "-o", folder.file("desc"), "--temp-dir", folder.file("tmp")] + through)
        #expect(sent.status == 0, "\(sent.stderr)")
        let got = try CLI.run(["transfer", "receive", folder.file("desc/song.ogg.recipient-1.yaml"), "-o", folder.file("inbox"),
                               "--temp-dir", folder.file("tmp")] + through)
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try folder.read("inbox/song.ogg") == folder.read("song.ogg"))
        let port = address.split(separator: ":").last.map(String.init) ?? "?"
        let connections = String(decoding: try folder.read("proxy.log"), as: UTF8.self).split(separator: "\n")
        #expect(connections.count >= 2 && connections.allSatisfy { $0 == "127.0.0.1:" + port }, "\(connections)")
        // A bad proxy address is a usage error.
        let bad = try CLI.run(["transfer", "receive", folder.file("desc/song.ogg.recipient-1.yaml"), "--socks-proxy", "tor"])
        #expect(bad.status == 2)
    }
}
