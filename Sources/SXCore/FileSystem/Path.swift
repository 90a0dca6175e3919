import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// String path helpers; sxkit passes paths as strings straight to POSIX calls.
public enum Path {
    // Both work on the UTF-8 view: `/` is ASCII, so its indices are valid String indices, and a
    // walk of 100,000 names spent a sixth of its time counting Characters here (bench/storage).
    public static func parent(_ path: String) -> String {
        let end = endTrimmingOneSlash(path)
        guard let slash = path.utf8[..<end].lastIndex(of: slashByte) else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    public static func basename(_ path: String) -> String {
        let end = endTrimmingOneSlash(path)
        guard let slash = path.utf8[..<end].lastIndex(of: slashByte) else { return String(path[..<end]) }
        return String(path[path.utf8.index(after: slash)..<end])
    }

    private static let slashByte = UInt8(ascii: "/")

    /// The end of `path` without one trailing slash, unless the path is just "/".
    private static func endTrimmingOneSlash(_ path: String) -> String.Index {
        let utf8 = path.utf8
        guard utf8.count > 1, utf8.last == slashByte else { return path.endIndex }
        return utf8.index(before: path.endIndex)
    }

    public static func join(_ base: String, _ component: String) -> String {
        if component.hasPrefix("/") { return component }
        if base.isEmpty { return component }
        return base.hasSuffix("/") ? base + component : base + "/" + component
    }

    /// An absolute, lexically normalised path (no `.`/`..`, no double slashes); symlinks are not
    /// resolved, so the path keeps naming what the user named.
    public static func absolute(_ path: String, relativeTo base: String = currentDirectory) -> String {
        let joined = path.hasPrefix("/") ? path : join(base, path)
        var parts: [Substring] = []
        for part in joined.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { if !parts.isEmpty { parts.removeLast() }; continue }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// `path` relative to `folder` when it lies inside it, else nil. Both must be absolute.
    public static func relative(_ path: String, inside folder: String) -> String? {
        let prefix = folder.hasSuffix("/") ? folder : folder + "/"
        guard path.hasPrefix(prefix), path.utf8.count > prefix.utf8.count else { return nil }
        return String(path[path.utf8.index(path.startIndex, offsetBy: prefix.utf8.count)...])
    }

    /// The working directory, with a name that is not UTF-8 carried losslessly (Foundation's
    /// `currentDirectoryPath` repairs such bytes into U+FFFD, naming another folder).
    public static var currentDirectory: String {
        var size = Int(PATH_MAX)
        while true {
            var buffer = [CChar](repeating: 0, count: size)
            if getcwd(&buffer, size) != nil { return FileNameBytes.string(cString: buffer) }
            guard errno == ERANGE else { return "/" }
            size *= 2
        }
    }

    /// `realpath(3)`: the absolute path with every symlink, `.` and `..` resolved; nil when some
    /// part of it does not exist.
    public static func resolved(_ path: String) -> String? {
        guard let resolved = FileNameBytes.withPath(path, { realpath($0, nil) }) else { return nil }
        defer { free(resolved) }
        return FileNameBytes.string(cString: resolved)
    }

    public static func expandTilde(_ path: String, home: String) -> String {
        if path == "~" { return home }
        if path.hasPrefix("~/") { return home + path.dropFirst(1) }
        return path
    }
}
