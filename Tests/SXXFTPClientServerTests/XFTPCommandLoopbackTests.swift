import Foundation
import Testing
import SXXFTPTransport
import SXCore
import SXCrypto
import SXTestSupport
import SXTransfer
import SXXFTP
import SXXFTPClient
import SXXFTPServer
import SXTestSupport

/// sxkit's client against sxkit's server over loopback TLS + HTTP/2, command by command.
@Suite(.ownThreads) struct XFTPCommandLoopbackTests {
    private func chunk(_ size: Int, seed: UInt8 = 1) -> [UInt8] { (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) } }

    @Test func everyCommandRoundTrips() async throws {
        let server = try await XFTPTestServer()
        let connection = try await XFTPConnection.open(server.address)
        #expect(connection.version == 3)
        #expect(connection.session.tlsUnique.count == 32)
        try await connection.ping()

        let bytes = chunk(64 << 10)
        let sender = ReplicaKey.generate()
        let recipients = [ReplicaKey.generate(), ReplicaKey.generate()]
        let created = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender,
                                                  recipientKeys: recipients.map { .ed25519($0.ed25519PublicKey!) }, basicAuth: nil)
        #expect(created.senderId.count == 16)
        #expect(created.recipientIds.count == 2)
        // Not uploaded yet: nothing to download.
        let buffer = AlignedBuffer(capacity: 4 << 20)
        await #expect(throws: XFTPClientError.refused(server: connection.serverName, .noFile)) {
            try await connection.download(recipientId: created.recipientIds[0], recipientKey: recipients[0], into: buffer)
        }
        try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
        // Uploading again (a resumed send) is accepted and changes nothing.
        try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
        for (index, recipient) in recipients.enumerated() {
            try await connection.download(recipientId: created.recipientIds[index], recipientKey: recipient, into: buffer)
            #expect(Array(buffer.bytes) == bytes)
        }
        // A third recipient added later.
        let late = ReplicaKey.generate()
        let lateIds = try await connection.addRecipients(senderId: created.senderId, senderKey: sender, recipientKeys: [.ed25519(late.ed25519PublicKey!)])
        try await connection.download(recipientId: lateIds[0], recipientKey: late, into: buffer)
        #expect(Array(buffer.bytes) == bytes)
        // The wrong key for a recipient id: AUTH, as for an id that does not exist.
        await #expect(throws: XFTPClientError.refused(server: connection.serverName, .auth)) {
            try await connection.download(recipientId: created.recipientIds[0], recipientKey: recipients[1], into: buffer)
        }
        try await connection.acknowledge(recipientId: created.recipientIds[0], recipientKey: recipients[0])
        await #expect(throws: XFTPClientError.refused(server: connection.serverName, .auth)) {
            try await connection.download(recipientId: created.recipientIds[0], recipientKey: recipients[0], into: buffer)
        }
        try await connection.delete(senderId: created.senderId, senderKey: sender)
        await #expect(throws: XFTPClientError.refused(server: connection.serverName, .auth)) {
            try await connection.download(recipientId: created.recipientIds[1], recipientKey: recipients[1], into: buffer)
        }
        #expect(server.server.storeUsage.chunks == 0)
        await connection.close()
        await server.stop()
    }

    @Test func uploadsAreCheckedForSizeDigestAndChunkSize() async throws {
        let server = try await XFTPTestServer()
        let connection = try await XFTPConnection.open(server.address)
        let bytes = chunk(64 << 10)
        let sender = ReplicaKey.generate()
        let recipient = ReplicaKey.generate()
        let keys: [XFTPPublicKey] = [.ed25519(recipient.ed25519PublicKey!)]
        let name = connection.serverName
        // Only SimpleX's four chunk sizes are accepted.
        await #expect(throws: XFTPClientError.refused(server: name, .size)) {
            _ = try await connection.create(size: 1000, digest: SHA256Digest.of(bytes), senderKey: sender, recipientKeys: keys, basicAuth: nil)
        }
        let created = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender, recipientKeys: keys, basicAuth: nil)
        var corrupt = bytes
        corrupt[100] ^= 1
        await #expect(throws: XFTPClientError.refused(server: name, .digest)) {
            try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(corrupt))
        }
        await #expect(throws: XFTPClientError.refused(server: name, .size)) {
            try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(Array(bytes.dropLast())))
        }
        await #expect(throws: XFTPClientError.refused(server: name, .size)) {
            try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes + [0]))
        }
        // Another sender's key cannot upload.
        await #expect(throws: XFTPClientError.refused(server: name, .auth)) {
            try await connection.upload(senderId: created.senderId, senderKey: ReplicaKey.generate(), .bytes(bytes))
        }
        // Nothing partial is served, and no stray file is left.
        let buffer = AlignedBuffer(capacity: 4 << 20)
        await #expect(throws: XFTPClientError.refused(server: name, .noFile)) {
            try await connection.download(recipientId: created.recipientIds[0], recipientKey: recipient, into: buffer)
        }
        #expect(try Folders.names(in: server.folder.file("store/files")).isEmpty)
        #expect(server.server.storeUsage.bytes == 0)
        await connection.close()
        await server.stop()
    }

    @Test func passwordQuotaAndIdentityAreEnforced() async throws {
        let server = try await XFTPTestServer { $0.password = Array("secret".utf8); $0.maxStoreBytes = 100 << 10 }
        let connection = try await XFTPConnection.open(server.address)
        let name = connection.serverName
        let bytes = chunk(64 << 10)
        let sender = ReplicaKey.generate()
        let keys: [XFTPPublicKey] = [.ed25519(ReplicaKey.generate().ed25519PublicKey!)]
        for wrong in [nil, Array("guess".utf8)] {
            await #expect(throws: XFTPClientError.refused(server: name, .auth)) {
                _ = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender, recipientKeys: keys, basicAuth: wrong)
            }
        }
        let first = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender, recipientKeys: keys, basicAuth: Array("secret".utf8))
        try await connection.upload(senderId: first.senderId, senderKey: sender, .bytes(bytes))
        let second = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender, recipientKeys: keys, basicAuth: Array("secret".utf8))
        await #expect(throws: XFTPClientError.refused(server: name, .quota)) {
            try await connection.upload(senderId: second.senderId, senderKey: sender, .bytes(bytes))
        }
        await connection.close()

        // Another key hash: refused after TLS, before any request.
        var other = server.address
        other.keyHash = SHA256Digest.of(Array("another server".utf8))
        await #expect(throws: XFTPClientError.self) { _ = try await XFTPConnection.open(other) }
        do {
            _ = try await XFTPConnection.open(other)
        } catch let error as XFTPClientError {
            guard case .wrongIdentity(_, .wrongIdentity) = error else { Issue.record("\(error)"); return }
        }
        await server.stop()
    }
}

