#if canImport(Glibc)
import Glibc
#endif

// The libc calls sxkit makes on paths, taking the path as a `String` and handing the kernel the
// file's real bytes (`FileNameBytes`). Swift's own String-to-`char *` bridging would write a name
// that is not UTF-8 (carried as U+EF80...U+EFFF) as the UTF-8 of those characters, a different
// name. Swift prefers an overload that takes a `String` exactly over the C import that needs the
// bridging conversion, so every module that imports SXCore calls these with no change at the call
// site; `PathCallsTests` checks that from outside this module.

extension FileNameBytes {
    /// Calls `body` with `path` as the NUL-terminated bytes the file system knows it by.
    public static func withPath<T>(_ path: String, _ body: (UnsafePointer<CChar>) throws -> T) rethrows -> T {
        // U+EF80...U+EFFF all start with the UTF-8 byte 0xEE: without one the text is the name.
        guard path.utf8.contains(0xEE), hasRawBytes(path) else { return try path.withCString(body) }
        return try (bytes(path) + [0]).withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// Calls `body` with two paths' bytes (`rename`, `link`, `symlink`).
    static func withPaths<T>(_ first: String, _ second: String, _ body: (UnsafePointer<CChar>, UnsafePointer<CChar>) throws -> T) rethrows -> T {
        try withPath(first) { a in try withPath(second) { b in try body(a, b) } }
    }

    /// A `mkstemp`/`mkdtemp` template: the path's bytes, NUL-terminated, for the call to fill in.
    public static func template(_ path: String) -> [CChar] {
        (bytes(path) + [0]).map { CChar(bitPattern: $0) }
    }

    /// The path a C call wrote (a filled-in template, `realpath`'s answer), carried losslessly.
    public static func string(cString: UnsafePointer<CChar>) -> String {
        string(UnsafeBufferPointer(start: cString, count: strlen(cString)).lazy.map { UInt8(bitPattern: $0) })
    }
}

@discardableResult public func open(_ path: String, _ flags: Int32) -> Int32 { FileNameBytes.withPath(path) { Glibc.open($0, flags) } }
@discardableResult public func open(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { FileNameBytes.withPath(path) { Glibc.open($0, flags, mode) } }
@discardableResult public func openat(_ folder: Int32, _ path: String, _ flags: Int32) -> Int32 { FileNameBytes.withPath(path) { Glibc.openat(folder, $0, flags) } }
@discardableResult public func openat(_ folder: Int32, _ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    FileNameBytes.withPath(path) { Glibc.openat(folder, $0, flags, mode) }
}
@discardableResult public func stat(_ path: String, _ status: UnsafeMutablePointer<Glibc.stat>) -> Int32 {
    FileNameBytes.withPath(path) { Glibc.fstatat(AT_FDCWD, $0, status, 0) }
}
@discardableResult public func lstat(_ path: String, _ status: UnsafeMutablePointer<Glibc.stat>) -> Int32 {
    FileNameBytes.withPath(path) { Glibc.fstatat(AT_FDCWD, $0, status, AT_SYMLINK_NOFOLLOW) }
}
@discardableResult public func fstatat(_ folder: Int32, _ path: String, _ status: UnsafeMutablePointer<Glibc.stat>, _ flags: Int32) -> Int32 {
    FileNameBytes.withPath(path) { Glibc.fstatat(folder, $0, status, flags) }
}
@discardableResult public func statvfs(_ path: String, _ status: UnsafeMutablePointer<Glibc.statvfs>) -> Int32 {
    // `Glibc.statvfs` names the struct here; an O_PATH descriptor answers the same (Linux 3.12+).
    let pathOnly: Int32 = 0o10000000  // O_PATH, which Glibc exports only under _GNU_SOURCE
    let fd = FileNameBytes.withPath(path) { Glibc.open($0, pathOnly | O_CLOEXEC) }
    guard fd >= 0 else { return -1 }
    defer { close(fd) }
    return fstatvfs(fd, status)
}
@discardableResult public func access(_ path: String, _ mode: Int32) -> Int32 { FileNameBytes.withPath(path) { Glibc.access($0, mode) } }
@discardableResult public func chmod(_ path: String, _ mode: mode_t) -> Int32 { FileNameBytes.withPath(path) { Glibc.chmod($0, mode) } }
@discardableResult public func unlink(_ path: String) -> Int32 { FileNameBytes.withPath(path) { Glibc.unlink($0) } }
@discardableResult public func unlinkat(_ folder: Int32, _ path: String, _ flags: Int32) -> Int32 { FileNameBytes.withPath(path) { Glibc.unlinkat(folder, $0, flags) } }
@discardableResult public func mkdir(_ path: String, _ mode: mode_t) -> Int32 { FileNameBytes.withPath(path) { Glibc.mkdir($0, mode) } }
@discardableResult public func rmdir(_ path: String) -> Int32 { FileNameBytes.withPath(path) { Glibc.rmdir($0) } }
@discardableResult public func rename(_ old: String, _ new: String) -> Int32 { FileNameBytes.withPaths(old, new) { Glibc.rename($0, $1) } }
@discardableResult public func link(_ existing: String, _ new: String) -> Int32 { FileNameBytes.withPaths(existing, new) { Glibc.link($0, $1) } }
@discardableResult public func symlink(_ target: String, _ link: String) -> Int32 { FileNameBytes.withPaths(target, link) { Glibc.symlink($0, $1) } }
public func opendir(_ path: String) -> OpaquePointer? { FileNameBytes.withPath(path) { Glibc.opendir($0) } }
