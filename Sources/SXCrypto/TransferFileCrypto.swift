import Dispatch
import Synchronization
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Transfer-file encryption (FORMATS §7): the stream `payloadSize (8 bytes BE) || H || content || '#'…`
/// encrypted like a CryptoFile, tag last, exactly `encryptedSize` bytes (the chunk plan's sum).
/// Both directions stream in bounded memory.
public enum TransferFileCrypto {
    public static let tagLength = 16
    /// The 8-byte payload size and the tag: what the stream adds besides header and padding.
    public static let overhead: Int64 = 8 + 16
    static let paddingByte: UInt8 = 0x23

    /// Encrypts `input` and hands the ciphertext, in order, to `sink` (called from one thread at a
    /// time, possibly not the caller's). Returns the content size.
    @discardableResult
    public static func encrypt(file input: String, header: TransferFileHeader, encryptedSize: Int64, args: CryptoFileArgs,
                               sink: @escaping @Sendable (UnsafeRawBufferPointer) throws -> Void,
                               progress: ProgressTracker? = nil) throws -> Int64 {
        let (fd, size) = try CryptoFile.openRegular(input)
        defer { close(fd) }
        let headerBytes = header.bytes
        let payloadSize = Int64(headerBytes.count) + size
        let padding = encryptedSize - overhead - payloadSize
        guard padding >= 0 else { throw TransferFileError.wrongEncryptedSize(path: input, expected: payloadSize + overhead, actual: encryptedSize) }
        var cipher = XSalsa20Poly1305Stream(args: args)

        var prefix = bigEndian(payloadSize) + headerBytes
        prefix.withUnsafeMutableBytes { cipher.seal($0) }
        try prefix.withUnsafeBytes { try sink($0) }

        try StreamPipeline.run(fd: fd, path: input, length: size, fileSize: size, sink: sink, progress: progress) { cipher.seal($0) }

        var pad = [UInt8](repeating: paddingByte, count: Int(min(padding, 1 << 16)))
        var remaining = padding
        while remaining > 0 {
            let n = Int(min(remaining, Int64(pad.count)))
            for i in 0..<n { pad[i] = paddingByte }
            try pad.withUnsafeMutableBytes { all in
                let slice = UnsafeMutableRawBufferPointer(rebasing: all[0..<n])
                cipher.seal(slice)
                try sink(UnsafeRawBufferPointer(slice))
            }
            remaining -= Int64(n)
        }
        try cipher.tag().withUnsafeBytes { try sink($0) }
        return size
    }

    /// Decrypts the encrypted file given as consecutive `segments` (the downloaded chunks, in order)
    /// into `output`, checking the layout, the padding and, at the end, the tag. On any failure `output`
    /// is aborted, so its temp file — the only place plaintext ever was — is gone and nothing is
    /// published. Returns the header; the caller commits `output`.
    ///
    /// `consumingSegments`: each segment is deleted as soon as it has been read, so the plaintext
    /// reuses its disk space and its page-cache pages at once (a 1 GiB receive peaks at 1 GiB of
    /// chunks, not 2 GiB in all). After a failure here the deleted segments have to be fetched again.
    public static func decrypt(segments: [String], encryptedSize: Int64, args: CryptoFileArgs, to output: AtomicFileWriter,
                               consumingSegments: Bool = false, progress: ProgressTracker? = nil) throws -> TransferFileHeader {
        let name = segments.last ?? "<no chunks>"
        do {
            var reader = try SegmentReader(segments, consuming: consumingSegments)
            defer { reader.close() }
            guard reader.totalSize == encryptedSize, encryptedSize >= overhead + 2 else {
                throw TransferFileError.wrongEncryptedSize(path: name, expected: encryptedSize, actual: reader.totalSize)
            }
            var cipher = XSalsa20Poly1305Stream(args: args)
            // Plaintext goes to `output` on a thread of its own, a few buffers behind the cipher
            // (reading, decrypting and writing each cost about the same here).
            let behind = PlaintextWriter(parser: PlaintextParser(bodyLength: encryptedSize - Int64(tagLength), path: name), output: output)
            let depth = 4, bufferSize = 1 << 20
            let pool = UnsafeMutableRawBufferPointer.allocate(byteCount: depth * bufferSize, alignment: 64)
            let queue = DispatchQueue(label: "sxkit.transfer.write-behind")
            let free = DispatchSemaphore(value: depth)
            defer {
                queue.sync {}  // drain before the buffers go away
                Wipe.bytes(pool)
                pool.deallocate()
            }
            var remaining = encryptedSize - Int64(tagLength)
            var slot = 0
            while remaining > 0 {
                free.wait()
                if let failure = behind.writeFailure { free.signal(); throw failure }
                let want = Int(min(remaining, Int64(bufferSize)))
                let slice = UnsafeMutableRawBufferPointer(rebasing: pool[(slot * bufferSize)..<(slot * bufferSize + want)])
                do { try reader.readExactly(into: slice) } catch { free.signal(); throw error }
                cipher.open(slice)
                let shared = SharedSlice(bytes: UnsafeRawBufferPointer(slice))
                queue.async {
                    behind.consume(shared.bytes)
                    progress?.addBytes(Int64(shared.bytes.count))
                    free.signal()
                }
                remaining -= Int64(want)
                slot = (slot + 1) % depth
            }
            queue.sync {}
            if let failure = behind.writeFailure { throw failure }
            var tag = [UInt8](repeating: 0, count: tagLength)
            try tag.withUnsafeMutableBytes { try reader.readExactly(into: $0) }
            guard cipher.verify(tag) else { throw TransferFileError.invalidAuthTag(path: name) }
            return try behind.finish()
        } catch {
            output.abort()
            throw error
        }
    }

