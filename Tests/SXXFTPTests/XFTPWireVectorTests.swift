import CSodium
import Testing
import SXTestSupport
@testable import SXXFTP

// XFTP wire vectors derived by hand from SimpleX's own sources, never from sxkit's encoder: the
// project's evidence of byte compatibility with simplexmq.
//
// Paths are in the repository simplex-chat/simplexmq (snapshot 92598c2d, June 2026) unless another
// repository is named. Short names used below:
//   FT/Protocol.hs   = src/Simplex/FileTransfer/Protocol.hs
//   FT/Transport.hs  = src/Simplex/FileTransfer/Transport.hs
//   FT/Client.hs     = src/Simplex/FileTransfer/Client.hs
//   FT/Server.hs     = src/Simplex/FileTransfer/Server.hs
//   Protocol.hs      = src/Simplex/Messaging/Protocol.hs
//   Transport.hs     = src/Simplex/Messaging/Transport.hs
//   Encoding.hs      = src/Simplex/Messaging/Encoding.hs
//   Crypto.hs        = src/Simplex/Messaging/Crypto.hs
//   WebTests.hs      = tests/XFTPWebTests.hs (Haskell ⇄ TypeScript cross-tests; their inputs are reused)
//
// The encodings (Encoding.hs):
//   ByteString  = 1 length byte ‖ bytes                              102-106
//   Large       = Word16 BE length ‖ bytes                           135-143
//   Word16/32   = big-endian                                          72-82
//   Maybe a     = '0' | '1' ‖ a                                      116-124
//   NonEmpty a  = 1 count byte ‖ items (count 0 refused)             154-156, 173-178
//   tuples      = the parts one after another                        180-196
//   Char        = the byte itself (the ' ' after a tag)               54-58
// A public key is the ByteString of its X.509 SubjectPublicKeyInfo DER (Crypto.hs 550-570, 605-607
// `encodePubKey = encodeASNObj . publicToX509`).

// MARK: - Helpers (independent of sxkit)

/// Bytes from hex digits; whitespace is ignored so that fields can be spaced out.
private func hex(_ text: String) -> [UInt8] {
    let digits = Array(text.unicodeScalars.filter { !$0.properties.isWhitespace })
    precondition(digits.count % 2 == 0, "an odd number of hex digits in \(text)")
    var bytes: [UInt8] = []
    bytes.reserveCapacity(digits.count / 2)
    var index = 0
    while index < digits.count {
        guard let byte = UInt8(String(digits[index]) + String(digits[index + 1]), radix: 16) else {
            preconditionFailure("not hex: \(text)")
        }
        bytes.append(byte)
        index += 2
    }
    return bytes
}

/// `B.pack [a .. b]` of the Haskell tests.
private func pack(_ range: ClosedRange<Int>) -> [UInt8] { range.map { UInt8($0) } }

/// Concatenation (kept out of long `+` chains for the type checker).
private func cat(_ parts: [UInt8]...) -> [UInt8] { parts.flatMap { $0 } }

/// simplexmq's `pad msg 16384` written out from Crypto.hs 1082-1088:
/// `encodeWord16 (fromIntegral len) <> msg <> B.replicate padLen '#'`, padLen = 16384 - len - 2.
private func simplexPad(_ content: [UInt8]) -> [UInt8] {
    precondition(content.count <= 16_382)
    return [UInt8(content.count >> 8), UInt8(content.count & 0xFF)] + content
        + [UInt8](repeating: 0x23, count: 16_384 - content.count - 2)
}

/// libsodium's Ed25519 and X25519, so that keys and signatures are not sxkit's.
private enum Sodium {
    static func signKeyPair(seed: [UInt8]) -> (public: [UInt8], secret: [UInt8]) {
        precondition(sodium_init() >= 0 && seed.count == 32)
        var pk = [UInt8](repeating: 0, count: 32), sk = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_seed_keypair(&pk, &sk, seed)
        return (pk, sk)
    }

    static func sign(_ message: [UInt8], secret: [UInt8]) -> [UInt8] {
        precondition(sodium_init() >= 0 && secret.count == 64)
        var signature = [UInt8](repeating: 0, count: 64)
        _ = crypto_sign_detached(&signature, nil, message, UInt64(message.count), secret)
        return signature
    }

    static func verify(_ signature: [UInt8], _ message: [UInt8], publicKey: [UInt8]) -> Bool {
        precondition(sodium_init() >= 0)
        return crypto_sign_verify_detached(signature, message, UInt64(message.count), publicKey) == 0
    }

    static func x25519Public(secret: [UInt8]) -> [UInt8] {
        precondition(sodium_init() >= 0 && secret.count == 32)
        var point = [UInt8](repeating: 0, count: 32)
        _ = crypto_scalarmult_base(&point, secret)
        return point
    }
}

// MARK: - Fixed inputs

/// The Ed25519 seed of WebTests.hs 1410 (`B.pack [1 .. 32]`).
private let edSeed = pack(1...32)
/// Its public key, computed independently with OpenSSL (Python `cryptography` 48,
/// `Ed25519PrivateKey.from_private_bytes(bytes(range(1, 33)))`); libsodium must agree.
private let edPub = hex("79b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664")
/// The X25519 secret of WebTests.hs 1718 (`B.pack [41 .. 72]`) and its public key (OpenSSL, as above).
private let dhSecret = pack(41...72)
private let dhPub = hex("46b1880a0dca97ae1618d3d8c04cc51b10fd08c1cd8839c1bbf4bd7fe014005d")

