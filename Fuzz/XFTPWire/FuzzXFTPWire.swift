import FuzzSupport
import SXXFTP

/// XFTP's wire encodings as the client and the relay server read what comes off the network:
/// blocks, transmissions, commands, responses, error codes, both handshakes, the web hello, public
/// keys and the signed DH key. The input is a block's content (it is padded to the 16,384 bytes
/// every block has), and every decoder also reads it as it is.
@main
enum FuzzXFTPWire: FuzzTarget {
    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        let input = Array(bytes)
        _ = try? XFTPBlock.unpad(input)
        if let block = try? XFTPBlock.pad(input) {
            if let transmission = try? XFTPTransmission.parse(block: block) {
                // What a server or client reads, it must write back the same way (a relay answers
                // with the ids it read; the client signs what it parsed).
                precondition((try? XFTPTransmission.parse(block: transmission.block())) == transmission, "a transmission does not survive its own block")
                commandOrResponse(transmission.command)
            }
            if let handshake = try? XFTPServerHandshake.parse(block: block) {
                precondition((try? XFTPServerHandshake.parse(block: handshake.block())) == handshake, "a server handshake does not survive its own block")
                _ = try? SignedDHKey.parse(handshake.signedKey)
            }
            if let handshake = try? XFTPClientHandshake.parse(block: block) {
                precondition((try? XFTPClientHandshake.parse(block: handshake.block())) == handshake, "a client handshake does not survive its own block")
            }
        }
        commandOrResponse(input)
        if let hello = try? XFTPClientHello.parse(input) {
            precondition((try? XFTPClientHello.parse(hello.encoded())) == hello, "a hello does not survive its own encoding")
        }
        _ = try? XFTPErrorCode.parse(input)
        _ = try? SignedDHKey.parse(input)
        _ = try? XFTPPublicKey(der: input)
        _ = try? XFTPPublicKey(authKey: input)
    }

    static func commandOrResponse(_ bytes: [UInt8]) {
        if let command = try? XFTPCommand.parse(bytes) {
            precondition((try? XFTPCommand.parse(command.encoded())) == command, "a command does not survive its own encoding")
        }
        if let response = try? XFTPResponse.parse(bytes) {
            precondition((try? XFTPResponse.parse(response.encoded())) == response, "a response does not survive its own encoding")
        }
    }

    /// Block contents as the real encoders write them: a signed command and a response in their
    /// transmissions, commands and responses alone, both handshakes, a hello, keys.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let ed25519 = XFTPPublicKey.ed25519(Array(1...32))
        let x25519 = XFTPPublicKey.x25519(Array(33...64))
        let new = XFTPCommand.new(XFTPFileInfo(senderKey: ed25519, size: 65_536, digest: Array(repeating: 7, count: 32)),
                                  recipientKeys: [ed25519], basicAuth: Array("password".utf8))
        let commands: [XFTPCommand] = [new, .addRecipients([ed25519, ed25519]), .put, .delete, .get(dhKey: x25519), .ack, .ping]
        let responses: [XFTPResponse] = [.senderIds(senderId: Array(1...24), recipientIds: [Array(25...48)]), .recipientIds([Array(1...24)]),
                                         .file(dhKey: x25519, nonce: Array(1...24)), .ok, .pong,
                                         .error(.command(.syntax)), .error(.blocked(Array("reason".utf8))), .error(.noFile)]
        var seeds: [(name: String, bytes: [UInt8])] = []
        for command in commands {
            let encoded = try command.encoded()
            let block = try XFTPTransmission.signedBlock(sessionId: Array(1...32), entityId: Array(1...24), command: encoded) { _ in Array(repeating: 9, count: 64) }
            seeds.append(("command-\(command.tag)", encoded))
            seeds.append(("transmission-\(command.tag)", try XFTPBlock.unpad(block)))
        }
        for (index, response) in responses.enumerated() {
            let encoded = try response.encoded()
            let block = try XFTPTransmission(sessionId: Array(1...32), corrId: [], entityId: Array(1...24), command: encoded).block()
            seeds.append(("response-\(index)-\(response.tag)", encoded))
            seeds.append(("transmission-response-\(index)-\(response.tag)", try XFTPBlock.unpad(block)))
        }
        let signedKey = SignedDHKey.encode(dhKey: x25519, algorithm: .ed25519, signature: Array(repeating: 5, count: 64))
        let server = XFTPServerHandshake(versionRange: XFTPVersionRange(min: 1, max: 3), sessionId: Array(1...32),
                                         certificateChain: [Array(repeating: 0x30, count: 40), Array(repeating: 0x31, count: 40)],
                                         signedKey: signedKey, webIdentityProof: Array(repeating: 6, count: 64))
        seeds.append(("server-handshake", try XFTPBlock.unpad(server.block())))
        seeds.append(("client-handshake", try XFTPBlock.unpad(XFTPClientHandshake(version: 3, keyHash: Array(1...32)).block())))
        seeds.append(("client-hello", try XFTPClientHello(webChallenge: Array(1...32)).encoded()))
        seeds.append(("signed-dh-key", signedKey))
        seeds.append(("ed25519-key", ed25519.der))
        return seeds
    }
}
