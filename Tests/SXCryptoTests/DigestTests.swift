import Testing
import SXTestSupport
import SXCore
@testable import SXCrypto

/// SHA-256 and SHA-512 (OpenSSL's): the FIPS 180 examples, streaming in odd pieces, and value semantics.
@Suite(.ownThreads)
struct DigestTests {
    static let abc = Array("abc".utf8)
    static let twoBlocks = Array("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)

    @Test func knownAnswers() {
        #expect(Hex.encode(SHA256Digest.of(Self.abc)) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Hex.encode(SHA256Digest.of(Self.twoBlocks)) == "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
        #expect(Hex.encode(SHA256Digest.of([])) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Hex.encode(SHA512Digest.of(Self.abc)) ==
            "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f")
        #expect(Hex.encode(SHA512Digest.of([])) ==
            "cf83e1357eefb8bdf1542850d66d8007d620e4050b5715dc83f4a921d36ce9ce47d0d13c5d85f2b0ff8318d2877eec2f63b931bd47417a81a538327af927da3e")
    }

    @Test func streamingInPiecesEqualsOneShot() {
        let bytes = (0..<100_003).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 17) }
        var sha256 = SHA256Digest(), sha512 = SHA512Digest()
        var start = 0, step = 1
        while start < bytes.count {
            let end = min(bytes.count, start + step)
            bytes[start..<end].withUnsafeBytes { sha256.update($0); sha512.update($0) }
            start = end
            step = step * 3 + 1
        }
        #expect(sha256.finish() == SHA256Digest.of(bytes))
        #expect(sha512.finish() == SHA512Digest.of(bytes))
    }

    @Test func aCopyGoesOnIndependently() {
        var first = SHA512Digest()
        Self.abc.withUnsafeBytes { first.update($0) }
        var second = first
        Self.twoBlocks.withUnsafeBytes { second.update($0) }
        #expect(first.finish() == SHA512Digest.of(Self.abc))
        #expect(second.finish() == SHA512Digest.of(Self.abc + Self.twoBlocks))
        // A finished digest starts again from empty.
        #expect(first.finish() == SHA512Digest.of([]))
    }
}

/// OpenSSL's state is kept until exit (its atexit cleanup would free it under threads still using
/// it); asking for that after OpenSSL has started is accepted too, and digests still work.
@Suite(.ownThreads)
struct OpenSSLRuntimeTests {
    @Test func keepingTheStateUntilExitIsAccepted() {
        #expect(OpenSSLRuntime.keepStateUntilExit())
        #expect(SHA512Digest.of([]).count == 64)
    }
}
