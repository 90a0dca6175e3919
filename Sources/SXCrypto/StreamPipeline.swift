import Dispatch
import Synchronization
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Streams exactly `length` bytes of a file through an in-place transform and on to a sink, in
/// bounded memory. The sink runs on its own thread a few buffers behind, so the cipher work on
/// this thread overlaps the writes. A second in-place stage, `behind`, runs on a third thread,
/// between the two: a secret-box stream puts one of its halves there (the MAC after encrypting,
/// the keystream after authenticating), since each half costs about as much as the other
/// (measured 0.48 s and 0.46 s a GiB here), so two cores share the work instead of one doing both.
/// It has a thread of its own, not the sink's, because an O_DIRECT write blocks for the disk's
/// time (0.43 s a GiB here): the MAC and the write on one thread took as long as the whole stream.
enum StreamPipeline {
    static let bufferSize = 1 << 20
    static let depth = 4

    typealias Sink = @Sendable (UnsafeRawBufferPointer) throws -> Void
    /// Runs on a thread of its own, in buffer order, before the sink sees the buffer.
    typealias Behind = @Sendable (UnsafeMutableRawBufferPointer) -> Void

    /// - Parameter fileSize: the whole file's size when the stream began; a file found longer at
    ///   the end was being appended to and is refused.
    static func run(fd: Int32, path: String, length: Int64, fileSize: Int64, sink: Sink?, progress: ProgressTracker?,
                    behind: Behind? = nil, transform: (UnsafeMutableRawBufferPointer) -> Void) throws {
        POSIXFile.adviseSequential(fd)
        if length <= Int64(bufferSize) || sink == nil {
            try runInline(fd: fd, path: path, length: length, sink: sink, progress: progress, behind: behind, transform: transform)
        } else {
            try runBehind(fd: fd, path: path, length: length, sink: sink!, progress: progress, behind: behind, transform: transform)
        }
        // The file must end where its size said it would: a writer still appending is caught here.
        var probe: UInt8 = 0
        if Glibc.pread(fd, &probe, 1, off_t(fileSize)) > 0 { throw CryptoFileError.changedWhileReading(path: path) }
    }

    private static func runInline(fd: Int32, path: String, length: Int64, sink: Sink?, progress: ProgressTracker?,
                                  behind: Behind?, transform: (UnsafeMutableRawBufferPointer) -> Void) throws {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(1, Int(min(length, Int64(bufferSize)))), alignment: 64)
        defer { Wipe.bytes(buffer); buffer.deallocate() }
        var remaining = length
        while remaining > 0 {
            let want = Int(min(remaining, Int64(buffer.count)))
            let slice = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want])
            guard try POSIXFile.read(fd, into: slice, path: path) == want else { throw CryptoFileError.changedWhileReading(path: path) }
            transform(slice)
            behind?(slice)
            try sink?(UnsafeRawBufferPointer(slice))
            progress?.addBytes(Int64(want))
            remaining -= Int64(want)
        }
    }

    /// Buffers rotate through `depth` slots; a slot is reused only after its write finished.
    private static func runBehind(fd: Int32, path: String, length: Int64, sink: @escaping Sink, progress: ProgressTracker?,
                                  behind: Behind?, transform: (UnsafeMutableRawBufferPointer) -> Void) throws {
        let pool = BufferPool(count: depth, size: bufferSize)
        let middle = DispatchQueue(label: "sxkit.pipeline-behind")
        let queue = DispatchQueue(label: "sxkit.write-behind")
        let free = DispatchSemaphore.slots(depth)
        let failure = Mutex<(any Error)?>(nil)
        defer {
            middle.sync {}  // drain both stages, in order, before the buffers go away
            queue.sync {}
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
            let write: @Sendable () -> Void = {
                if failure.withLock({ $0 == nil }) {
                    do { try sink(UnsafeRawBufferPointer(slice.buffer)) } catch { failure.withLock { $0 = error } }
                }
                progress?.addBytes(Int64(want))
                free.signal()
            }
            if let behind {
                middle.async {
                    if failure.withLock({ $0 == nil }) { behind(slice.buffer) }
                    queue.async(execute: write)
                }
            } else {
                queue.async(execute: write)
            }
            remaining -= Int64(want)
            slot = (slot + 1) % depth
        }
        middle.sync {}
        queue.sync {}
        if let error = failure.withLock({ $0 }) { throw error }
    }
}

extension StreamPipeline {
    /// `run` that encrypts with `box`: the keystream on this thread, the MAC behind, on a thread of its own.
    static func seal(fd: Int32, path: String, length: Int64, fileSize: Int64, box: inout SecretBoxStream, sink: Sink?,
                     progress: ProgressTracker?) throws {
        var keystream = box.keystream
        let mac = HandedOver(box.authenticator)
        try run(fd: fd, path: path, length: length, fileSize: fileSize, sink: sink, progress: progress,
                behind: { mac.value.update(UnsafeRawBufferPointer($0)) }) { keystream.xor($0) }
        box = SecretBoxStream(keystream: keystream, authenticator: mac.value)
    }

    /// `run` that decrypts with `box`: the MAC on this thread, over the ciphertext as read, the
    /// keystream behind, on a thread of its own.
    static func open(fd: Int32, path: String, length: Int64, fileSize: Int64, box: inout SecretBoxStream, sink: Sink?,
                     progress: ProgressTracker?) throws {
        var mac = box.authenticator
        let keystream = HandedOver(box.keystream)
        try run(fd: fd, path: path, length: length, fileSize: fileSize, sink: sink, progress: progress,
                behind: { keystream.value.xor($0) }) { mac.update(UnsafeRawBufferPointer($0)) }
        box = SecretBoxStream(keystream: keystream.value, authenticator: mac)
    }
}

/// State a `Behind` stage owns while the pipeline runs: only that stage's serial queue touches it
/// then, in order, and the caller reads it back only after `run` returned (its queues drained).
final class HandedOver<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
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
