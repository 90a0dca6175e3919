import CSodium

/// Comparisons of secrets that take the same time wherever the first difference is.
public enum ConstantTime {
    /// libsodium's `sodium_memcmp`; different lengths are unequal (length is not secret here).
    public static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return sodium_memcmp(a, b, a.count) == 0
    }
}

extension SodiumRuntime {
    /// `count` random bytes from the CSPRNG.
    public static func randomBytes(count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randomBytes($0) }
        return bytes
    }
}
