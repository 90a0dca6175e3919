import Crypto

/// SHA-256, incrementally (chunk ids of transfers, checksums in tests and reports). BoringSSL's
/// (through swift-crypto) rather than libsodium's: it uses the CPU's SHA extensions, about six times
/// faster here, and every byte of a transfer is hashed at least once.
public struct SHA256Digest {
    private var state = SHA256()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        state.update(bufferPointer: bytes)
    }

    public mutating func finish() -> [UInt8] { Array(state.finalize()) }

    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        var d = SHA256Digest()
        bytes.withUnsafeBytes { d.update($0) }
        return d.finish()
    }
}

/// SHA-512, incrementally (digest of a whole transfer-encrypted file), also from BoringSSL.
public struct SHA512Digest {
    private var state = SHA512()

    public init() {}

    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        state.update(bufferPointer: bytes)
    }

    public mutating func finish() -> [UInt8] { Array(state.finalize()) }

    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        var d = SHA512Digest()
        bytes.withUnsafeBytes { d.update($0) }
        return d.finish()
    }
}
