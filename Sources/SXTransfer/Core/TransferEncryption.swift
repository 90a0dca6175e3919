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

    /// Writes the encrypted file to `destination` atomically (mode 0600). `durable: false` skips the
    /// fsyncs, for a work copy that only has to survive a killed process (the relay checks every
    /// chunk's digest, so a copy damaged by a power loss is refused, never sent).
    public static func encrypt(file input: String, header: TransferFileHeader, args: CryptoFileArgs, to destination: String,
                               durable: Bool = true, progress: ProgressTracker? = nil) throws -> Result {
        let st = try POSIXFile.status(input)
        let plan = ChunkPlan(contentSize: Int64(st.st_size), header: header)
        let writer = try AtomicFileWriter(destination: destination, mode: 0o600)
        let digests = ChunkDigester(plan: plan)
        do {
            let size = try TransferFileCrypto.encrypt(file: input, header: header, encryptedSize: plan.encryptedSize, args: args, sink: {
                try writer.write($0)
                digests.update($0)
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
}

/// SHA-256 per planned chunk and SHA-512 over everything, fed with consecutive buffers.
/// Fed from one thread at a time (the encryption's writer thread), hence unchecked.
final class ChunkDigester: @unchecked Sendable {
    private let sizes: [Int64]
    private var index = 0
    private var leftInChunk: Int64
    private var chunk = SHA256Digest()
    private var file = SHA512Digest()
    private var chunkDigests: [[UInt8]] = []

    init(plan: ChunkPlan) {
        sizes = plan.sizes
        leftInChunk = plan.sizes.first ?? 0
    }

    func update(_ bytes: UnsafeRawBufferPointer) {
        file.update(bytes)
        var rest = bytes
        while rest.count > 0 {
            let n = Int(min(leftInChunk, Int64(rest.count)))
            chunk.update(UnsafeRawBufferPointer(rebasing: rest[0..<n]))
            leftInChunk -= Int64(n)
            rest = UnsafeRawBufferPointer(rebasing: rest[n...])
            if leftInChunk == 0 {
                chunkDigests.append(chunk.finish())
                chunk = SHA256Digest()
                index += 1
                leftInChunk = index < sizes.count ? sizes[index] : Int64.max
            }
        }
    }

    func finish() -> ([[UInt8]], [UInt8]) { (chunkDigests, file.finish()) }
}
