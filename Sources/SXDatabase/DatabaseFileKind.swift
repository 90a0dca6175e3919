#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// What a database file looks like on disk, judged from its first bytes only (SQLite is never opened),
/// to tell a wrong passphrase from a file that is not a database (FORMATS §3).
public enum DatabaseFileKind: Equatable, Sendable {
    /// Nothing at the path.
    case missing
    /// A zero-length file (SQLite treats it as a new, empty database).
    case empty
    /// Starts with `SQLite format 3\0`: an unencrypted SQLite database.
    case plaintextSQLite
    /// Anything else. SQLCipher files look random from the first byte (salt, then encrypted pages);
    /// a JPEG, a text file or a truncated file does not.
    case encryptedOrNotDatabase(looksRandom: Bool)

    /// The 16-byte header of every plaintext SQLite database.
    public static let sqliteHeader: [UInt8] = Array("SQLite format 3".utf8) + [0]
    /// How much of the file the randomness estimate looks at (one SQLCipher 4 page).
    public static let sampleSize = 4096
    /// Fewer bytes than this cannot be judged random (the smallest SQLCipher page is 1024 bytes).
    public static let minimumRandomSample = 1024

    /// Classifies the file at `path`; reads at most `sampleSize` bytes. Throws `FileSystemError`
    /// only when the file exists but cannot be read.
    public static func classify(path: String) throws -> DatabaseFileKind {
        var st = stat()
        if stat(path, &st) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return .missing }
            throw FileSystemError("read the status of", path: path)
        }
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        var sample = [UInt8](repeating: 0, count: sampleSize)
        let n = try POSIXFile.read(fd, into: &sample, path: path)
        sample.removeSubrange(n...)
        return classify(prefix: sample)
    }

    /// Classifies the first bytes of a file (up to `sampleSize` are used).
    public static func classify(prefix: [UInt8]) -> DatabaseFileKind {
        if prefix.isEmpty { return .empty }
        if prefix.count >= sqliteHeader.count, Array(prefix.prefix(sqliteHeader.count)) == sqliteHeader {
            return .plaintextSQLite
        }
        return .encryptedOrNotDatabase(looksRandom: looksRandom(prefix.prefix(sampleSize)))
    }

    /// True when the bytes are statistically indistinguishable from uniform random bytes: Shannon
    /// entropy close to 8 bits per byte and a chi-square statistic against the uniform distribution
    /// within six standard deviations of its mean (compressed data such as JPEG fails the latter).
    public static func looksRandom<C: Collection>(_ bytes: C) -> Bool where C.Element == UInt8 {
        guard bytes.count >= minimumRandomSample else { return false }
        let counts = histogram(bytes)
        let n = Double(bytes.count)
        let expected = n / 256
        let chiSquare = counts.reduce(0.0) { sum, c in
            let d = Double(c) - expected
            return sum + d * d / expected
        }
        // Chi-square with 255 degrees of freedom: mean 255, standard deviation sqrt(510) ≈ 22.6.
        let chiSquareLimit = 255 + 6 * (510.0).squareRoot()
        return entropy(counts: counts, total: n) >= 7.5 && chiSquare <= chiSquareLimit
    }

    /// Shannon entropy in bits per byte (0…8).
    public static func entropy<C: Collection>(_ bytes: C) -> Double where C.Element == UInt8 {
        guard !bytes.isEmpty else { return 0 }
        return entropy(counts: histogram(bytes), total: Double(bytes.count))
    }

    private static func histogram<C: Collection>(_ bytes: C) -> [Int] where C.Element == UInt8 {
        var counts = [Int](repeating: 0, count: 256)
        for b in bytes { counts[Int(b)] += 1 }
        return counts
    }

    private static func entropy(counts: [Int], total: Double) -> Double {
        counts.reduce(0.0) { sum, c in
            guard c > 0 else { return sum }
            let p = Double(c) / total
            return sum - p * log2(p)
        }
    }
}