/// RFC 8410 SubjectPublicKeyInfo prefixes, as WebTests.hs 538/552 (Ed25519, X25519) write them:
/// SEQUENCE(42) { SEQUENCE(5) { OID(3) 1.3.101.x }, BIT STRING(33) 0-unused ‖ key }.
private let ed25519SPKIPrefix = hex("30 2a  30 05  06 03 2b 65 70  03 21 00")
private let x25519SPKIPrefix = hex("30 2a  30 05  06 03 2b 65 6e  03 21 00")

/// The chunk's sender key (the Ed25519 key of the seed) and two recipient keys (any 32 bytes:
/// the encoding does not look inside a key).
private let senderKeyDER = ed25519SPKIPrefix + edPub
private let recipient1DER = ed25519SPKIPrefix + pack(11...42)
private let recipient2DER = ed25519SPKIPrefix + pack(21...52)
/// FGET's / FILE's X25519 key.
private let dhKeyDER = x25519SPKIPrefix + dhPub
/// A chunk's size (12345, WebTests.hs 1172) and SHA-256 digest (any 32 bytes).
private let chunkSize: UInt32 = 12_345
private let chunkDigest = pack(31...62)

/// FNEW with two recipients and basic auth "pass123". Encoding: FT/Protocol.hs 204
/// `e (FNEW_, ' ', file, rKeys, auth_)`; FileInfo 257-258 `smpEncode (sndKey, size, digest)`;
/// BasicAuth is its ByteString (Protocol.hs 1291-1292). WebTests.hs 1192-1213 has the same layout.
private let fnewWithAuth = cat(
    hex("46 4e 45 57 20"),        // "FNEW" ' '
    hex("2c"), senderKeyDER,      // sndKey: ByteString, 44 bytes of Ed25519 SPKI
    hex("00 00 30 39"),           // size: Word32 12345
    hex("20"), chunkDigest,       // digest: ByteString, 32 bytes
    hex("02"),                    // NonEmpty RcvPublicAuthKey: 2 keys
    hex("2c"), recipient1DER,     //   key 1: ByteString, 44 bytes
    hex("2c"), recipient2DER,     //   key 2: ByteString, 44 bytes
    hex("31"),                    // Maybe BasicAuth: '1' = Just
    hex("07 70 61 73 73 31 32 33") //   ByteString "pass123"
)

/// FNEW with one recipient and no basic auth (WebTests.hs 1215-1233: "... <> rcvKeys <> \"0\"").
private let fnewWithoutAuth = cat(
    hex("46 4e 45 57 20"),        // "FNEW" ' '
    hex("2c"), senderKeyDER,      // sndKey
    hex("00 00 30 39"),           // size 12345
    hex("20"), chunkDigest,       // digest
    hex("01"),                    // NonEmpty: 1 key
    hex("2c"), recipient1DER,     //   key 1
    hex("30")                     // Maybe BasicAuth: '0' = Nothing
)

private let fileInfo = XFTPFileInfo(senderKey: .ed25519(edPub), size: chunkSize, digest: chunkDigest)

// MARK: - Tests

@Suite(.ownThreads) struct XFTPWireVectorTests {
    // MARK: 1. Blocks

    /// Crypto.hs 1082-1097 `pad`/`unPad`, FT/Protocol.hs 83-84 `xftpBlockSize = 16384`,
    /// WebTests.hs 1353-1378 (blockPad = C.pad).
    @Test func blockPadAndUnpad() throws {
        let content = hex("61 62 63")                              // "abc"
        let expected = hex("00 03") + content                       // Word16 BE length 3, the content
            + [UInt8](repeating: 0x23, count: 16_384 - 5)           // '#' up to 16,384
        #expect(expected.count == 16_384)
        #expect(try XFTPBlock.pad(content) == expected)
        #expect(try XFTPBlock.unpad(expected) == content)

        // unPad reads the length and takes that many bytes; it does not look at the padding (1090-1097).
        var otherPadding = expected
        otherPadding[100] = 0x00
        #expect(try XFTPBlock.unpad(otherPadding) == content)

        // An empty content: length 0 and 16,382 '#'.
        #expect(try XFTPBlock.pad([]) == hex("00 00") + [UInt8](repeating: 0x23, count: 16_382))

        // The most a block holds: len <= 16382 so that padLen = 16384 - len - 2 >= 0 (1083-1088).
        #expect(try XFTPBlock.pad([UInt8](repeating: 0x41, count: 16_382)).count == 16_384)
        #expect(throws: XFTPWireError.self) { try XFTPBlock.pad([UInt8](repeating: 0x41, count: 16_383)) }

        // A length that points past the end (unPad: `B.length rest >= len` fails).
        var overlong = expected
        overlong[0] = 0x40
        overlong[1] = 0x00                                          // 16,384 > 16,382 bytes left
        #expect(throws: XFTPWireError.self) { try XFTPBlock.unpad(overlong) }
    }

    // MARK: 2. Unsigned transmission (PING)

