import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// The caps that keep a hostile archive (a zip bomb) from filling the disk or the process: checked on
/// the declared sizes before anything is extracted, and again on the bytes that actually come out.
public struct ArchiveLimits: Sendable, Equatable {
    /// More entries than this is refused outright.
    public var maxEntries: Int
    /// Total uncompressed bytes, whatever the free space (an absolute ceiling).
    public var maxTotalBytes: Int64
    /// Largest uncompressed-to-compressed ratio allowed for an entry larger than `ratioThresholdBytes`
    /// (deflate tops out near 1032:1, so only a degenerate stream gets past 1000:1).
    public var maxRatio: Int64
    public var ratioThresholdBytes: Int64
    /// Space left free on the destination's file system after an import.
    public var spareBytes: Int64

    public init(maxEntries: Int = 200_000, maxTotalBytes: Int64 = 256 << 30, maxRatio: Int64 = 1000,
                ratioThresholdBytes: Int64 = 1 << 20, spareBytes: Int64 = 64 << 20) {
        self.maxEntries = maxEntries
        self.maxTotalBytes = maxTotalBytes
        self.maxRatio = maxRatio
        self.ratioThresholdBytes = ratioThresholdBytes
        self.spareBytes = spareBytes
    }

    /// Bytes an unprivileged process may still write on the file system holding `folder`.
    public static func availableBytes(at folder: String) throws -> Int64 {
        try FreeSpace.availableBytes(at: folder)
    }

    /// Refuses when `bytes` (plus the spare) do not fit on the file system of `folder`.
    public func requireSpace(_ bytes: Int64, at folder: String, for purpose: ArchiveFailure.SpacePurpose) throws {
        let available = try Self.availableBytes(at: folder)
        guard bytes + spareBytes <= available else {
            throw ArchiveFailure.notEnoughSpace(purpose: purpose, folder: folder, needed: bytes, available: available, spare: spareBytes)
        }
    }
}
