import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Files for the parsers that read from disk (a ZIP's central directory, a migrations folder, a
/// decrypted transfer's output): one private folder per run, removed at exit and swept by the next
/// run if this one was killed.
public enum FuzzScratch {
    private static let folder: PrivateFolder = {
        do {
            let made = try PrivateFolder(label: "fuzz")
            atexit { FuzzScratch.folder.remove() }
            return made
        } catch {
            fatalError("cannot make the fuzz scratch folder: \(error)")
        }
    }()

    public static var path: String { folder.path }

    /// Writes `bytes` to `name` in the scratch folder (replacing it) and returns its path.
    public static func file(_ name: String, _ bytes: UnsafeRawBufferPointer) -> String {
        let path = Path.join(folder.path, name)
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { fatalError("cannot write \(path): errno \(errno)") }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = write(fd, bytes.baseAddress! + done, bytes.count - done)
            guard n > 0 else { fatalError("cannot write \(path): errno \(errno)") }
            done += n
        }
        return path
    }
}

/// The repository's test fixtures, which the seeds are built from.
public enum FuzzFixtures {
    /// `Tests/Fixtures`, found from this file's place in the checkout (seeds are written from one).
    public static let root = Path.join(Path.parent(Path.parent(Path.parent(#filePath))), "Tests/Fixtures")

    public static func bytes(_ relative: String) throws -> [UInt8] {
        try FileBytes.read(Path.join(root, relative), limit: 16 << 20)
    }

    /// Every file of a fixtures folder but its README, by name.
    public static func folder(_ relative: String) throws -> [(name: String, bytes: [UInt8])] {
        let path = Path.join(root, relative)
        return try Folders.names(in: path).filter { !$0.hasPrefix(".") && $0 != "README.md" }.sorted()
            .map { ($0, try FileBytes.read(Path.join(path, $0), limit: 16 << 20)) }
    }
}

/// A fixture that does not hold what a seed is built from.
public struct FuzzSeedError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
