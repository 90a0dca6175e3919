import Foundation
import NIOCore
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// `length` bytes of a file from `offset`, as ByteBuffers of up to `bufferSize`, read on demand: the
/// HTTP client asks for the next one only when the connection can take it, so an upload holds a
/// couple of buffers in memory, never the whole chunk.
struct FileRangeBytes: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let path: String
    let offset: Int64
    let length: Int64
    let bufferSize: Int

    func makeAsyncIterator() -> Iterator {
        Iterator(path: path, position: offset, remaining: length, bufferSize: bufferSize)
    }

    final class Iterator: AsyncIteratorProtocol {
        private let path: String
        private var position: Int64
        private var remaining: Int64
        private let bufferSize: Int
        private var fd: Int32 = -1

        init(path: String, position: Int64, remaining: Int64, bufferSize: Int) {
            self.path = path
            self.position = position
            self.remaining = remaining
            self.bufferSize = bufferSize
        }

        deinit { if fd >= 0 { close(fd) } }

        func next() async throws -> ByteBuffer? {
            guard remaining > 0 else {
                if fd >= 0 { close(fd); fd = -1 }
                return nil
            }
            if fd < 0 {
                fd = try POSIXFile.open(path, flags: O_RDONLY)
                POSIXFile.adviseSequential(fd)
            }
            let want = Int(Swift.min(Int64(bufferSize), remaining))
            var buffer = ByteBufferAllocator().buffer(capacity: want)
            let (fd, position, path) = (self.fd, self.position, self.path)
            let got = try buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: want) { space in
                try POSIXFile.pread(fd, into: UnsafeMutableRawBufferPointer(rebasing: space[0..<want]), at: position, path: path)
            }
            // The file shrank since the upload started: stop rather than send a short body.
            guard got == want else { throw FileSystemError("read", path: path, code: EIO) }
            self.position += Int64(got)
            remaining -= Int64(got)
            return buffer
        }
    }
}

/// A chunk already in memory, as ByteBuffers of up to `bufferSize`, copied one at a time as the
/// connection takes them: one 4 MiB copy per upload would land in the heap arena of whichever
/// event-loop thread frees it, and a few such arenas hold far more memory than the chunks in flight.
struct MemoryBytes: AsyncSequence, Sendable {
    typealias Element = ByteBuffer

    let bytes: [UInt8]
    let bufferSize: Int

    func makeAsyncIterator() -> Iterator { Iterator(bytes: bytes, bufferSize: bufferSize) }

    struct Iterator: AsyncIteratorProtocol {
        let bytes: [UInt8]
        let bufferSize: Int
        var position = 0

        mutating func next() async throws -> ByteBuffer? {
            guard position < bytes.count else { return nil }
            let end = Swift.min(bytes.count, position + bufferSize)
            defer { position = end }
            return ByteBuffer(bytes: bytes[position..<end])
        }
    }
}