    /// FT/Client.hs 313-317 `pingXFTP`: `xftpEncodeTransmission thParams ("", NoEntity, PING)`, no key.
    /// FT/Protocol.hs 363-368: `xftpEncodeBatch1 (Nothing, encodeTransmission thParams t)`,
    /// `C.pad (tEncodeBatch1 False t) xftpBlockSize`. Protocol.hs 2179-2180 `tEncodeBatch1`:
    /// `lenEncode 1 ‖ smpEncode (Large (tEncodeAuth Nothing ‖ t))`; 507-509 `tEncodeAuth` of Nothing is
    /// `smpEncode B.empty` = 0x00; 2194-2199 `encodeTransmission` with implySessId = False
    /// (FT/Client.hs 147, FT/Server.hs 160) = `smpEncode sessionId ‖ smpEncode (corrId, entityId) ‖ command`.
    /// Same layout as WebTests.hs 1381-1406 (sessionId [201..232]); here with the empty corrId of
    /// FT/Client.hs 224.
    @Test func pingTransmissionBlock() throws {
        let sessionId = pack(201...232)
        let content = cat(
            hex("01"),                  // batch: 1 transmission (lenEncode 1)
            hex("00 28"),               // Large: 40 bytes follow
            hex("00"),                  //   authenticator: empty ByteString (unsigned)
            hex("20"), sessionId,       //   sessionId: ByteString, 32 bytes (on the wire: implySessId = False)
            hex("00"),                  //   corrId: empty ByteString
            hex("00"),                  //   entityId: empty ByteString (PING has none, FT/Protocol.hs 226-228)
            hex("50 49 4e 47")          //   "PING" (FT/Protocol.hs 142, 210)
        )
        #expect(content.count == 3 + 40)
        let transmission = XFTPTransmission(sessionId: sessionId, corrId: [], entityId: [], command: hex("50 49 4e 47"))
        #expect(try transmission.block() == simplexPad(content))

        let parsed = try XFTPTransmission.parse(block: simplexPad(content))
        #expect(parsed.authenticator.isEmpty)
        #expect(parsed.sessionId == sessionId)
        #expect(parsed.corrId.isEmpty)
        #expect(parsed.entityId.isEmpty)
        #expect(try XFTPCommand.parse(parsed.command) == .ping)
        #expect(parsed == transmission)
    }

    /// WebTests.hs 1381-1406 verbatim: sessionId [201..232], corrId "abc", empty entity, PING.
    @Test func pingTransmissionWithCorrIdFromWebTests() throws {
        let sessionId = pack(201...232)
        let content = cat(
            hex("01"),                  // batch: 1
            hex("00 2b"),               // Large: 43 bytes
            hex("00"),                  //   authenticator: empty
            hex("20"), sessionId,       //   sessionId
            hex("03 61 62 63"),         //   corrId: ByteString "abc"
            hex("00"),                  //   entityId: empty
            hex("50 49 4e 47")          //   "PING"
        )
        let transmission = XFTPTransmission(sessionId: sessionId, corrId: hex("61 62 63"), entityId: [], command: hex("50 49 4e 47"))
        #expect(try transmission.block() == simplexPad(content))
        #expect(try XFTPTransmission.parse(block: simplexPad(content)) == transmission)
    }

    /// A response block as a server writes it (FT/Server.hs encodes with the same
    /// `xftpEncodeTransmission`; authenticator empty). WebTests.hs 1444-1467 `decodeTransmission`:
    /// sessionId [201..232], corrId "r01", entityId [1..16], "OK".
    @Test func responseTransmissionFromWebTests() throws {
        let sessionId = pack(201...232)
        let content = cat(
            hex("01"),                  // batch: 1
            hex("00 39"),               // Large: 57 bytes
            hex("00"),                  //   authenticator: empty
            hex("20"), sessionId,       //   sessionId
            hex("03 72 30 31"),         //   corrId "r01"
            hex("10"), pack(1...16),    //   entityId: 16 bytes
            hex("4f 4b")                //   "OK"
        )
        #expect(content.count == 3 + 57)
        let parsed = try XFTPTransmission.parse(block: simplexPad(content))
        #expect(parsed.authenticator.isEmpty)
        #expect(parsed.sessionId == sessionId)
        #expect(parsed.corrId == hex("72 30 31"))
        #expect(parsed.entityId == pack(1...16))
        #expect(try XFTPResponse.parse(parsed.command) == .ok)
        #expect(try parsed.block() == simplexPad(content))
    }

    // MARK: 3. Signed transmissions

    /// WebTests.hs 1408-1442 `encodeAuthTransmission signed` verbatim: seed [1..32], sessionId
    /// [101..132], corrId "xyz", entityId [1..24], "FPUT". The signature covers `tForAuth` =
    /// `smpEncode sessionId ‖ smpEncode (corrId, entityId) ‖ command` (Protocol.hs 2186-2191; with
    /// implySessId = False it is also `tToSend`); FT/Protocol.hs 358-361; Messaging/Client.hs 1372-1392
    /// `authTransmission` signs Ed25519 keys (`TASignature`), 507-516 writes the 64 bytes as a ByteString.
    /// Ed25519 is deterministic, so the signature is pinned (computed with OpenSSL).
    @Test func signedFPUTFromWebTests() throws {
        let keys = Sodium.signKeyPair(seed: edSeed)
        #expect(keys.public == edPub)
        let sessionId = pack(101...132)
        let signedPart = cat(
            hex("20"), sessionId,       // sessionId: ByteString, 32 bytes
            hex("03 78 79 7a"),         // corrId "xyz"
            hex("18"), pack(1...24),    // entityId: ByteString, 24 bytes
            hex("46 50 55 54")          // "FPUT"
        )
        #expect(signedPart.count == 66)
        let signature = hex("""
            c9f39771c967f0724064ace3cb42e3203491bab734a4b51a7f50d9abf95fe91f
            e66bde6778a682eb49e483ed55849bedb70f2ffdc037d88e63e6dc2c880dee05
            """)
        #expect(Sodium.sign(signedPart, secret: keys.secret) == signature)
        let content = cat(
            hex("01"),                  // batch: 1
            hex("00 83"),               // Large: 131 = 1 + 64 + 66 bytes
            hex("40"), signature,       //   authenticator: ByteString, 64-byte Ed25519 signature
            signedPart                  //   the signed bytes, as sent
        )
        let transmission = XFTPTransmission(sessionId: sessionId, corrId: hex("78 79 7a"), entityId: pack(1...24), command: hex("46 50 55 54"))
        #expect(try transmission.signedPart() == signedPart)
        let block = try XFTPTransmission.signedBlock(sessionId: sessionId, corrId: hex("78 79 7a"), entityId: pack(1...24),
                                                     command: hex("46 50 55 54")) { Sodium.sign($0, secret: keys.secret) }
        #expect(block == simplexPad(content))
        let parsed = try XFTPTransmission.parse(block: simplexPad(content))
        #expect(parsed.authenticator == signature)
        #expect(try XFTPCommand.parse(parsed.command) == .put)
    }

