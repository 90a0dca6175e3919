import CSodium
import SXCore

/// SimpleX's streaming secret box: XSalsa20 + Poly1305 with the tag written after the data, in
/// bounded memory. One primitive for every use: CryptoFiles and transfer files (a 32-byte random
/// key, simplexmq `Crypto/Lazy.hs` `sbInit`) and XFTP downloads (an X25519 DH secret, `cbInit`).
///
/// The key schedule (simplexmq `src/Simplex/Messaging/Crypto/Lazy.hs` `sbInit_`, lines 210-216 at
/// 92598c2): cryptonite's `XSalsa.initialize 20 key (zero16 ++ nonce[0..<8])` then
/// `XSalsa.derive state nonce[8..<24]` is a double HSalsa20 cascade, so the XSalsa20 key is
/// K1 = HSalsa20(key, 16 zero bytes), not `key` itself. SimpleX's TypeScript port says the same
/// (`xftp-web/src/crypto/secretbox.ts` `sbInit`, lines 100-114). With libsodium:
/// `crypto_core_hsalsa20(K1, zero16, key, NULL)`, then XSalsa20(K1, nonce): the first 32 keystream
/// bytes are the Poly1305 one-time key, data is XORed from keystream byte 32 on, and Poly1305 runs
/// over the ciphertext. For a DH secret this first step is exactly NaCl's `crypto_box_beforenm`.
public struct SecretBoxStream {
    /// Which key the XSalsa20 keystream is made from.
    public enum KeySchedule: String, Sendable, Equatable, CaseIterable {
        /// HSalsa20(key, 0) first: what SimpleX writes and reads.
        case simplex
        /// The key used directly (plain `crypto_secretbox`): what sxkit before 0.2.0 wrote.
        /// Read only, to recognise, decrypt and re-encrypt those files; never written.
        case earlierSxkit
    }

    public static let keyLength = 32
    public static let nonceLength = 24
    public static let tagLength = 16

    /// The XSalsa20 half: what `seal` and `open` XOR the data with.
    public private(set) var keystream: Keystream
    /// The Poly1305 half, over the ciphertext.
    public private(set) var authenticator: Authenticator

    /// XSalsa20 from keystream byte 32 on (bytes 0..<32 are the Poly1305 key). A stream's two
    /// halves are independent, so that a pipeline can run them on two threads, each in order.
    public struct Keystream: Sendable {
        /// The XSalsa20 key after the schedule (K1), wiped when the stream goes away.
        fileprivate let streamKey: SecretBytes
        fileprivate let nonce: [UInt8]
        /// Position in the keystream of the next data byte.
        fileprivate var offset: UInt64 = 32

        /// XORs `buffer` with the next keystream bytes, in place.
        public mutating func xor(_ buffer: UnsafeMutableRawBufferPointer) {
            SecretBoxStream.xorKeystream(buffer, key: streamKey, nonce: nonce, offset: offset)
            offset += UInt64(buffer.count)
        }

        /// Moves on `count` bytes without using them: the keystream for data further into the stream.
        public mutating func skip(_ count: Int64) {
            precondition(count >= 0)
            offset += UInt64(count)
        }
    }

    /// Poly1305 over the ciphertext, in order.
    public struct Authenticator: Sendable {
        fileprivate var mac = crypto_onetimeauth_poly1305_state()
        fileprivate var finished = false

        /// Feeds ciphertext to the MAC.
        public mutating func update(_ ciphertext: UnsafeRawBufferPointer) {
            guard ciphertext.count > 0 else { return }
            crypto_onetimeauth_poly1305_update(&mac, ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count))
        }

        /// The 16-byte tag; the MAC state is wiped.
        public mutating func tag() -> [UInt8] {
            precondition(!finished)
            finished = true
            var out = [UInt8](repeating: 0, count: SecretBoxStream.tagLength)
            crypto_onetimeauth_poly1305_final(&mac, &out)
            withUnsafeMutableBytes(of: &mac) { Wipe.bytes($0) }
            return out
        }

