#if canImport(Glibc)
import Glibc
#endif

/// What is left on a file system.
public enum FreeSpace {
    /// Space every up-front check keeps free beyond what the operation needs: the SimpleX apps, the
    /// system and the operation's own small files (journals, directory entries) still need room.
    public static let spareBytes: Int64 = 64 << 20

    /// Bytes an unprivileged process may still write on the file system holding `path`.
    public static func availableBytes(at path: String) throws -> Int64 {
        var fs = Glibc.statvfs()
        guard statvfs(path, &fs) == 0 else { throw FileSystemError("read the free space of", path: path) }
        return Int64(clamping: UInt64(fs.f_bavail) &* UInt64(fs.f_frsize))
    }

    /// Refuses, before anything is written, when `bytes` plus `spare` do not fit on the file system
    /// of `path` (its nearest existing ancestor when it does not exist yet). `purpose` is a noun
    /// phrase for the sentence ("receiving 'a.bin'").
    public static func require(_ bytes: Int64, at path: String, spare: Int64 = spareBytes, for purpose: String) throws {
        try require([(bytes, path)], spare: spare, for: purpose)
    }

    /// The same for several places at once: what goes to one file system is added up first.
    public static func require(_ needs: [(bytes: Int64, path: String)], spare: Int64 = spareBytes, for purpose: String) throws {
        var byDevice: [(device: UInt, folder: String, bytes: Int64)] = []
        for need in needs {
            var existing = need.path
            while POSIXFile.linkStatus(existing) == nil, existing != "/", existing != "." { existing = Path.parent(existing) }
            let device = POSIXFile.linkStatus(existing).map { UInt($0.st_dev) } ?? 0
            if let i = byDevice.firstIndex(where: { $0.device == device }) {
                let (sum, overflow) = byDevice[i].bytes.addingReportingOverflow(need.bytes)
                byDevice[i].bytes = overflow ? .max : sum
            } else {
                byDevice.append((device, existing, need.bytes))
            }
        }
        for entry in byDevice {
            let available = try availableBytes(at: entry.folder)
            let (total, overflow) = entry.bytes.addingReportingOverflow(spare)
            guard overflow || total > available else { continue }
            throw NotEnoughSpace(purpose: purpose, folder: entry.folder, needed: entry.bytes, available: available, spare: spare)
        }
    }
}

/// Too little free space for an operation whose size is known before it starts: refused up front,
/// so a full disk is never met half-way (the margin, `spare`, is in the sentence).
public struct NotEnoughSpace: SXError, Equatable {
    public let purpose: String
    public let folder: String
    public let needed: Int64
    public let available: Int64
    public let spare: Int64

    public init(purpose: String, folder: String, needed: Int64, available: Int64, spare: Int64) {
        self.purpose = purpose
        self.folder = folder
        self.needed = needed
        self.available = available
        self.spare = spare
    }

    public var description: String {
        "\(purpose) needs \(ByteCount.format(needed)) on the file system of '\(folder)', which has \(ByteCount.format(available)) free "
            + "(keeping \(ByteCount.format(spare)) spare); free some space and run the command again; nothing was changed"
    }
}