    /// FNEW signed by the sender's Ed25519 key (FT/Client.hs 221-227 `sendXFTPCommand`, corrId "" at
    /// 224; FNEW has no entity id, FT/Protocol.hs 222-225), with basic auth.
    @Test func signedFNEWBlock() throws {
        let keys = Sodium.signKeyPair(seed: edSeed)
        #expect(keys.public == edPub)
        let sessionId = pack(101...132)
        let signedPart = cat(
            hex("20"), sessionId,       // sessionId: ByteString, 32 bytes
            hex("00"),                  // corrId: empty ByteString
            hex("00"),                  // entityId: empty ByteString
            fnewWithAuth                // "FNEW " FileInfo, NonEmpty keys, Maybe BasicAuth (187 bytes)
        )
        #expect(fnewWithAuth.count == 187)
        #expect(signedPart.count == 222)
        let signature = Sodium.sign(signedPart, secret: keys.secret)
        let content = cat(
            hex("01"),                  // batch: 1
            hex("01 1f"),               // Large: 287 = 1 + 64 + 222 bytes
            hex("40"), signature,       //   authenticator: 64-byte signature of signedPart
            signedPart
        )
        let command = XFTPCommand.new(fileInfo, recipientKeys: [.ed25519(pack(11...42)), .ed25519(pack(21...52))], basicAuth: hex("70 61 73 73 31 32 33"))
        #expect(try command.encoded() == fnewWithAuth)
        let transmission = XFTPTransmission(sessionId: sessionId, corrId: [], entityId: [], command: fnewWithAuth)
        #expect(try transmission.signedPart() == signedPart)
        let block = try XFTPTransmission.signedBlock(sessionId: sessionId, entityId: [], command: try command.encoded()) {
            Sodium.sign($0, secret: keys.secret)
        }
        #expect(block == simplexPad(content))

        // The server's view: the authenticator verifies over the bytes after it (Protocol.hs 1629-1643).
        let parsed = try XFTPTransmission.parse(block: block)
        #expect(parsed.authenticator == signature)
        let coveredBytes = try parsed.signedPart()
        #expect(coveredBytes == signedPart)
        #expect(Sodium.verify(parsed.authenticator, coveredBytes, publicKey: edPub))
        #expect(try XFTPCommand.parse(parsed.command) == command)
    }

    /// FNEW without basic auth, signed the same way: the command ends in '0'.
    @Test func signedFNEWWithoutAuthBlock() throws {
        let keys = Sodium.signKeyPair(seed: edSeed)
        let sessionId = pack(101...132)
        let signedPart = cat(hex("20"), sessionId, hex("00"), hex("00"), fnewWithoutAuth)
        #expect(signedPart.count == 35 + 134)
        let signature = Sodium.sign(signedPart, secret: keys.secret)
        let content = cat(
            hex("01"),                  // batch: 1
            hex("00 ea"),               // Large: 234 = 1 + 64 + 169 bytes
            hex("40"), signature,
            signedPart
        )
        let command = XFTPCommand.new(fileInfo, recipientKeys: [.ed25519(pack(11...42))], basicAuth: nil)
        let block = try XFTPTransmission.signedBlock(sessionId: sessionId, entityId: [], command: try command.encoded()) {
            Sodium.sign($0, secret: keys.secret)
        }
        #expect(block == simplexPad(content))
    }

    // MARK: 4. Commands

    /// FT/Protocol.hs 201-213 (encode), 238-249 (parse), 134-143 tags; WebTests.hs 1177-1260.
    @Test func commandBytes() throws {
        let rcv1 = XFTPPublicKey.ed25519(pack(11...42)), rcv2 = XFTPPublicKey.ed25519(pack(21...52))
        let cases: [(XFTPCommand, [UInt8])] = [
            (.new(fileInfo, recipientKeys: [rcv1, rcv2], basicAuth: hex("70 61 73 73 31 32 33")), fnewWithAuth),
            (.new(fileInfo, recipientKeys: [rcv1], basicAuth: nil), fnewWithoutAuth),
            // 205: e (FADD_, ' ', rKeys)
            (.addRecipients([rcv1, rcv2]), cat(
                hex("46 41 44 44 20"),          // "FADD" ' '
                hex("02"),                      // NonEmpty: 2
                hex("2c"), recipient1DER,       //   ByteString, 44 bytes
                hex("2c"), recipient2DER)),     //   ByteString, 44 bytes
            (.put, hex("46 50 55 54")),         // 206: "FPUT"
            (.delete, hex("46 44 45 4c")),      // 207: "FDEL"
            // 208: e (FGET_, ' ', rKey), rKey :: RcvPublicDhKey = PublicKeyX25519 (Protocol.hs 1427)
            (.get(dhKey: .x25519(dhPub)), cat(
                hex("46 47 45 54 20"),          // "FGET" ' '
                hex("2c"), dhKeyDER)),          // ByteString: 44 bytes of X25519 SPKI
            (.ack, hex("46 41 43 4b")),         // 209: "FACK"
            (.ping, hex("50 49 4e 47")),        // 210: "PING"
        ]
        for (command, bytes) in cases {
            #expect(try command.encoded() == bytes, "\(command.tag)")
            #expect(try XFTPCommand.parse(bytes) == command, "\(command.tag)")
        }
        #expect(fnewWithoutAuth.count == 134)
    }

