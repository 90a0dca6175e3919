import CSodium
import SXCore

/// The CryptoFile cipher (FORMATS §6) as a stream: XSalsa20 keystream S for (K, N); S[0..<32] is
/// the Poly1305 one-time key; data is XORed with S from byte 32 on; Poly1305 runs over the
/// ciphertext. Equal to `crypto_secretbox_detached`, but usable in bounded memory.
struct XSalsa20Poly1305Stream {
    private let args: CryptoFileArgs
    private var mac = crypto_onetimeauth_poly1305_state()
    /// Position in the keystream of the next data byte (starts after the 32-byte MAC key).
    private var streamOffset: UInt64 = 32
    private var finished = false

    init(args: CryptoFileArgs) {
        precondition(SodiumRuntime.started)
        self.args = args
        var macKey = [UInt8](repeating: 0, count: 32)
        defer { Wipe.array(&macKey) }
        Self.xorKeystream(&macKey, args: args, offset: 0)
        crypto_onetimeauth_poly1305_init(&mac, macKey)
    }

    /// Encrypts in place and feeds the ciphertext to the MAC.
    mutating func seal(_ buffer: UnsafeMutableRawBufferPointer) {
        Self.xorKeystream(buffer, args: args, offset: streamOffset)
        streamOffset += UInt64(buffer.count)
        authenticate(UnsafeRawBufferPointer(buffer))
    }

    /// Feeds ciphertext to the MAC, then decrypts it in place.
    mutating func open(_ buffer: UnsafeMutableRawBufferPointer) {
        authenticate(UnsafeRawBufferPointer(buffer))
        Self.xorKeystream(buffer, args: args, offset: streamOffset)
        streamOffset += UInt64(buffer.count)
    }

    /// Feeds ciphertext to the MAC without decrypting (verification pass).
    mutating func authenticate(_ ciphertext: UnsafeRawBufferPointer) {
        guard ciphertext.count > 0 else { return }
        crypto_onetimeauth_poly1305_update(&mac, ciphertext.baseAddress!.assumingMemoryBound(to: UInt8.self), UInt64(ciphertext.count))
    }

    /// The 16-byte tag; the MAC state is wiped.
    mutating func tag() -> [UInt8] {
        precondition(!finished)
        finished = true
        var out = [UInt8](repeating: 0, count: 16)
        crypto_onetimeauth_poly1305_final(&mac, &out)
        withUnsafeMutableBytes(of: &mac) { Wipe.bytes($0) }
        return out
    }

    /// Constant-time check of `expected` against the computed tag.
    mutating func verify(_ expected: [UInt8]) -> Bool {
        let computed = tag()
        return expected.count == 16 && crypto_verify_16(computed, expected) == 0
    }

    static func xorKeystream(_ array: inout [UInt8], args: CryptoFileArgs, offset: UInt64) {
        array.withUnsafeMutableBytes { xorKeystream($0, args: args, offset: offset) }
    }

    /// XORs `buffer` with keystream bytes starting at `offset`. libsodium's `_xor_ic` starts at a
    /// 64-byte block boundary, so a leading partial block is done through a scratch block.
    static func xorKeystream(_ buffer: UnsafeMutableRawBufferPointer, args: CryptoFileArgs, offset: UInt64) {
        guard buffer.count > 0 else { return }
        var done = 0
        var position = offset
        args.key.withUnsafeBytes { key in
            let k = key.baseAddress!.assumingMemoryBound(to: UInt8.self)
            let within = Int(position % 64)
            if within != 0 {
                var block = [UInt8](repeating: 0, count: 64)
                crypto_stream_xsalsa20_xor_ic(&block, block, 64, args.nonce, position / 64, k)
                let n = min(64 - within, buffer.count)
                for i in 0..<n { buffer[i] ^= block[within + i] }
                Wipe.array(&block)
                done = n
                position += UInt64(n)
            }
            if done < buffer.count {
                let p = (buffer.baseAddress! + done).assumingMemoryBound(to: UInt8.self)
                crypto_stream_xsalsa20_xor_ic(p, p, UInt64(buffer.count - done), args.nonce, position / 64, k)
            }
        }
    }
}