        /// Constant-time check of `expected` against the computed tag.
        public mutating func verify(_ expected: [UInt8]) -> Bool {
            let computed = tag()
            return expected.count == SecretBoxStream.tagLength && crypto_verify_16(computed, expected) == 0
        }
    }

    /// - Parameters:
    ///   - key: 32 bytes: a CryptoFile or transfer key, or an X25519 DH secret.
    ///   - nonce: 24 bytes.
    public init(key: SecretBytes, nonce: [UInt8], schedule: KeySchedule = .simplex) {
        precondition(SodiumRuntime.started)
        precondition(key.count == Self.keyLength && nonce.count == Self.nonceLength, "secret box key or nonce of the wrong size")
        let streamKey = Self.streamKey(key, schedule)
        keystream = Keystream(streamKey: streamKey, nonce: nonce)
        var macKey = [UInt8](repeating: 0, count: 32)
        defer { Wipe.array(&macKey) }
        macKey.withUnsafeMutableBytes { Self.xorKeystream($0, key: streamKey, nonce: nonce, offset: 0) }
        authenticator = Authenticator()
        crypto_onetimeauth_poly1305_init(&authenticator.mac, macKey)
    }

    /// A stream put back together from its halves after they ran apart.
    init(keystream: Keystream, authenticator: Authenticator) {
        self.keystream = keystream
        self.authenticator = authenticator
    }

    public init(args: CryptoFileArgs, schedule: KeySchedule = .simplex) {
        self.init(key: args.key, nonce: args.nonce, schedule: schedule)
    }

    private static func streamKey(_ key: SecretBytes, _ schedule: KeySchedule) -> SecretBytes {
        switch schedule {
        case .earlierSxkit:
            return key
        case .simplex:
            let zero = [UInt8](repeating: 0, count: 16)
            return SecretBytes(count: keyLength) { out in
                key.withUnsafeBytes { k in
                    _ = crypto_core_hsalsa20(out.baseAddress!.assumingMemoryBound(to: UInt8.self), zero,
                                             k.baseAddress!.assumingMemoryBound(to: UInt8.self), nil)
                }
            }
        }
    }

    /// Encrypts in place and feeds the ciphertext to the MAC.
    public mutating func seal(_ buffer: UnsafeMutableRawBufferPointer) {
        keystream.xor(buffer)
        authenticator.update(UnsafeRawBufferPointer(buffer))
    }

    /// Feeds ciphertext to the MAC, then decrypts it in place.
    public mutating func open(_ buffer: UnsafeMutableRawBufferPointer) {
        authenticator.update(UnsafeRawBufferPointer(buffer))
        keystream.xor(buffer)
    }

    /// Feeds ciphertext to the MAC without decrypting (a verification pass).
    public mutating func authenticate(_ ciphertext: UnsafeRawBufferPointer) { authenticator.update(ciphertext) }

    /// The 16-byte tag; the MAC state is wiped.
    public mutating func tag() -> [UInt8] { authenticator.tag() }

    /// Constant-time check of `expected` against the computed tag.
    public mutating func verify(_ expected: [UInt8]) -> Bool { authenticator.verify(expected) }

    /// XORs `buffer` with keystream bytes starting at `offset`. libsodium's `_xor_ic` starts at a
    /// 64-byte block boundary, so a leading partial block is done through a scratch block.
    fileprivate static func xorKeystream(_ buffer: UnsafeMutableRawBufferPointer, key: SecretBytes, nonce: [UInt8], offset: UInt64) {
        guard buffer.count > 0 else { return }
        var done = 0
        var position = offset
        key.withUnsafeBytes { key in
            let k = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let within = Int(position % 64)
            if within != 0 {
                var block = [UInt8](repeating: 0, count: 64)
                crypto_stream_xsalsa20_xor_ic(&block, block, 64, nonce, position / 64, k)
                let n = min(64 - within, buffer.count)
                for i in 0..<n { buffer[i] ^= block[within + i] }
                Wipe.array(&block)
                done = n
                position += UInt64(n)
            }
            if done < buffer.count {
                let p = (buffer.baseAddress! + done).assumingMemoryBound(to: UInt8.self)
                crypto_stream_xsalsa20_xor_ic(p, p, UInt64(buffer.count - done), nonce, position / 64, k)
            }
        }
    }
}

extension SecretBoxStream {
    /// `plaintext` sealed in memory: ciphertext, then the tag (`sbEncryptTailTag` without padding).
    public static func seal(_ plaintext: [UInt8], key: SecretBytes, nonce: [UInt8], schedule: KeySchedule = .simplex) -> [UInt8] {
        var out = plaintext
        var box = SecretBoxStream(key: key, nonce: nonce, schedule: schedule)
        out.withUnsafeMutableBytes { box.seal($0) }
        return out + box.tag()
    }

    /// The plaintext of `ciphertext || tag`, or nil (no plaintext) when the tag does not match.
    public static func open(_ sealed: [UInt8], key: SecretBytes, nonce: [UInt8], schedule: KeySchedule = .simplex) -> [UInt8]? {
        guard sealed.count >= tagLength else { return nil }
        var body = Array(sealed[0..<(sealed.count - tagLength)])
        var box = SecretBoxStream(key: key, nonce: nonce, schedule: schedule)
        body.withUnsafeMutableBytes { box.open($0) }
        guard box.verify(Array(sealed.suffix(tagLength))) else {
            Wipe.array(&body)
            return nil
        }
        return body
    }
}