    /// Protocol.hs 1932-1937 `parseProtocol`: a tag `decodeTag` does not know is `PECmdUnknown`
    /// (FT/Protocol.hs 150-158, 328 → CMD UNKNOWN); bad arguments are `PECmdSyntax`.
    @Test func commandParseRefusals() {
        #expect(throws: XFTPWireError.unknownTag("FOO")) { try XFTPCommand.parse(hex("46 4f 4f")) }
        // SMP's NEW is not an XFTP command.
        #expect(throws: XFTPWireError.unknownTag("NEW")) { try XFTPCommand.parse(hex("4e 45 57 20 00")) }
        // Tags are case-sensitive: "ping".
        #expect(throws: XFTPWireError.unknownTag("ping")) { try XFTPCommand.parse(hex("70 69 6e 67")) }
        // FGET's key is PublicKeyX25519: an Ed25519 key does not decode.
        #expect(throws: XFTPWireError.self) { try XFTPCommand.parse(cat(hex("46 47 45 54 20 2c"), senderKeyDER)) }
        // FADD with an empty list: NonEmpty refuses count 0 (Encoding.hs 176-177).
        #expect(throws: XFTPWireError.self) { try XFTPCommand.parse(hex("46 41 44 44 20 00")) }
        // FNEW's Maybe must start with '0' or '1' (Encoding.hs 119-123).
        #expect(throws: XFTPWireError.self) { try XFTPCommand.parse(Array(fnewWithoutAuth.dropLast()) + hex("32")) }
        // Trailing bytes: parse = parseAll (Parsers.hs 62-66).
        #expect(throws: XFTPWireError.self) { try XFTPCommand.parse(hex("50 49 4e 47 20")) }
        #expect(throws: XFTPWireError.self) { try XFTPCommand.parse(fnewWithoutAuth + hex("00")) }
    }

    // MARK: 5. Responses

    /// FT/Protocol.hs 303-324 (encode/parse of FileResponse), 274-282 tags; FT/Transport.hs 297-334
    /// errors; Protocol.hs 1984-2001 CommandError; WebTests.hs 1263-1349.
    @Test func responseBytes() throws {
        let cases: [(XFTPResponse, [UInt8])] = [
            // 306: e (FRSndIds_, ' ', fId, rIds); WebTests.hs 1303-1316 ids [1..24], [25..48], [49..72]
            (.senderIds(senderId: pack(1...24), recipientIds: [pack(25...48), pack(49...72)]), cat(
                hex("53 49 44 53 20"),          // "SIDS" ' '
                hex("18"), pack(1...24),        // senderId: ByteString, 24 bytes
                hex("02"),                      // NonEmpty: 2
                hex("18"), pack(25...48),       //   recipientId 1
                hex("18"), pack(49...72))),     //   recipientId 2
            // 307: e (FRRcvIds_, ' ', rIds); WebTests.hs 1318-1330
            (.recipientIds([pack(1...16), pack(17...32)]), cat(
                hex("52 49 44 53 20"),          // "RIDS" ' '
                hex("02"),                      // NonEmpty: 2
                hex("10"), pack(1...16),        //   16 bytes
                hex("10"), pack(17...32))),     //   16 bytes
            // 308: e (FRFile_, ' ', rDhKey, nonce); CbNonce is its 24 bytes, no length (Crypto.hs 1412-1414);
            // WebTests.hs 1332-1349: X25519 key, nonce [201..224]
            (.file(dhKey: .x25519(dhPub), nonce: pack(201...224)), cat(
                hex("46 49 4c 45 20"),          // "FILE" ' '
                hex("2c"), dhKeyDER,            // ByteString: X25519 SPKI, 44 bytes
                pack(201...224))),              // nonce: 24 raw bytes
            (.ok, hex("4f 4b")),                // 309: "OK"
            (.pong, hex("50 4f 4e 47")),        // 313: "PONG"
            // 312: e (FRErr_, ' ', err); Transport 303 "AUTH"
            (.error(.auth), hex("45 52 52 20  41 55 54 48")),
            // Transport 302 "CMD " <> smpEncode SYNTAX
            (.error(.command(.syntax)), hex("45 52 52 20  43 4d 44 20  53 59 4e 54 41 58")),
            // "CMD UNKNOWN"
            (.error(.command(.unknown)), hex("45 52 52 20  43 4d 44 20  55 4e 4b 4e 4f 57 4e")),
            // "HANDSHAKE"
            (.error(.handshake), hex("45 52 52 20  48 41 4e 44 53 48 41 4b 45")),
            // Transport 304 "BLOCKED " <> smpEncode info; BlockingInfo's smpEncode = strEncode
            // "reason=spam" (Protocol.hs 1603-1616)
            (.error(.blocked(hex("72 65 61 73 6f 6e 3d 73 70 61 6d"))),
             hex("45 52 52 20  42 4c 4f 43 4b 45 44 20  72 65 61 73 6f 6e 3d 73 70 61 6d")),
        ]
        for (response, bytes) in cases {
            #expect(try response.encoded() == bytes, "\(response.tag)")
            #expect(try XFTPResponse.parse(bytes) == response, "\(response.tag)")
        }

        // "ERR CMD NO_QUEUE" is read as NO_ENTITY (Protocol.hs 2000, xftp-web commands.ts 101) and
        // written back under its current name (1991).
        let noQueue = hex("45 52 52 20  43 4d 44 20  4e 4f 5f 51 55 45 55 45")
        #expect(try XFTPResponse.parse(noQueue) == .error(.command(.noEntity)))
        #expect(try XFTPResponse.error(.command(.noEntity)).encoded() == hex("45 52 52 20  43 4d 44 20  4e 4f 5f 45 4e 54 49 54 59"))
    }

