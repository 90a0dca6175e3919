import NIOCore
import SXCore
import SXCrypto
import SXTransfer
import SXXFTP
import SXXFTPTransport

/// The XFTP commands a client sends (simplexmq `src/Simplex/FileTransfer/Client.hs` 253-321), each
/// signed by the chunk key it needs.
extension XFTPConnection {
    func signedBlock(_ command: XFTPCommand, entityId: [UInt8], key: ReplicaKey) throws -> [UInt8] {
        let encoded = try command.encoded()
        return try XFTPTransmission.signedBlock(sessionId: session.tlsUnique, entityId: entityId, command: encoded) { message in
            ReplicaSigner.sign(message, with: key)
        }
    }

    private func unexpected(_ response: XFTPResponse) -> XFTPClientError {
        .badResponse(server: serverName, reason: "\(response.tag) is not an answer to this command")
    }

    /// FNEW: the sender's id and one id per recipient key.
    public func create(size: UInt32, digest: [UInt8], senderKey: ReplicaKey, recipientKeys: [XFTPPublicKey],
                       basicAuth: [UInt8]?) async throws -> (senderId: [UInt8], recipientIds: [[UInt8]]) {
        guard let senderPublic = senderKey.ed25519PublicKey else { throw XFTPClientError.badResponse(server: serverName, reason: "only Ed25519 sender keys are made here") }
        let info = XFTPFileInfo(senderKey: .ed25519(senderPublic), size: size, digest: digest)
        let block = try signedBlock(.new(info, recipientKeys: recipientKeys, basicAuth: basicAuth), entityId: [], key: senderKey)
        let name = serverName
        return try await command(block: block) { response, _ in
            guard case .senderIds(let sid, let rids) = response, rids.count == recipientKeys.count else {
                throw XFTPClientError.badResponse(server: name, reason: "FNEW answered \(response.tag) with the wrong number of ids")
            }
            return (sid, rids)
        }
    }

    /// FADD.
    public func addRecipients(senderId: [UInt8], senderKey: ReplicaKey, recipientKeys: [XFTPPublicKey]) async throws -> [[UInt8]] {
        let block = try signedBlock(.addRecipients(recipientKeys), entityId: senderId, key: senderKey)
        let name = serverName
        return try await command(block: block) { response, _ in
            guard case .recipientIds(let rids) = response, rids.count == recipientKeys.count else {
                throw XFTPClientError.badResponse(server: name, reason: "FADD answered \(response.tag)")
            }
            return rids
        }
    }

    /// FPUT: the chunk's bytes after the block.
    public func upload(senderId: [UInt8], senderKey: ReplicaKey, _ attachment: Attachment) async throws {
        let block = try signedBlock(.put, entityId: senderId, key: senderKey)
        try await expectOK(block: block, attachment: attachment, command: "FPUT")
    }

    /// FDEL.
    public func delete(senderId: [UInt8], senderKey: ReplicaKey) async throws {
        try await expectOK(block: signedBlock(.delete, entityId: senderId, key: senderKey), command: "FDEL")
    }

    /// FACK: this recipient has the chunk; the server may forget its id.
    public func acknowledge(recipientId: [UInt8], recipientKey: ReplicaKey) async throws {
        try await expectOK(block: signedBlock(.ack, entityId: recipientId, key: recipientKey), command: "FACK")
    }

    public func ping() async throws {
        let block = try XFTPTransmission(sessionId: session.tlsUnique, corrId: [], entityId: [], command: XFTPCommand.ping.encoded()).block()
        let name = serverName
        try await command(block: block) { response, _ in
            guard case .pong = response else { throw XFTPClientError.badResponse(server: name, reason: "PING answered \(response.tag)") }
        }
    }

    private func expectOK(block: [UInt8], attachment: Attachment? = nil, command name: String) async throws {
        let server = serverName
        try await command(block: block, attachment: attachment) { response, _ in
            guard case .ok = response else { throw XFTPClientError.badResponse(server: server, reason: "\(name) answered \(response.tag)") }
        }
    }

    /// FGET with a fresh X25519 key: the chunk arrives encrypted with the DH secret's secret-box
    /// stream, its 16-byte tag last (`Client.hs` 275-297, `Transport.hs` 184-221), and is decrypted
    /// into `buffer` (emptied first). A body larger than the buffer, or a wrong tag, is refused; the
    /// caller checks the size and digest against the description.
    public func download(recipientId: [UInt8], recipientKey: ReplicaKey, into buffer: AlignedBuffer) async throws {
        let key = X25519.generate()
        let block = try signedBlock(.get(dhKey: .x25519(key.publicKey)), entityId: recipientId, key: recipientKey)
        let name = serverName
        buffer.removeAll()
        try await command(block: block) { response, reader in
            guard case .file(let serverKey, let nonce) = response else {
                throw XFTPClientError.badResponse(server: name, reason: "FGET answered \(response.tag)")
            }
            guard let secret = X25519.sharedSecret(privateKey: key.privateKey, peerPublicKey: serverKey.raw) else {
                throw XFTPClientError.badResponse(server: name, reason: "the server's download key is not usable")
            }
            var box = SecretBoxStream(key: secret, nonce: nonce)
            // The last 16 bytes seen so far may be the tag: held back until more arrive.
            var tail: [UInt8] = []
            tail.reserveCapacity(2 * SecretBoxStream.tagLength)
            while let piece = try await reader.nextData() {
                try piece.withUnsafeReadableBytes { bytes in
                    let tagLength = SecretBoxStream.tagLength
                    if bytes.count >= tagLength {
                        guard tail.withUnsafeBytes({ buffer.append($0) }),
                              buffer.append(UnsafeRawBufferPointer(rebasing: bytes[0..<(bytes.count - tagLength)])) else {
                            throw XFTPClientError.refused(server: name, .size)
                        }
                        tail = Array(bytes[(bytes.count - tagLength)...])
                    } else {
                        tail += bytes
                        if tail.count > tagLength {
                            let spill = tail.count - tagLength
                            guard tail.withUnsafeBytes({ buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<spill])) }) else { throw XFTPClientError.refused(server: name, .size) }
                            tail.removeFirst(spill)
                        }
                    }
                }
            }
            guard tail.count == SecretBoxStream.tagLength else { throw XFTPClientError.refused(server: name, .size) }
            buffer.withMutableBytes { box.open($0) }
            guard box.verify(tail) else {
                buffer.wipe()
                throw XFTPClientError.refused(server: name, .crypto)
            }
        }
    }
}

/// Signs a transmission with a chunk key: Ed25519 through libsodium, Ed448 through OpenSSL.
enum ReplicaSigner {
    static func sign(_ message: [UInt8], with key: ReplicaKey) -> [UInt8] {
        switch key.algorithm {
        case .ed25519: return Ed25519.sign(message, seed: key.raw)
        case .ed448: return (try? RawSigningKey.sign(message, ed448: key.raw)) ?? []
        case .x25519: return []
        }
    }
}
