import Foundation
import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite("Direct I/O (around the page cache)", .ownThreads)
struct DirectIOTests {
    /// /var/tmp is a disk file system here (ext4); /dev/shm is tmpfs, which takes O_DIRECT on recent
    /// kernels and refuses it on older ones: both paths must keep every byte.
    static let bases = ["/var/tmp", "/dev/shm"]

    static func content(_ count: Int, seed: UInt64 = 7) -> [UInt8] {
        var generator = SplitMix64(seed: seed)
        return (0..<count).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
    }

    @Test("a file written and read back keeps every byte, whatever its size and the source's alignment",
          arguments: bases, [0, 1, 4095, 4096, 4097, (1 << 20) + 123])
    func roundTrip(base: String, size: Int) throws {
        let tmp = try TempFolder("sxkit-direct", in: base)
        let bytes = Self.content(size + 3)
        // Offset by 3 from the array's start: the source address is not page-aligned.
        try bytes.withUnsafeBytes { all in
            try POSIXFile.writeFileDirect(tmp.file("f"), UnsafeRawBufferPointer(rebasing: all[3...]))
        }
        #expect(try tmp.read("f") == Array(bytes[3...]))
        let buffer = AlignedBuffer(capacity: size + 1)
        try POSIXFile.readFileDirect(tmp.file("f"), into: buffer)
        #expect(Array(buffer.bytes) == Array(bytes[3...]))
    }

    @Test("reading a file bigger than the buffer is refused, not cut short")
    func tooBigForTheBuffer() throws {
        let tmp = try TempFolder("sxkit-direct", in: "/var/tmp")
        let path = try tmp.write("f", Self.content(8192 + 1))
        let buffer = AlignedBuffer(capacity: 8192)
        #expect(throws: FileSystemError.self) { try POSIXFile.readFileDirect(path, into: buffer) }
    }

    @Test("written with O_DIRECT on a disk file system: no page of it stays in the page cache")
    func leavesNothingInThePageCache() throws {
        let tmp = try TempFolder("sxkit-direct", in: "/var/tmp")
        let bytes = Self.content(8 << 20)
        let aligned = AlignedBuffer(capacity: bytes.count)
        bytes.withUnsafeBytes { _ = aligned.append($0) }
        try POSIXFile.writeFileDirect(tmp.file("direct"), aligned.bytes)
        #expect(try PageCache.residentPages(tmp.file("direct")) == 0)
        #expect(try tmp.read("direct") == bytes)

        // The writer's bypass mode likewise, but for the unaligned tail it writes through the cache.
        let writer = try AtomicFileWriter(destination: tmp.file("atomic"))
        writer.bypassPageCache = true
        try bytes.withUnsafeBytes { all in
            var at = 0
            while at < all.count {  // odd pieces: the staging block, not the caller, keeps writes aligned
                let end = min(all.count, at + 333_333)
                try writer.write(UnsafeRawBufferPointer(rebasing: all[at..<end]))
                at = end
            }
            try writer.write(UnsafeRawBufferPointer(rebasing: all[0..<100]))
        }
        try writer.commit()
        #expect(try PageCache.residentPages(tmp.file("atomic")) <= 1)
        #expect(try tmp.read("atomic") == bytes + bytes[0..<100])
    }

    @Test("an aligned buffer takes what fits and refuses the rest")
    func alignedBuffer() {
        let buffer = AlignedBuffer(capacity: 5000)
        #expect(buffer.capacity == 8192)
        let chunk = Self.content(8000)
        #expect(chunk.withUnsafeBytes { buffer.append($0) })
        #expect(!chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<193])) })
        #expect(chunk.withUnsafeBytes { buffer.append(UnsafeRawBufferPointer(rebasing: $0[0..<192])) })
        #expect(buffer.isFull && Array(buffer.bytes) == chunk + chunk[0..<192])
        buffer.removeAll()
        #expect(buffer.count == 0)
        // Wiping clears the memory itself, not only the count (it may have held plaintext).
        #expect(chunk.withUnsafeBytes { buffer.append($0) })
        buffer.wipe()
        #expect(buffer.count == 0)
        _ = buffer.withUnusedCapacity { space -> Int in
            #expect(space.allSatisfy { $0 == 0 })
            return 0
        }
    }
}
