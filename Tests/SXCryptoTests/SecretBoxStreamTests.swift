import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXCrypto

/// The one secret-box primitive against libsodium called directly (`IndependentSecretBox`), never
/// against sxkit's own stream code.
@Suite(.ownThreads)
struct SecretBoxStreamTests {
    static let sizes = [0, 1, 15, 16, 31, 32, 33, 63, 64, 65, 127, 1000, 65_536 + 7]

    @Test("SimpleX's schedule equals HSalsa20(K, 0) + crypto_secretbox_detached, tag last", arguments: sizes)
    func simplexSchedule(size: Int) throws {
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        let plain = SodiumRuntime.randomBytes(count: size)
        let expected = IndependentSecretBox.seal(plain, key: key, nonce: nonce)
        #expect(SecretBoxStream.seal(plain, key: SecretBytes(key), nonce: nonce) == expected)
        #expect(SecretBoxStream.open(expected, key: SecretBytes(key), nonce: nonce) == plain)
        // Not plain NaCl with K: that is the earlier sxkit schedule, and it differs.
        #expect(IndependentSecretBox.seal(plain, key: key, nonce: nonce, earlierSxkit: true) != expected)
    }

    @Test("streaming in odd pieces gives the same bytes as one call")
    func streamingPieces() throws {
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        let plain = SodiumRuntime.randomBytes(count: 10_000)
        var box = SecretBoxStream(key: SecretBytes(key), nonce: nonce)
        var out: [UInt8] = []
        var at = 0
        for piece in [1, 31, 32, 33, 64, 100, 4_000, 5_739] {
            var part = Array(plain[at..<(at + piece)])
            part.withUnsafeMutableBytes { box.seal($0) }
            out += part
            at += piece
        }
        #expect(at == plain.count)
        #expect(out + box.tag() == IndependentSecretBox.seal(plain, key: key, nonce: nonce))
    }

    @Test("with an X25519 DH secret (cbInit) it is NaCl's crypto_box, tag last")
    func dhSecret() throws {
        let alice = IndependentSecretBox.x25519KeyPair(), bob = IndependentSecretBox.x25519KeyPair()
        let nonce = SodiumRuntime.randomBytes(count: 24)
        let plain = SodiumRuntime.randomBytes(count: 4_321)
        let dh = IndependentSecretBox.dhSecret(publicKey: bob.public, secretKey: alice.secret)
        let expected = IndependentSecretBox.boxSeal(plain, publicKey: bob.public, secretKey: alice.secret, nonce: nonce)
        #expect(SecretBoxStream.seal(plain, key: SecretBytes(dh), nonce: nonce) == expected)
        let dhOther = IndependentSecretBox.dhSecret(publicKey: alice.public, secretKey: bob.secret)
        #expect(SecretBoxStream.open(expected, key: SecretBytes(dhOther), nonce: nonce) == plain)
    }

    @Test("the earlier sxkit schedule is NaCl's secretbox with K itself, and only opens its own output")
    func earlierSchedule() throws {
        let key = SodiumRuntime.randomBytes(count: 32), nonce = SodiumRuntime.randomBytes(count: 24)
        let plain = Array("written by sxkit 0.1".utf8)
        let old = IndependentSecretBox.seal(plain, key: key, nonce: nonce, earlierSxkit: true)
        #expect(SecretBoxStream.seal(plain, key: SecretBytes(key), nonce: nonce, schedule: .earlierSxkit) == old)
        #expect(SecretBoxStream.open(old, key: SecretBytes(key), nonce: nonce) == nil)
        #expect(SecretBoxStream.open(old, key: SecretBytes(key), nonce: nonce, schedule: .earlierSxkit) == plain)
    }

    @Test("the vectors' first case by hand: HSalsa20 subkey, then the secretbox")
    func vectorByHand() throws {
        // cryptofile.json "size-1": KEY_A, NONCE_A, plaintext 00 -> 1bf6a6e90e3fb928e2c048429cd195ae5a.
        let key = (0..<32).map { UInt8($0) }, nonce = (100..<124).map { UInt8($0) }
        #expect(Hex.encode(IndependentSecretBox.seal([0], key: key, nonce: nonce)) == "1bf6a6e90e3fb928e2c048429cd195ae5a")
        #expect(Hex.encode(SecretBoxStream.seal([0], key: SecretBytes(key), nonce: nonce)) == "1bf6a6e90e3fb928e2c048429cd195ae5a")
    }
}

/// The repository's copies of the vectors and fixtures are what the tests read; when the steering
/// repository's `shared/` is beside the checkout, the copies must be identical to it.
@Suite(.ownThreads)
struct FixtureCopyTests {
    @Test("Tests/Fixtures holds every vector and fixture file, identical to ../shared when it is there")
    func copiesMatchShared() throws {
        let vectors = try FileManager.default.contentsOfDirectory(atPath: VectorFiles.folder).sorted()
        #expect(vectors == ["README.md", "chunk_plan.json", "cryptofile.json", "transfer.json"])
        let descriptions = try FileManager.default.contentsOfDirectory(atPath: VectorFiles.descriptionsFolder).sorted()
        #expect(descriptions == ["file_description.yaml", "real_redirect.yaml", "real_single_server.yaml"])
        guard let shared = VectorFiles.sharedFolder else { return }
        for (ours, theirs, names) in [(VectorFiles.folder, shared + "/vectors", vectors), (VectorFiles.descriptionsFolder, shared + "/fixtures", descriptions)] {
            let sharedNames = try FileManager.default.contentsOfDirectory(atPath: theirs).sorted()
            #expect(sharedNames == names, "\(theirs) and \(ours) list different files")
            for name in sharedNames {
                let a = try Data(contentsOf: URL(fileURLWithPath: ours + "/" + name))
                let b = try Data(contentsOf: URL(fileURLWithPath: theirs + "/" + name))
                #expect(a == b, "\(ours)/\(name) differs from \(theirs)/\(name): copy it again")
            }
        }
    }
}
