import CSodium

/// SHA-256, incrementally (chunk ids of transfers, checksums in tests and reports).
public struct SHA256Digest {
    private var state = crypto_hash_sha256_state()

    public init() {
        precondition(SodiumRuntime.started)
        crypto_hash_sha256_init(&state)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        crypto_hash_sha256_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    public mutating func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        crypto_hash_sha256_final(&state, &out)
        return out
    }

    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        var d = SHA256Digest()
        bytes.withUnsafeBytes { d.update($0) }
        return d.finish()
    }
}

/// SHA-512, incrementally (digest of a whole transfer-encrypted file).
public struct SHA512Digest {
    private var state = crypto_hash_sha512_state()

    public init() {
        precondition(SodiumRuntime.started)
        crypto_hash_sha512_init(&state)
    }

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        crypto_hash_sha512_update(&state, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    public mutating func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 64)
        crypto_hash_sha512_final(&state, &out)
        return out
    }

    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        var d = SHA512Digest()
        bytes.withUnsafeBytes { d.update($0) }
        return d.finish()
    }
}
