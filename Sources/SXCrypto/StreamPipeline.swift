import Dispatch
import Synchronization
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Streams exactly `length` bytes of a file through an in-place transform and on to a sink, in
/// bounded memory. The sink runs on its own thread a few buffers behind, so the cipher work on
/// this thread overlaps the writes (on this class of machine the two cost about the same).
enum StreamPipeline {
    static let bufferSize = 1 << 20
    static let depth = 4

    typealias Sink = @Sendable (UnsafeRawBufferPointer) throws -> Void

    /// - Parameter fileSize: the whole file's size when the stream began; a file found longer at
    ///   the end was being appended to and is refused.
    static func run(fd: Int32, path: String, length: Int64, fileSize: Int64, sink: Sink?, progress: ProgressTracker?,
                    transform: (UnsafeMutableRawBufferPointer) -> Void) throws {
        POSIXFile.adviseSequential(fd)
        if length <= Int64(bufferSize) || sink == nil {
            try runInline(fd: fd, path: path, length: length, sink: sink, progress: progress, transform: transform)
        } else {
            try runBehind(fd: fd, path: path, length: length, sink: sink!, progress: progress, transform: transform)
        }
        // The file must end where its size said it would: a writer still appending is caught here.
        var probe: UInt8 = 0
        if Glibc.pread(fd, &probe, 1, off_t(fileSize)) > 0 { throw CryptoFileError.changedWhileReading(path: path) }
    }

    private static func runInline(fd: Int32, path: String, length: Int64, sink: Sink?, progress: ProgressTracker?,
                                  transform: (UnsafeMutableRawBufferPointer) -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, Int(min(length, Int64(bufferSize)))), alignment: 64)
        defer { Wipe.bytes(buffer); buffer.deallocate() }
        var remaining = length
        while remaining > 0 {
            let want = Int(min(remaining, Int64(buffer.count)))
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])
            guard try POSIXFile.read(fd, into: slice, path: path) == want else { throw CryptoFileError.changedWhileReading(path: path) }
            transform(slice)
            try sink?(UnsafeRawBufferPointer(slice))
            progress?.addBytes(Int64(want))
            remaining -= Int64(want)
        }
    }

    /// Buffers rotate through `depth` slots; a slot is reused only after its write finished.
    private static func runBehind(fd: Int32, path: String, length: Int64, sink: @escaping Sink, progress: ProgressTracker?,
                                  transform: (UnsafeMutableRawBufferPointer) -> Void) throws {
        let pool = BufferPool(count: depth, size: bufferSize)
        let queue = DispatchQueue(label: "sxkit.write-behind")
        let free = DispatchSemaphore(value: depth)
        let failure = Mutex<(any Error)?>(nil)
        defer {
            queue.sync {}  // drain before the buffers go away
            pool.release()
        }
        var remaining = length
        var slot = 0
        while remaining > 0 {
            free.wait()
            if let error = failure.withLock({ $0 }) { free.signal(); throw error }
            let want = Int(min(remaining, Int64(bufferSize)))
            let slice = pool.slice(slot, count: want)
            guard try POSIXFile.read(fd, into: slice.buffer, path: path) == want else {
                free.signal()
                throw CryptoFileError.changedWhileReading(path: path)
            }
            transform(slice.buffer)
            queue.async {
                if failure.withLock({ $0 == nil }) {
                    do { try sink(UnsafeRawBufferPointer(slice.buffer)) } catch { failure.withLock { $0 = error } }
                }
                progress?.addBytes(Int64(want))
                free.signal()
            }
            remaining -= Int64(want)
            slot = (slot + 1) % depth
        }
        queue.sync {}
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

/// Fixed buffers shared with the writer thread; ownership passes by the semaphore protocol above.
private final class BufferPool: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    private let size: Int

    init(count: Int, size: Int) {
        self.size = size
        storage = .allocate(byteCount: count * size, alignment: 64)
    }

    func slice(_ index: Int, count: Int) -> SendableBuffer {
        SendableBuffer(buffer: UnsafeMutableRawBufferPointer(rebasing: storage[(index * size)..<(index * size + count)]))
    }

    func release() {
        Wipe.bytes(storage)
        storage.deallocate()
    }
}

private struct SendableBuffer: @unchecked Sendable {
    let buffer: UnsafeMutableRawBufferPointer
}
