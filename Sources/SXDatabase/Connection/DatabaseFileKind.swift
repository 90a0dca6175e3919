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
    /// Certainly not a database, for a reason that can be named: another file format's signature, or
    /// a size that is no whole number of pages (every SQLite/SQLCipher page size is a multiple of 512).
    case notADatabase(reason: String)

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
        let kind = classify(prefix: sample)
        let size = Int64(st.st_size)
        if case .encryptedOrNotDatabase(looksRandom: true) = kind, size % 512 != 0 {
            return .notADatabase(reason: "its size (\(size) bytes) is not a whole number of database pages: it is truncated or not a database")
        }
        return kind
    }

    /// Signatures of formats that are often misnamed or mistaken for a database. A SQLCipher file
    /// starts with a random salt, so a match by chance has odds of 1 in 2^24 or less.
    static let signatures: [(bytes: [UInt8], offset: Int, name: String)] = [
        ([0xFF, 0xD8, 0xFF], 0, "a JPEG image"),
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], 0, "a PNG image"),
        (Array("GIF8".utf8), 0, "a GIF image"),
        (Array("RIFF".utf8), 0, "a RIFF file (WebP, WAV or AVI)"),
        (Array("ftyp".utf8), 4, "an MP4/HEIF/AVIF file"),
        ([0x50, 0x4B, 0x03, 0x04], 0, "a ZIP archive"),
        ([0x1F, 0x8B], 0, "a gzip file"),
        (Array("%PDF".utf8), 0, "a PDF document"),
        ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], 0, "a 7-Zip archive"),
        (Array("OggS".utf8), 0, "an Ogg file"),
        ([0x7F, 0x45, 0x4C, 0x46], 0, "an ELF executable"),
        (Array("SQLite format".utf8), 0, "a damaged SQLite header"),
    ]

    /// Classifies the first bytes of a file (up to `sampleSize` are used).
    public static func classify(prefix: [UInt8]) -> DatabaseFileKind {
        if prefix.isEmpty { return .empty }
        if prefix.count >= sqliteHeader.count, Array(prefix.prefix(sqliteHeader.count)) == sqliteHeader {
            return .plaintextSQLite
        }
        for signature in signatures where prefix.count >= signature.offset + signature.bytes.count
            && Array(prefix[signature.offset..<signature.offset + signature.bytes.count]) == signature.bytes {
            return .notADatabase(reason: "it is \(signature.name)")
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
