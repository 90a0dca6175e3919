import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXXFTP

/// The identity files are checked by the `openssl` command, independently of sxkit's OpenSSL calls.
@Suite(.ownThreads) struct ServerIdentityTests {
    private func openssl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        try PeerCommand.run("/usr/bin/openssl", arguments)
    }

    @Test(arguments: SigningKey.Algorithm.allCases)
    func createdIdentityIsWhatSimpleXServersPresent(algorithm: SigningKey.Algorithm) throws {
        let folder = try TempFolder()
        let (identity, created) = try ServerIdentity.loadOrCreate(folder: folder.path, commonName: "127.0.0.1", algorithm: algorithm)
        #expect(created)
        // openssl accepts the chain, and reads the extensions simplexmq's init gives them.
        let verify = try openssl(["verify", "-CAfile", folder.file("ca.crt"), folder.file("server.crt")])
        #expect(verify.status == 0, "\(verify.output)")
        let ca = try openssl(["x509", "-in", folder.file("ca.crt"), "-noout", "-text"])
        #expect(ca.output.contains("Version: 3 (0x2)"))
        #expect(ca.output.contains("CA:TRUE"))
        #expect(ca.output.contains("Subject: CN = SMP server CA, O = SimpleX"))
        #expect(ca.output.contains(algorithm == .ed25519 ? "ED25519" : "ED448"))
        let leaf = try openssl(["x509", "-in", folder.file("server.crt"), "-noout", "-text"])
        #expect(leaf.output.contains("CA:FALSE"))
        #expect(leaf.output.contains("TLS Web Server Authentication"))
        #expect(leaf.output.contains("Digital Signature, Non Repudiation, Key Agreement"))
        // The key hash is the SHA-256 of the CA certificate's DER, as openssl computes it.
        let fingerprint = try openssl(["x509", "-in", folder.file("ca.crt"), "-noout", "-fingerprint", "-sha256"])
        let hex = fingerprint.output.split(separator: "=").last!.filter { $0.isHexDigit }.lowercased()
        #expect(Hex.encode(identity.keyHash) == hex)
        #expect(try folder.read("fingerprint") == Array((Base64URL.encode(identity.keyHash) + "\n").utf8))
        // Private keys are 0600; the files read back as the same identity.
        var info = stat()
        #expect(stat(folder.file("server.key"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        #expect(stat(folder.file("ca.key"), &info) == 0 && info.st_mode & 0o777 == 0o600)
        let again = try ServerIdentity.loadOrCreate(folder: folder.path, commonName: "ignored", algorithm: algorithm)
        #expect(!again.created)
        #expect(again.identity.keyHash == identity.keyHash)
        #expect(again.identity.certificate.der == identity.certificate.der)
    }

    @Test func halfAnIdentityIsRefusedNotReplaced() throws {
        let folder = try TempFolder()
        _ = try ServerIdentity.loadOrCreate(folder: folder.path, commonName: "127.0.0.1", algorithm: .ed25519)
        let before = try folder.read("ca.crt")
        unlink(folder.file("server.key"))
        #expect(throws: ServerIdentityFilesProblem.incomplete(folder: folder.path, missing: ["server.key"])) {
            _ = try ServerIdentity.loadOrCreate(folder: folder.path, commonName: "127.0.0.1", algorithm: .ed25519)
        }
        #expect(try folder.read("ca.crt") == before)
    }

    @Test(arguments: SigningKey.Algorithm.allCases)
    func chainCheckAcceptsTheServerAndRefusesOthers(algorithm: SigningKey.Algorithm) throws {
        let (identity, _) = try ServerIdentity.create(commonName: "127.0.0.1", algorithm: algorithm)
        let chain = identity.chain.map(\.der)
        let leaf = try ServerChainCheck.validate(chain: chain, keyHash: identity.keyHash)
        #expect(leaf.der == identity.certificate.der)
        // Another server's key hash, a chain of one, and a leaf from another CA are refused.
        let (other, _) = try ServerIdentity.create(commonName: "127.0.0.1", algorithm: algorithm)
        #expect(throws: ServerIdentityProblem.self) { try ServerChainCheck.validate(chain: chain, keyHash: other.keyHash) }
        #expect(throws: ServerIdentityProblem.emptyChain) { try ServerChainCheck.validate(chain: [chain[0]], keyHash: identity.keyHash) }
        #expect(throws: ServerIdentityProblem.self) {
            try ServerChainCheck.validate(chain: [other.certificate.der, identity.caCertificate.der], keyHash: identity.keyHash)
        }
        // The signed session key: made with the leaf key, verified with the leaf certificate.
        let dhKey = XFTPPublicKey.x25519(Array(repeating: 7, count: 32))
        let signature = try identity.key.sign(SignedDHKey.objectToSign(dhKey))
        let der = SignedDHKey.encode(dhKey: dhKey, algorithm: algorithm.signedKeyAlgorithm, signature: signature)
        #expect(try ServerChainCheck.verifySignedKey(der, leaf: leaf) == dhKey)
        var forged = der
        forged[forged.count - 1] ^= 1
        #expect(throws: ServerIdentityProblem.self) { try ServerChainCheck.verifySignedKey(forged, leaf: leaf) }
    }

    /// An Ed25519 signature by OpenSSL verifies with libsodium: the two agree on the key.
    @Test func ed25519SignatureVerifiesWithLibsodium() throws {
        let (identity, _) = try ServerIdentity.create(commonName: "x", algorithm: .ed25519)
        let message = Array("session".utf8)
        let signature = try identity.key.sign(message)
        let spki = try #require(identity.certificate.publicKeyDER)
        let publicKey = try XFTPPublicKey(der: spki, expecting: .ed25519, field: "key")
        #expect(Ed25519.verify(signature, of: message, publicKey: publicKey.raw))
    }
}
