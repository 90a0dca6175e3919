import SXCrypto

/// How an encrypted transfer file of `total` bytes (payload + 8 + 16) is cut into relay chunks
/// (FORMATS §7; the vectors in chunk_plan.json are the reference).
public struct ChunkPlan: Sendable, Equatable {
    public static let kib: Int64 = 1024
    public static let mib: Int64 = 1024 * 1024
    /// The chunk sizes relays accept.
    public static let serverChunkSizes: [Int64] = [64 * kib, 256 * kib, mib, 4 * mib]
    /// The largest chunk an XFTP server takes (simplexmq `src/Simplex/FileTransfer/Chunks.hs` `chunkSize3`).
    public static let largestChunkSize: Int64 = 4 * mib

    public let total: Int64
    public let small: Int64
    public let big: Int64
    public let sizes: [Int64]

    /// The encrypted file's size: the sum of the chunks.
    public var encryptedSize: Int64 { sizes.reduce(0, +) }
    public var count: Int { sizes.count }

    /// Byte offset of each chunk in the encrypted file.
    public var offsets: [Int64] {
        var offset: Int64 = 0
        return sizes.map { size in defer { offset += size }; return offset }
    }

    public init(total: Int64) {
        precondition(total >= 0)
        self.total = total
        // The pair is chosen once, from the total, and kept for every rest.
        if total > 4 * Self.mib * 3 / 4 {
            (small, big) = (Self.mib, 4 * Self.mib)
        } else if total > Self.mib * 3 / 4 {
            (small, big) = (256 * Self.kib, Self.mib)
        } else {
            (small, big) = (64 * Self.kib, 256 * Self.kib)
        }
        var sizes = [Int64](repeating: big, count: Int(total / big))
        let rest = total % big
        if rest > big * 3 / 4 {
            sizes.append(big)
        } else if rest > 0 {
            sizes += [Int64](repeating: small, count: Int((rest + small - 1) / small))
        }
        self.sizes = sizes
    }

    /// The plan for a file of `contentSize` bytes sent with `header`.
    public init(contentSize: Int64, header: TransferFileHeader) {
        self.init(total: contentSize + Int64(header.bytes.count) + TransferFileCrypto.overhead)
    }

    /// One chunk, the smallest server size that holds `total` bytes, or nil when none does: how a
    /// redirect's description file is sent (simplexmq `Client.hs` 337-341 `singleChunkSize`, used by
    /// `Agent.hs` 442-446).
    public init?(singleChunkFor total: Int64) {
        guard let size = Self.serverChunkSizes.first(where: { $0 >= total }) else { return nil }
        self.total = total
        (small, big) = (size, size)
        sizes = [size]
    }
}