    public static func bigEndian(_ value: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: UInt64(bitPattern: value) >> (56 - 8 * UInt64($0))) }
    }
}

/// The parser and its output on the write-behind thread. The tag is the authority: a layout problem
/// found before it is checked is kept and reported only if the tag matches (a tampered file reads
/// as "invalid auth tag", not as bad padding); a write failure (disk full) stops everything at once.
private final class PlaintextWriter: @unchecked Sendable {
    private var parser: PlaintextParser
    private let output: AtomicFileWriter
    private var layoutError: TransferFileError?
    private let failure = Mutex<(any Error)?>(nil)

    init(parser: PlaintextParser, output: AtomicFileWriter) {
        self.parser = parser
        self.output = output
    }

    var writeFailure: (any Error)? { failure.withLock { $0 } }

    /// On the write-behind thread only.
    func consume(_ bytes: UnsafeRawBufferPointer) {
        guard layoutError == nil, writeFailure == nil else { return }
        do {
            try parser.consume(bytes, output: output)
        } catch let error as TransferFileError {
            layoutError = error
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// After the write-behind thread drained.
    func finish() throws -> TransferFileHeader {
        if let layoutError { throw layoutError }
        return try parser.finish()
    }
}

private struct SharedSlice: @unchecked Sendable {
    let bytes: UnsafeRawBufferPointer
}

/// Splits the decrypted stream into payload size, header, content (written out) and padding (checked).
private struct PlaintextParser {
    let bodyLength: Int64
    let path: String
    private var prefix: [UInt8] = []
    private var header: TransferFileHeader?
    private var contentLeft: Int64 = 0

    init(bodyLength: Int64, path: String) {
        self.bodyLength = bodyLength
        self.path = path
    }

    mutating func consume(_ bytes: UnsafeRawBufferPointer, output: AtomicFileWriter) throws {
        var i = 0
        while i < bytes.count {
            if header == nil {
                prefix.append(bytes[i])
                i += 1
                try parsePrefix()
            } else if contentLeft > 0 {
                let n = Int(min(contentLeft, Int64(bytes.count - i)))
                try output.write(UnsafeRawBufferPointer(rebasing: bytes[i..<(i + n)]))
                contentLeft -= Int64(n)
                i += n
            } else {
                // Padding: every remaining byte must be '#'.
                for j in i..<bytes.count where bytes[j] != TransferFileCrypto.paddingByte {
                    throw TransferFileError.invalidPadding(path: path)
                }
                i = bytes.count
            }
        }
    }

    private mutating func parsePrefix() throws {
        guard prefix.count > 8 else { return }
        let payloadSize = prefix[0..<8].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard payloadSize >= 2, payloadSize <= bodyLength - 8 else {
            throw TransferFileError.invalidLayout(path: path, reason: "its payload size \(payloadSize) does not fit its \(bodyLength + 16) bytes")
        }
        switch TransferFileHeader.parse(prefix[8...]) {
        case .needMore:
            if prefix.count >= TransferFileHeader.maxPrefixBytes { throw TransferFileError.invalidLayout(path: path, reason: "its header is too long") }
        case .invalid(let reason):
            throw TransferFileError.invalidLayout(path: path, reason: reason)
        case .complete(let parsed, let length):
            guard Int64(length) <= payloadSize else {
                throw TransferFileError.invalidLayout(path: path, reason: "its header is longer than its payload")
            }
            header = parsed
            contentLeft = payloadSize - Int64(length)
            prefix = []
        }
    }

    func finish() throws -> TransferFileHeader {
        guard let header, contentLeft == 0 else { throw TransferFileError.invalidLayout(path: path, reason: "it ends inside its payload") }
        return header
    }
}

/// Reads several files as one stream, front to back.
private struct SegmentReader {
    private var fds: [(fd: Int32, path: String)] = []
    private var index = 0
    private(set) var totalSize: Int64 = 0
    /// Delete each segment once it has been read to its end.
    private let consuming: Bool

    init(_ paths: [String], consuming: Bool = false) throws {
        self.consuming = consuming
        do {
            for path in paths {
                let (fd, size) = try CryptoFile.openRegular(path)
                POSIXFile.adviseSequential(fd)
                fds.append((fd, path))
                totalSize += size
            }
        } catch {
            close()
            throw error
        }
    }

    mutating func readExactly(into buffer: UnsafeMutableRawBufferPointer) throws {
        var done = 0
        while done < buffer.count {
            guard index < fds.count else { throw CryptoFileError.changedWhileReading(path: fds.last?.path ?? "<no chunks>") }
            let n = try POSIXFile.read(fds[index].fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), path: fds[index].path)
            done += n
            if n == 0 {  // this segment is read to its end
                if consuming { unlink(fds[index].path); Glibc.close(fds[index].fd); fds[index].fd = -1 }
                index += 1
            }
        }
    }

    mutating func close() {
        for entry in fds where entry.fd >= 0 { Glibc.close(entry.fd) }
        fds = []
    }
}