@Suite(.ownThreads) struct XFTPLargeChunkTests {
    /// Four 4 MiB chunks up and down at once over one connection (HTTP/2 streams side by side).
    @Test func largestChunksInParallel() async throws {
        let server = try await XFTPTestServer()
        let relay = XFTPChunkRelay(server: server.address)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for seed in 0..<4 {
                group.addTask {
                    let bytes = (0..<(4 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ seed) }
                    let created = try await relay.createWithFreshKeys(size: Int64(bytes.count), digest: SHA256Digest.of(bytes))
                    try await relay.upload(created.sender, bytes: bytes)
                    let buffer = AlignedBuffer(capacity: 4 << 20)
                    try await relay.download(created.recipients[0], into: buffer)
                    #expect(Array(buffer.bytes) == bytes)
                }
            }
            try await group.waitForAll()
        }
        await server.stop()
    }
}

/// The handshake SimpleX's browser client makes: SNI, ALPN h2, a challenge the server signs.
@Suite(.ownThreads) struct XFTPWebHandshakeTests {
    @Test func aBrowserStyleClientGetsItsChallengeSignedAndWorks() async throws {
        let server = try await XFTPTestServer()
        let connection = try await XFTPConnection.open(server.address, web: true)
        #expect(connection.session.alpn == "h2")
        try await connection.ping()
        let bytes = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0) }
        let sender = ReplicaKey.generate(), recipient = ReplicaKey.generate()
        let created = try await connection.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender,
                                                  recipientKeys: [.ed25519(recipient.ed25519PublicKey!)], basicAuth: nil)
        try await connection.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
        let buffer = AlignedBuffer(capacity: 4 << 20)
        try await connection.download(recipientId: created.recipientIds[0], recipientKey: recipient, into: buffer)
        #expect(Array(buffer.bytes) == bytes)
        await connection.close()
        await server.stop()
    }
}

