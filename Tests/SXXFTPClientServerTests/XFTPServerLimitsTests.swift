import Foundation
import Glibc
import Testing
import SXCore
import SXCrypto
import SXTestSupport
import SXTransfer
import SXXFTP
import SXXFTPClient
import SXXFTPServer

/// What a slow, silent or hostile client cannot make the server do: hold a connection open without
/// a handshake or without a word, or make it read a body past the chunk's size.
@Suite(.ownThreads) struct XFTPServerLimitsTests {
    /// A TCP connection that never finishes TLS is closed after the handshake timeout (the idle
    /// timeout is long here, so that only the handshake's can close it).
    @Test func aConnectionWithoutAHandshakeIsClosed() async throws {
        let server = try await XFTPTestServer { $0.timeouts.handshake = .milliseconds(300); $0.timeouts.idle = .seconds(600) }
        let (closed, waited) = try await Self.waitForClose(port: server.server.port)
        #expect(closed, "the server kept the connection open for \(waited)")
        await server.stop()
    }

    /// A connection from which nothing arrives is closed after the idle timeout (the handshake's
    /// is long here; a client silent after its handshake meets the same rule).
    @Test func aSilentConnectionIsClosed() async throws {
        let server = try await XFTPTestServer { $0.timeouts.handshake = .seconds(600); $0.timeouts.idle = .milliseconds(300) }
        let (closed, waited) = try await Self.waitForClose(port: server.server.port)
        #expect(closed, "the server kept the connection open for \(waited)")
        await server.stop()
    }

    /// An endless body sent to a chunk that is already stored is not read past the chunk's size
    /// (it was read to its end before: 256 MiB here, 15 GiB in a trial), and the client hears no OK.
    @Test func anEndlessBodyIsNotReadOn() async throws {
        let server = try await XFTPTestServer()
        let connection = try await XFTPConnection.open(server.address)
        let bytes = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let sender = ReplicaKey.generate()
        let keys: [XFTPPublicKey] = [.ed25519(ReplicaKey.generate().ed25519PublicKey!)]
        let created = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender,
                                                  recipientKeys: keys, basicAuth: nil)
        try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
        let before = server.server.uploadBytesRead
        await #expect(throws: (any Error).self) {
            try await connection.upload(senderId: created.senderId, senderKey: sender, .file(path: "/dev/zero", offset: 0, length: 256 << 20))
        }
        let read = server.server.uploadBytesRead - before
        #expect(read > Int64(bytes.count) && read < 2 << 20, "read \(read) bytes of a 256 MiB body")
        await connection.close()
        await server.stop()
    }

    /// Connects over loopback TCP, sends nothing, and waits (on its own thread, at most 20 s) for
    /// the server to close: true when it did.
    static func waitForClose(port: Int) async throws -> (closed: Bool, waited: Duration) {
        let fd = try connect(port: port)
        defer { close(fd) }
        let started = ContinuousClock.now
        let n = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            Thread.detachNewThread {
                var byte: UInt8 = 0
                done.resume(returning: read(fd, &byte, 1))   // 0: closed by the server; -1: the receive timeout
            }
        }
        return (n == 0, ContinuousClock.now - started)
    }

    /// A loopback TCP connection with a 20 s receive timeout, so that a server that never closes
    /// fails the test instead of hanging it.
    static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var timeout = timeval(tv_sec: 20, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard rc == 0 else {
            close(fd)
            throw FileSystemError("connect", path: "127.0.0.1:\(port)", code: errno)
        }
        return fd
    }
}
