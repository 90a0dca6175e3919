import Foundation
import SXCore
import SXTestSupport
#if canImport(Glibc)
import Glibc
#endif

extension TempFolder {
    /// The folder's path without the double slash `NSTemporaryDirectory()` can leave in it, so that
    /// it compares equal to what `Path.absolute` produces.
    var root: String { Path.absolute(path) }

    /// Creates a folder (and its parents) below the temp folder; returns its normalised path.
    @discardableResult
    func makeFolder(_ name: String) throws -> String {
        let p = Path.join(root, name)
        try FileManager.default.createDirectory(atPath: p, withIntermediateDirectories: true)
        return p
    }

    /// Writes a UTF-8 text file below the temp folder; returns its normalised path.
    @discardableResult
    func writeText(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
        return Path.join(root, name)
    }
}

/// Names in `folder` that are leftovers of `AtomicFileWriter`.
func atomicTempLeftovers(in folder: String) throws -> [String] {
    try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(AtomicFileWriter.tempPrefix) }
}

/// Permission bits of a file (no type bits).
func permissionBits(_ path: String) throws -> mode_t {
    try POSIXFile.status(path).st_mode & 0o7777
}

/// The process umask, read without changing it (calling `umask(2)` would race other tests).
func processUmask() throws -> mode_t {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }),
          let value = mode_t(line.dropFirst("Umask:".count).trimmingCharacters(in: .whitespaces), radix: 8) else {
        throw CocoaError(.fileReadCorruptFile)
    }
    return value
}
