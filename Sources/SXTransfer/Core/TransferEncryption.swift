import Dispatch
import SXCore
import SXCrypto

/// Encrypts a file into its transfer form (FORMATS §7) in one streaming pass, computing the chunk
/// SHA-256s and the file SHA-512 on the way.
public enum TransferEncryption {
    public struct Result: Sendable, Equatable {
        public let plan: ChunkPlan
        public let contentSize: Int64
        /// SHA-256 of each planned chunk, in order.
        public let chunkDigests: [[UInt8]]
        /// SHA-512 of the whole encrypted file.
        public let fileDigest: [UInt8]
    }

    /// Writes the whole encrypted file to `destination` atomically (mode 0600): the form the vectors
    /// describe. `durable: false` skips the fsyncs. A send uses `stream` instead.
    public static func encrypt(file input: String, header: TransferFileHeader, args: CryptoFileArgs, to destination: String,
                               durable: Bool = true, progress: ProgressTracker? = nil) throws -> Result {
        let st = try POSIXFile.status(input)
        let plan = ChunkPlan(contentSize: Int64(st.st_size), header: header)
        let writer = try AtomicFileWriter(destination: destination, mode: 0o600)
        let digests = ChunkDigester(plan: plan)
        do {
            let size = try TransferFileCrypto.encrypt(file: input, header: header, encryptedSize: plan.encryptedSize, args: args, sink: {
                try writer.write($0)
                try digests.update($0)
            }, progress: progress)
            // The file may have changed size between the plan and the read.
            guard size == Int64(st.st_size), writer.bytesWritten == plan.encryptedSize else {
                throw CryptoFileError.changedWhileReading(path: input)
            }
            try writer.finishWriting(flush: durable)
            try writer.publish(flushFolder: durable)
            let (chunks, file) = digests.finish()
            return Result(plan: plan, contentSize: size, chunkDigests: chunks, fileDigest: file)
        } catch {
            writer.abort()
            throw error
        }
    }

    /// Encrypts `input` and hands each chunk of the plan, complete and in order, to `onChunk` with its
    /// SHA-256, without writing the encrypted file anywhere: the send uploads straight from these
    /// buffers. `onChunk` runs on the encryption's writer thread and may block (to bound the chunks in
    /// flight) or throw (to stop). The same file, header and args always give the same bytes, so a
    /// resumed send re-encrypts instead of keeping an encrypted copy on disk.
    /// `newBuffer(capacity)` supplies the array each chunk is collected in (a caller may recycle them).
    public static func stream(file input: String, header: TransferFileHeader, args: CryptoFileArgs, progress: ProgressTracker? = nil,
                              newBuffer: @escaping (Int) -> [UInt8] = { [UInt8](unsafeUninitializedCapacity: $0) { $1 = 0 } },
                              onChunk: @escaping (_ index: Int, _ bytes: [UInt8], _ digest: [UInt8]) throws -> Void) throws -> Result {
        let st = try POSIXFile.status(input)
        let plan = ChunkPlan(contentSize: Int64(st.st_size), header: header)
        let digests = ChunkDigester(plan: plan, newBuffer: newBuffer, onChunk: onChunk)
        let size = try TransferFileCrypto.encrypt(file: input, header: header, encryptedSize: plan.encryptedSize, args: args,
                                                  sink: { try digests.update($0) }, progress: progress)
        let (chunks, file) = digests.finish()
        guard size == Int64(st.st_size), chunks.count == plan.count else { throw CryptoFileError.changedWhileReading(path: input) }
        return Result(plan: plan, contentSize: size, chunkDigests: chunks, fileDigest: file)
    }
}

/// SHA-256 per planned chunk and SHA-512 over everything, fed with consecutive buffers; given
/// `onChunk`, also the bytes of each chunk, handed over as soon as the chunk is complete.
///
/// SHA-512 has no CPU instructions of its own here and is the slowest step of the whole send (about
/// 500 MB/s against 1.5 GB/s for the cipher and SHA-256), so it runs on a thread of its own, on the
/// same buffer at the same time as the SHA-256 and the copy: a buffer is done when both are.
/// Fed from one thread at a time (the encryption's writer thread), hence unchecked.
final class ChunkDigester: @unchecked Sendable {
    typealias ChunkHandler = (_ index: Int, _ bytes: [UInt8], _ digest: [UInt8]) throws -> Void

    private let sizes: [Int64]
    private var index = 0
    private var leftInChunk: Int64
    private var chunk = SHA256Digest()
    private var file = SHA512Digest()
    private var chunkDigests: [[UInt8]] = []
    private let fileHashing = DispatchQueue(label: "sxkit.transfer.sha512")
    private let onChunk: ChunkHandler?
    private let newBuffer: (Int) -> [UInt8]
    private var bytes: [UInt8] = []

    init(plan: ChunkPlan, newBuffer: @escaping (Int) -> [UInt8] = { _ in [] }, onChunk: ChunkHandler? = nil) {
        sizes = plan.sizes
        leftInChunk = plan.sizes.first ?? 0
        self.onChunk = onChunk
        self.newBuffer = newBuffer
        if onChunk != nil { bytes = newBuffer(Int(leftInChunk)) }
    }

    func update(_ buffer: UnsafeRawBufferPointer) throws {
        let shared = SharedBytes(buffer)
        let hashed = DispatchGroup()
        fileHashing.async(group: hashed) { [self] in file.update(shared.buffer) }
        defer { hashed.wait() }  // the buffer is reused once this returns
        var rest = buffer
        while rest.count > 0 {
            let n = Int(min(leftInChunk, Int64(rest.count)))
            let part = UnsafeRawBufferPointer(rebasing: rest[0..<n])
            chunk.update(part)
            if onChunk != nil { bytes.append(contentsOf: part) }
            leftInChunk -= Int64(n)
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
            if leftInChunk == 0 { try endChunk() }
        }
    }

    private func endChunk() throws {
        let digest = chunk.finish()
        chunkDigests.append(digest)
        chunk = SHA256Digest()
        if let onChunk {
            let complete = bytes
            bytes = index + 1 < sizes.count ? newBuffer(Int(sizes[index + 1])) : []
            try onChunk(index, complete, digest)
        }
        index += 1
        leftInChunk = index < sizes.count ? sizes[index] : Int64.max
    }

    func finish() -> ([[UInt8]], [UInt8]) { (chunkDigests, fileHashing.sync { file.finish() }) }
}

/// A read-only view lent to the hashing thread for exactly as long as `update` waits for it.
private struct SharedBytes: @unchecked Sendable {
    let buffer: UnsafeRawBufferPointer
    init(_ buffer: UnsafeRawBufferPointer) { self.buffer = buffer }
}
