#if canImport(Glibc)
import Glibc
#endif

/// Whether two regular files hold the same bytes, read side by side in 1 MiB pieces (memory stays
/// flat whatever their size). Used where an existing output may already be the result a command
/// would produce, so that a rerun after a kill can tell "done" from "someone else's file".
public enum FileComparison {
    public static func identical(_ first: String, _ second: String) throws -> Bool {
        let a = try POSIXFile.status(first), b = try POSIXFile.status(second)
        guard (a.st_mode & S_IFMT) == S_IFREG, (b.st_mode & S_IFMT) == S_IFREG, a.st_size == b.st_size else { return false }
        if a.st_dev == b.st_dev && a.st_ino == b.st_ino { return true }
        let fdA = try POSIXFile.open(first, flags: O_RDONLY)
        defer { close(fdA) }
        let fdB = try POSIXFile.open(second, flags: O_RDONLY)
        defer { close(fdB) }
        let size = 1 << 20
        let left = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { left.deallocate() }
        let right = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
        defer { right.deallocate() }
        while true {
            let n = try POSIXFile.read(fdA, into: left, path: first)
            let m = try POSIXFile.read(fdB, into: right, path: second)
            guard n == m else { return false }  // one changed size while being read
            if n == 0 { return true }
            guard let l = left.baseAddress, let r = right.baseAddress, memcmp(l, r, n) == 0 else { return false }
        }
    }
}
