import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
import SXTransfer
import NIOCore
import NIOHTTP2
import SXXFTP
@testable import SXXFTPClient
import SXXFTPServer
import SXXFTPTransport

/// simplexmq's server refuses an upload before its end (AUTH for a chunk that is gone, QUOTA,
/// TIMEOUT) and then reads no more of it, and its HTTP/2 library grants no more window for a body
/// nobody reads (`http2` 4.2.2). The server here does the same (`leavesRefusedUploadsUnread`).
@Suite(.ownThreads) struct XFTPEarlyAnswerTests {
    private enum Outcome: Sendable { case finished(String), hung }

    @Test(arguments: [64 << 10, 4 << 20])
    func anUploadRefusedBeforeItsEndIsAnsweredNotWaitedOnForEver(size: Int) async throws {
        let server = try await XFTPTestServer { $0.leavesRefusedUploadsUnread = true }
        let connection = try await XFTPConnection.open(server.address)
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 13) }
        let sender = ReplicaKey.generate()
        let created = try await connection.create(size: UInt32(size), digest: SHA256Digest.of(bytes), senderKey: sender,
                                                  recipientKeys: [.ed25519(ReplicaKey.generate().ed25519PublicKey!)], basicAuth: nil)
        // Gone from the server (deleted, or expired before a resumed send): its upload is refused at once.
        try await connection.delete(senderId: created.senderId, senderKey: sender)
        let started = ContinuousClock.now
        let outcome = await withTaskGroup(of: Outcome.self) { group in
            group.addTask {
                do {
                    try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
                    return .finished("uploaded")
                } catch let error as XFTPClientError {
                    if case .refused(_, .auth) = error { return .finished("refused AUTH") }
                    return .finished("\(error)")
                } catch {
                    return .finished("\(error)")
                }
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(30))
                return .hung
            }
            let first = await group.next()!
            group.cancelAll()
            return first
        }
        guard case .finished(let what) = outcome else {
            Issue.record("the upload of \(size) bytes waited for a window the server never grants")
            await connection.close()
            await server.stop()
            return
        }
        #expect(what == "refused AUTH", "\(what)")
        #expect(ContinuousClock.now - started < .seconds(10))
        // The server serves on: a new connection if this one was given up.
        let next = connection.isActive ? connection : try await XFTPConnection.open(server.address)
        try await next.ping()
        await connection.close()
        await next.close()
        await server.stop()
    }

    /// Once it has answered, the server asks the client to stop sending with RST_STREAM NO_ERROR
    /// (RFC 9113 §8.1), the one code SimpleX's clients' HTTP/2 library (http2 4.2.2) takes without
    /// ending the whole connection, and only after the answer's end. Seen on a raw stream that sends
    /// part of a refused upload and then neither ends nor resets it.
    @Test func aRefusedUploadIsStoppedWithNoErrorAfterItsAnswer() async throws {
        let server = try await XFTPTestServer()
        let connection = try await XFTPConnection.open(server.address)
        let sender = ReplicaKey.generate()
        let size = 1 << 20
        let created = try await connection.create(size: UInt32(size), digest: SHA256Digest.of([UInt8](repeating: 7, count: size)), senderKey: sender,
                                                  recipientKeys: [.ed25519(ReplicaKey.generate().ed25519PublicKey!)], basicAuth: nil)
        try await connection.delete(senderId: created.senderId, senderKey: sender)
        let block = try connection.signedBlock(.put, entityId: created.senderId, key: sender)
        let stream = try await connection.streams.openStream { channel in
            channel.eventLoop.makeCompletedFuture { try HTTP2StreamChannel(wrappingChannelSynchronously: channel) }
        }
        let seen: [String] = try await stream.executeThenClose { inbound, outbound in
            try await outbound.write(.headers(.init(headers: HTTP2Headers.request(authority: connection.authority), endStream: false)))
            try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer(bytes: block)), endStream: false)))
            try await outbound.write(.data(.init(data: .byteBuffer(ByteBuffer(bytes: [UInt8](repeating: 7, count: 32 << 10))), endStream: false)))
            var seen: [String] = []
            var body: [UInt8] = []
            for try await frame in inbound {
                switch frame {
                case .headers(let headers): seen.append("headers \(headers.headers.first(name: ":status") ?? "?") end \(headers.endStream)")
                case .data(let data):
                    if case .byteBuffer(let buffer) = data.data { body += buffer.readableBytesView }
                    if data.endStream {
                        let answer = try XFTPResponse.parse(XFTPTransmission.parse(block: body).command)
                        seen += ["answer \(answer)", "end"]
                    }
                case .rstStream(let code): seen.append("reset \(code)")
                default: continue
                }
                if seen.last?.hasPrefix("reset") == true { break }
            }
            return seen
        }
        #expect(seen == ["headers 200 end false", "answer \(XFTPResponse.error(.auth))", "end", "reset \(HTTP2ErrorCode.noError)"], "\(seen)")
        // The connection serves on.
        try await connection.ping()
        await connection.close()
        await server.stop()
    }
}
