import CLibCrypto

/// SHA-256 and SHA-512 from OpenSSL's libcrypto (already in the process: SQLCipher uses it). Every
/// byte of a transfer is hashed at least twice, so the implementation matters: on this class of
/// machine OpenSSL takes the CPU's SHA extensions for SHA-256 (≈ 1.5 GB/s, libsodium's portable code
/// ≈ 0.2 GB/s) and its AVX2 code for SHA-512 (≈ 0.74 GB/s, against ≈ 0.5 GB/s for BoringSSL, which
/// keeps its AVX SHA-512 for Intel CPUs, and ≈ 0.45 GB/s for libsodium).
public struct SHA256Digest: StreamingDigest {
    private var evp = EVPDigest(EVP_sha256())
    public init() {}
    public mutating func update(_ bytes: UnsafeRawBufferPointer) { evp.update(bytes) }
    public mutating func finish() -> [UInt8] { evp.finish() }
}

/// SHA-512, incrementally (the digest of a whole transfer-encrypted file).
public struct SHA512Digest: StreamingDigest {
    private var evp = EVPDigest(EVP_sha512())
    public init() {}
    public mutating func update(_ bytes: UnsafeRawBufferPointer) { evp.update(bytes) }
    public mutating func finish() -> [UInt8] { evp.finish() }
}

/// A hash fed in pieces; `finish` returns the digest and starts again from empty.
public protocol StreamingDigest {
    init()
    mutating func update(_ bytes: UnsafeRawBufferPointer)
    mutating func finish() -> [UInt8]
}

extension StreamingDigest {
    /// The digest of `bytes` in one go.
    public static func of(_ bytes: [UInt8]) -> [UInt8] {
        bytes.withUnsafeBytes { of($0) }
    }

    public static func of(_ bytes: UnsafeRawBufferPointer) -> [UInt8] {
        var digest = Self()
        digest.update(bytes)
        return digest.finish()
    }
}

/// An EVP digest with value semantics: a copy goes on independently of the original (the shared
/// context is duplicated before either changes it).
private struct EVPDigest {
    private var state: DigestState

    init(_ algorithm: OpaquePointer?) { state = DigestState(algorithm) }

    mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard !bytes.isEmpty else { return }
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        state.update(bytes)
    }

    mutating func finish() -> [UInt8] {
        if !isKnownUniquelyReferenced(&state) { state = state.copy() }
        return state.finish()
    }
}

/// The libcrypto that computes the digests, as `sxkit --version` reports it.
public enum DigestRuntime {
    public static var version: String { String(cString: OpenSSL_version(OPENSSL_VERSION)) }
}

/// One EVP digest context.
private final class DigestState {
    private let context: OpaquePointer

    init(_ algorithm: OpaquePointer?) {
        // Both fail only when memory is exhausted or libcrypto is broken, where nothing can go on.
        guard let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, algorithm, nil) == 1 else {
            fatalError("libcrypto could not start a digest")
        }
        self.context = context
    }

    private init(copying other: OpaquePointer) {
        guard let context = EVP_MD_CTX_new(), EVP_MD_CTX_copy_ex(context, other) == 1 else {
            fatalError("libcrypto could not copy a digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    func copy() -> DigestState { DigestState(copying: context) }

    func update(_ bytes: UnsafeRawBufferPointer) {
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else { fatalError("libcrypto digest update failed") }
    }

    /// The digest; the context is then reset for the same algorithm (Final leaves it unusable).
    func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &out, &length) == 1,
              EVP_DigestInit_ex(context, EVP_MD_CTX_get0_md(context), nil) == 1 else { fatalError("libcrypto digest final failed") }
        return Array(out.prefix(Int(length)))
    }
}