/// A server with a web certificate: a client that sends SNI (a browser) gets that certificate, and
/// still learns the server's identity through the web handshake; a native client (no SNI) still gets
/// the identity's chain, which it checks against the address.
@Suite(.ownThreads) struct XFTPWebCertificateTests {
    /// The web certificate (`WebCertificate`, made by the openssl tool) and its DER.
    static func webCredentials(in folder: TempFolder) throws -> (WebCredentials, der: [UInt8]) {
        let (certificate, key) = try WebCertificate.make(in: folder)
        let pem = String(decoding: try FileBytes.read(certificate, limit: 1 << 20), as: UTF8.self)
        let body = pem.split(separator: "\n").filter { !$0.hasPrefix("-----") }.joined()
        return (WebCredentials(certificateChainFile: certificate, keyFile: key), Array(Data(base64Encoded: body) ?? Data()))
    }

    @Test func browsersGetTheWebCertificateAndNativeClientsTheIdentity() async throws {
        let folder = try TempFolder("sxkit-xftp-web")
        let (credentials, webDER) = try Self.webCredentials(in: folder)
        #expect(!webDER.isEmpty)
        let server = try await XFTPTestServer(folder: folder) { $0.webCredentials = credentials }
        let web = try await XFTPConnection.open(server.address, web: true)
        #expect(web.session.peerChain.first == webDER, "the browser-style client was not given the web certificate")
        try await web.ping()
        let bytes = (0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let sender = ReplicaKey.generate(), recipient = ReplicaKey.generate()
        let created = try await web.create(size: UInt32(bytes.count), digest: SHA256Digest.of(bytes), senderKey: sender,
                                           recipientKeys: [.ed25519(recipient.ed25519PublicKey!)], basicAuth: nil)
        try await web.upload(senderId: created.senderId, senderKey: sender, .bytes(bytes))
        await web.close()

        // The TLS chain is not checked in web mode: the handshake is, so another key hash is still refused.
        var other = server.address
        other.keyHash = SHA256Digest.of(Array("another server".utf8))
        do {
            _ = try await XFTPConnection.open(other, web: true)
            Issue.record("a web-mode connection to the wrong identity was accepted")
        } catch let error as XFTPClientError {
            guard case .wrongIdentity = error else { Issue.record("\(error)"); return }
        }

        let native = try await XFTPConnection.open(server.address)
        #expect(native.session.peerChain.first != webDER)
        #expect(native.session.peerChain.count == 2)
        let buffer = AlignedBuffer(capacity: 4 << 20)
        try await native.download(recipientId: created.recipientIds[0], recipientKey: recipient, into: buffer)
        #expect(Array(buffer.bytes) == bytes)
        await native.close()
        await server.stop()
    }

    @Test func aWebKeyOthersCanReadIsRefused() async throws {
        let folder = try TempFolder("sxkit-xftp-web")
        let (credentials, _) = try Self.webCredentials(in: folder)
        #expect(chmod(credentials.keyFile, 0o644) == 0)
        await #expect(throws: XFTPServerError.webKeyOpen(path: credentials.keyFile)) {
            _ = try await XFTPTestServer(folder: folder) { $0.webCredentials = credentials }
        }
    }
}