    @Test func responseParseRefusals() {
        #expect(throws: XFTPWireError.unknownTag("NOPE")) { try XFTPResponse.parse(hex("4e 4f 50 45")) }
        // FILE with a 23-byte nonce: A.take 24 fails.
        #expect(throws: XFTPWireError.self) { try XFTPResponse.parse(cat(hex("46 49 4c 45 20 2c"), dhKeyDER, pack(1...23))) }
        // FILE's key is PublicKeyX25519 (RcvPublicDhKey): an Ed25519 key is refused.
        #expect(throws: XFTPWireError.self) { try XFTPResponse.parse(cat(hex("46 49 4c 45 20 2c"), senderKeyDER, pack(1...24))) }
        // An unknown CommandError.
        #expect(throws: XFTPWireError.self) { try XFTPResponse.parse(hex("45 52 52 20 43 4d 44 20 46 4f 4f")) }
    }

    // MARK: 6. Server handshake

    /// FT/Transport.hs 153-160: `smpEncode (xftpVersionRange, sessionId, authPubKey, C.signatureBytes
    /// webIdentityProof)`; VersionRange = (Word16, Word16) (Version.hs 80-81); CertChainPubKey =
    /// (NonEmpty Large certs, Large signedKey) (Transport.hs 649-650, Crypto.hs 1258-1265);
    /// `signatureBytes Nothing` = "" → ByteString 0x00 (Crypto.hs 842-844). Padded (FT/Server.hs 236).
    /// Inputs of WebTests.hs 1540-1622: sessionId [1..32], certs [101..200] and [201..232], key [1..120].
    @Test func serverHandshakeBlock() throws {
        let prefix = cat(
            hex("00 01  00 03"),            // version range 1..3: two Word16
            hex("20"), pack(1...32),        // sessionId: ByteString, 32 bytes
            hex("02"),                      // certificate chain: NonEmpty, 2
            hex("00 64"), pack(101...200),  //   Large: 100-byte certificate (leaf)
            hex("00 20"), pack(201...232),  //   Large: 32-byte certificate (CA)
            hex("00 78"), pack(1...120)     // signed key: Large, 120 bytes
        )
        let noProof = prefix + hex("00")    // webIdentityProof Nothing: empty ByteString
        let handshake = XFTPServerHandshake(versionRange: XFTPVersionRange(min: 1, max: 3), sessionId: pack(1...32),
                                            certificateChain: [pack(101...200), pack(201...232)], signedKey: pack(1...120))
        #expect(try handshake.block() == simplexPad(noProof))
        #expect(try XFTPServerHandshake.parse(block: simplexPad(noProof)) == handshake)

        // With a proof: ByteString of the 64-byte signature (WebTests.hs 1579-1600 uses [1..64]).
        let withProof = prefix + hex("40") + pack(1...64)
        var proved = handshake
        proved.webIdentityProof = pack(1...64)
        #expect(try proved.block() == simplexPad(withProof))
        #expect(try XFTPServerHandshake.parse(block: simplexPad(withProof)) == proved)

        // An older server stops after the signed key: `optional` gives Nothing (Transport 158).
        #expect(try XFTPServerHandshake.parse(block: simplexPad(prefix)) == handshake)

        // Bytes after the proof are a `Tail _compat` for later versions (Transport 159).
        #expect(try XFTPServerHandshake.parse(block: simplexPad(withProof + hex("ff ee"))) == proved)

        // The version range must be ordered (Version.hs 82-84 safeVersionRange).
        #expect(throws: XFTPWireError.self) {
            try XFTPServerHandshake.parse(block: simplexPad(hex("00 03 00 01") + Array(noProof.dropFirst(4))))
        }
        // An empty certificate chain: NonEmpty refuses count 0.
        #expect(throws: XFTPWireError.self) {
            try XFTPServerHandshake.parse(block: simplexPad(cat(hex("00 01 00 03 20"), pack(1...32), hex("00 00 78"), pack(1...120), hex("00"))))
        }
    }

    // MARK: 7. Client handshake and hello

    /// FT/Transport.hs 145-151: `smpEncode (xftpVersion, keyHash)`, padded (FT/Client.hs 189);
    /// WebTests.hs 1511-1519 (version 3, keyHash [1..32]).
    @Test func clientHandshakeBlock() throws {
        let content = cat(
            hex("00 03"),                   // xftpVersion: Word16 3
            hex("20"), pack(1...32)         // keyHash: ByteString, 32 bytes
        )
        let handshake = XFTPClientHandshake(version: 3, keyHash: pack(1...32))
        #expect(try handshake.block() == simplexPad(content))
        #expect(try XFTPClientHandshake.parse(block: simplexPad(content)) == handshake)
        // Tail _compat (150): later bytes are ignored.
        #expect(try XFTPClientHandshake.parse(block: simplexPad(content + hex("01 02"))) == handshake)
    }

    /// FT/Transport.hs 137-143: `smpEncode webChallenge` (Maybe ByteString), a challenge of 32 bytes
    /// (141); WebTests.hs 1522-1537.
    @Test func clientHello() throws {
        #expect(try XFTPClientHello(webChallenge: nil).encoded() == hex("30"))             // '0' = Nothing
        let challenge = cat(hex("31"), hex("20"), pack(1...32))                            // '1', ByteString 32 bytes
        #expect(try XFTPClientHello(webChallenge: pack(1...32)).encoded() == challenge)
        #expect(try XFTPClientHello.parse(hex("30")) == XFTPClientHello(webChallenge: nil))
        #expect(try XFTPClientHello.parse(challenge) == XFTPClientHello(webChallenge: pack(1...32)))
        // "bad XFTPClientHello webChallenge" for any other length (141).
        #expect(throws: XFTPWireError.self) { try XFTPClientHello.parse(cat(hex("31 10"), pack(1...16))) }
    }

    // MARK: 8. The signed server key

    /// FT/Server.hs 203: `C.signX509 serverSignKey $ C.publicToX509 k`; Crypto.hs 1193-1201 `signX509` =
    /// `X.objectToSignedExact` with `(signatureBytes (sign key bytes), signatureAlgorithmX509 key, ())`.
    /// x509 (haskell-tls/hs-certificate x509/Data/X509/Signed.hs, `objectToSignedExactF`):
    ///   objASN1 = \xs -> Start Sequence : toASN1 object (End Sequence : xs)      -- an extra SEQUENCE
    ///   objRaw  = encodeASN1' DER (objASN1 [])                                  -- the signed bytes
    ///   signed  = Start Sequence : objASN1 (toASN1 sigAlg (BitString sig 0 : End Sequence : []))
    /// x509/Data/X509/PublicKey.hs `toASN1 a = \xs -> encodePK a ++ xs`, `encodePK` = asn1Container
    /// Sequence [...]: the SPKI's own SEQUENCE. So the signed object is SEQUENCE { SPKI }, 46 bytes.
    /// x509/Data/X509/AlgorithmIdentifier.hs: `toASN1 (SignatureALG_IntrinsicHash _)` =
    /// SEQUENCE { OID } with no NULL (Ed25519 1.3.101.112, Ed448 1.3.101.113).
    /// It travels as `Large (X.encodeSignedObject exact)` (Crypto.hs 1258-1260).
    @Test func signedDHKeyAsX509WritesIt() throws {
        let signer = Sodium.signKeyPair(seed: edSeed)
        #expect(Sodium.x25519Public(secret: dhSecret) == dhPub)
        let signedObject = cat(
            hex("30 2c"),                   // SEQUENCE, 44 bytes: objectToSignedExact's wrapper
            x25519SPKIPrefix, dhPub         //   the X25519 SPKI: SEQUENCE(42) { SEQUENCE(5) { OID 1.3.101.110 }, BIT STRING(33) }
        )
        #expect(signedObject.count == 46)
        let signature = Sodium.sign(signedObject, secret: signer.secret)
        let der = cat(
            hex("30 78"),                   // SEQUENCE, 120 = 46 + 7 + 67 bytes
            signedObject,                   //   the signed object (46 bytes)
            hex("30 05 06 03 2b 65 70"),    //   AlgorithmIdentifier: SEQUENCE { OID 1.3.101.112 Ed25519 }
            hex("03 41 00"), signature      //   BIT STRING, 65 bytes: 0 unused bits, the 64-byte signature
        )
        #expect(der.count == 122)
        #expect(SignedDHKey.objectToSign(.x25519(dhPub)) == signedObject)
        #expect(SignedDHKey.encode(dhKey: .x25519(dhPub), algorithm: .ed25519, signature: signature) == der)

        let parsed = try SignedDHKey.parse(der)
        #expect(parsed.signedObject == signedObject)
        #expect(parsed.dhKey == .x25519(dhPub))
        #expect(parsed.algorithm == .ed25519)
        #expect(parsed.signature == signature)
        // Haskell's verifyX509 checks the signature over getSignedData = exactObjectRaw (the wrapper).
        #expect(Sodium.verify(parsed.signature, parsed.signedObject, publicKey: signer.public))

        // In the server handshake: the signed key is a Large of these 122 bytes (00 7a).
        let handshake = XFTPServerHandshake(versionRange: XFTPVersionRange(min: 1, max: 3), sessionId: pack(1...32),
                                            certificateChain: [pack(101...200), pack(201...232)], signedKey: der)
        let content = cat(hex("00 01 00 03 20"), pack(1...32), hex("02 00 64"), pack(101...200), hex("00 20"), pack(201...232),
                          hex("00 7a"), der, hex("00"))
        #expect(try handshake.block() == simplexPad(content))
    }

    /// The bare-SPKI variant that SimpleX's TypeScript client also reads (xftp-web handshake.ts 175-220),
    /// written as WebTests.hs 1713-1745 builds it: SEQUENCE(118) { SPKI(44), AlgorithmIdentifier(7), BIT STRING(67) }.
    @Test func signedDHKeyBareSPKIVariant() throws {
        let signer = Sodium.signKeyPair(seed: edSeed)
        let spki = x25519SPKIPrefix + dhPub
        let signature = Sodium.sign(spki, secret: signer.secret)
        let der = cat(
            hex("30 76"),                   // SEQUENCE, 118 = 44 + 7 + 67 bytes
            spki,                           //   the SPKI itself as the signed object
            hex("30 05 06 03 2b 65 70"),    //   Ed25519
            hex("03 41 00"), signature      //   BIT STRING: 0 unused bits, signature
        )
        let parsed = try SignedDHKey.parse(der)
        #expect(parsed.signedObject == spki)
        #expect(parsed.dhKey == .x25519(dhPub))
        #expect(parsed.algorithm == .ed25519)
        #expect(parsed.signature == signature)
        #expect(Sodium.verify(parsed.signature, parsed.signedObject, publicKey: signer.public))
    }

    /// An Ed448-signed key (SimpleX's default for new servers' certificates): the 114-byte signature
    /// makes the outer length 170, written in DER's long form 81 aa. The signature bytes are not
    /// checked by the encoding, so any 114 bytes serve.
    @Test func signedDHKeyEd448LongLength() throws {
        let signedObject = cat(hex("30 2c"), x25519SPKIPrefix, dhPub)
        let signature = pack(1...114)
        let der = cat(
            hex("30 81 aa"),                // SEQUENCE, long form: 170 = 46 + 7 + 117 bytes
            signedObject,
            hex("30 05 06 03 2b 65 71"),    //   AlgorithmIdentifier: SEQUENCE { OID 1.3.101.113 Ed448 }
            hex("03 73 00"), signature      //   BIT STRING, 115 bytes: 0 unused bits, 114-byte signature
        )
        #expect(SignedDHKey.encode(dhKey: .x25519(dhPub), algorithm: .ed448, signature: signature) == der)
        let parsed = try SignedDHKey.parse(der)
        #expect(parsed.algorithm == .ed448)
        #expect(parsed.signedObject == signedObject)
        #expect(parsed.signature == signature)
        #expect(parsed.dhKey == .x25519(dhPub))
    }

    @Test func signedDHKeyRefusals() {
        let signature = pack(1...64)
        let tail = cat(hex("30 05 06 03 2b 65 70"), hex("03 41 00"), signature)
        // An Ed25519 key where the X25519 key must be.
        #expect(throws: XFTPWireError.self) { try SignedDHKey.parse(cat(hex("30 78 30 2c"), senderKeyDER, tail)) }
        // An unknown signature algorithm (1.3.101.114).
        #expect(throws: XFTPWireError.self) {
            try SignedDHKey.parse(cat(hex("30 78 30 2c"), dhKeyDER, hex("30 05 06 03 2b 65 72 03 41 00"), signature))
        }
        // A 63-byte Ed25519 signature.
        #expect(throws: XFTPWireError.self) {
            try SignedDHKey.parse(cat(hex("30 77 30 2c"), dhKeyDER, hex("30 05 06 03 2b 65 70 03 40 00"), pack(1...63)))
        }
        // Trailing bytes after the outer SEQUENCE.
        #expect(throws: XFTPWireError.self) { try SignedDHKey.parse(cat(hex("30 78 30 2c"), dhKeyDER, tail, hex("00"))) }
    }

    // MARK: 9. Public keys

    /// RFC 8410 SubjectPublicKeyInfo as x509's `encodePK` writes it (PublicKey.hs: SEQUENCE { SEQUENCE
    /// { OID }, BIT STRING key }, no parameters), used by Crypto.hs 605-607 `encodePubKey`.
    /// Prefixes checked against OpenSSL; WebTests.hs 536-556 has the Ed25519 and X25519 ones.
    @Test func publicKeyDER() throws {
        let cases: [(XFTPPublicKey.Algorithm, [UInt8], [UInt8])] = [
            //          SEQ(42)  SEQ(5)  OID 1.3.101.112  BIT STRING(33), 0 unused
            (.ed25519, hex("30 2a  30 05  06 03 2b 65 70  03 21 00"), pack(1...32)),
            //          SEQ(42)  SEQ(5)  OID 1.3.101.110  BIT STRING(33)
            (.x25519, hex("30 2a  30 05  06 03 2b 65 6e  03 21 00"), pack(1...32)),
            //          SEQ(67)  SEQ(5)  OID 1.3.101.113  BIT STRING(58)
            (.ed448, hex("30 43  30 05  06 03 2b 65 71  03 3a 00"), pack(1...57)),
            //          SEQ(66)  SEQ(5)  OID 1.3.101.111  BIT STRING(57)
            (.x448, hex("30 42  30 05  06 03 2b 65 6f  03 39 00"), pack(1...56)),
        ]
        for (algorithm, prefix, raw) in cases {
            let key = XFTPPublicKey(algorithm, raw: raw)
            #expect(key.der == prefix + raw, "\(algorithm)")
            let parsed = try XFTPPublicKey(der: prefix + raw)
            #expect(parsed.algorithm == algorithm)
            #expect(parsed.raw == raw)
        }
        // OpenSSL's SPKI of the seed's Ed25519 key, byte for byte.
        #expect(XFTPPublicKey.ed25519(edPub).der == hex("302a300506032b657003210079b5562e8fe654f94078b112e8a98ba7901f853ae695bed7e0e3910bad049664"))
    }

    @Test func publicKeyRefusals() {
        // One byte short.
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: Array(senderKeyDER.dropLast())) }
        // One byte too many.
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: senderKeyDER + hex("00")) }
        // An unknown OID (1.3.101.114).
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: hex("30 2a 30 05 06 03 2b 65 72 03 21 00") + pack(1...32)) }
        // A BIT STRING with unused bits.
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: hex("30 2a 30 05 06 03 2b 65 70 03 21 01") + pack(1...32)) }
        // An Ed448 prefix with a 32-byte key.
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: hex("30 43 30 05 06 03 2b 65 71 03 3a 00") + pack(1...32)) }
        // Empty.
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: []) }
        // An Ed25519 key where X25519 is required (RcvPublicDhKey).
        #expect(throws: XFTPWireError.self) { try XFTPPublicKey(der: senderKeyDER, expecting: .x25519, field: "download key") }
    }
}
