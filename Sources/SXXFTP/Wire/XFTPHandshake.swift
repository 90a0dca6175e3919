/// XFTP protocol versions (`src/Simplex/FileTransfer/Transport.hs` 91-104): 1 initial, 2 authorised
/// commands, 3 blocked files. sxkit speaks 1 through 3, as simplexmq does.
public struct XFTPVersionRange: Sendable, Equatable {
    public var min: UInt16
    public var max: UInt16

    public init(min: UInt16, max: UInt16) {
        self.min = min
        self.max = max
    }

    public static let supported = XFTPVersionRange(min: 1, max: 3)

    /// `compatibleVRange`: the overlap, or nil.
    public func intersection(_ other: XFTPVersionRange) -> XFTPVersionRange? {
        let low = Swift.max(min, other.min), high = Swift.min(max, other.max)
        return low <= high ? XFTPVersionRange(min: low, max: high) : nil
    }

    public func contains(_ version: UInt16) -> Bool { min <= version && version <= max }
}

/// The server's half of the handshake, the answer to the client's first request (`Transport.hs`
/// 121-128, encoded 153-160): the version range, the TLS session id (tls-unique), the certificate
/// chain and the server's X25519 key signed by the TLS certificate's key (`CertChainPubKey`,
/// `src/Simplex/Messaging/Transport.hs` 643-654), and the signed web challenge if one was asked.
public struct XFTPServerHandshake: Sendable, Equatable {
    public var versionRange: XFTPVersionRange
    public var sessionId: [UInt8]
    /// DER certificates, leaf first.
    public var certificateChain: [[UInt8]]
    /// The DER `SignedExact PubKey` (`SignedDHKey`).
    public var signedKey: [UInt8]
    /// The signature of `challenge ‖ sessionId` by the leaf key, for a web client's hello.
    public var webIdentityProof: [UInt8]?

    public init(versionRange: XFTPVersionRange, sessionId: [UInt8], certificateChain: [[UInt8]], signedKey: [UInt8], webIdentityProof: [UInt8]? = nil) {
        self.versionRange = versionRange
        self.sessionId = sessionId
        self.certificateChain = certificateChain
        self.signedKey = signedKey
        self.webIdentityProof = webIdentityProof
    }

    /// The padded block. The proof is always written, empty when absent (`C.signatureBytes` of
    /// `Nothing` is the empty string).
    public func block() throws(XFTPWireError) -> [UInt8] {
        var writer = XFTPWriter(capacity: 2048)
        writer.word16(versionRange.min)
        writer.word16(versionRange.max)
        try writer.short(sessionId, field: "session id")
        try writer.largeList(certificateChain, field: "certificate chain")
        try writer.large(signedKey, field: "signed server key")
        try writer.short(webIdentityProof ?? [], field: "identity proof")
        return try XFTPBlock.pad(writer.bytes)
    }

    public static func parse(block: [UInt8]) throws(XFTPWireError) -> XFTPServerHandshake {
        var reader = XFTPReader(try XFTPBlock.unpad(block))
        let low = try reader.word16(field: "version range")
        let high = try reader.word16(field: "version range")
        guard low <= high else { throw .invalid(field: "version range", reason: "\(low) is above \(high)") }
        let sessionId = try reader.short(field: "session id")
        let chain = try reader.largeList(field: "certificate chain")
        let signedKey = try reader.large(field: "signed server key")
        // Older servers end here. Like `optional (C.decodeSignature <$?> smpP)` (`Transport.hs`
        // 158), what is not one Ed25519 or Ed448 signature is no proof; the rest is a `Tail`.
        var proof: [UInt8] = []
        if !reader.atEnd, let bytes = try? reader.short(field: "identity proof"), bytes.count == 64 || bytes.count == 114 { proof = bytes }
        return XFTPServerHandshake(versionRange: XFTPVersionRange(min: low, max: high), sessionId: sessionId, certificateChain: chain,
                                   signedKey: signedKey, webIdentityProof: proof.isEmpty ? nil : proof)
    }
}

/// The client's half (`Transport.hs` 130-135, 145-151): the version it chose (the highest both
/// speak) and the key hash it expects, padded to a block.
public struct XFTPClientHandshake: Sendable, Equatable {
    public var version: UInt16
    public var keyHash: [UInt8]

    public init(version: UInt16, keyHash: [UInt8]) {
        self.version = version
        self.keyHash = keyHash
    }

    public func block() throws(XFTPWireError) -> [UInt8] {
        var writer = XFTPWriter()
        writer.word16(version)
        try writer.short(keyHash, field: "key hash")
        return try XFTPBlock.pad(writer.bytes)
    }

    public static func parse(block: [UInt8]) throws(XFTPWireError) -> XFTPClientHandshake {
        var reader = XFTPReader(try XFTPBlock.unpad(block))
        let version = try reader.word16(field: "version")
        return XFTPClientHandshake(version: version, keyHash: try reader.short(field: "key hash"))
    }
}

/// The web client's hello (`Transport.hs` 116-119, 137-143): an optional 32-byte challenge the server
/// signs to prove its identity to a browser, which cannot see the TLS certificate.
public struct XFTPClientHello: Sendable, Equatable {
    public var webChallenge: [UInt8]?

    public init(webChallenge: [UInt8]?) {
        self.webChallenge = webChallenge
    }

    public func encoded() throws(XFTPWireError) -> [UInt8] {
        var writer = XFTPWriter()
        try writer.maybeShort(webChallenge, field: "web challenge")
        return writer.bytes
    }

    public static func parse(_ bytes: [UInt8]) throws(XFTPWireError) -> XFTPClientHello {
        var reader = XFTPReader(bytes)
        let challenge = try reader.maybeShort(field: "web challenge")
        if let challenge, challenge.count != 32 { throw .invalid(field: "web challenge", reason: "it is \(challenge.count) bytes, not 32") }
        return XFTPClientHello(webChallenge: challenge)
    }
}
