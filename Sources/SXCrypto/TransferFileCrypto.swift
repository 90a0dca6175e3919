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
    public static let paddingByte: UInt8 = 0x23
    /// How many of a stream's first bytes can be payload size and header.
    public static let maxPrefixBytes = TransferFileHeader.maxPrefixBytes

    /// The layout a decrypted stream's first bytes (up to `maxPrefixBytes`) announce: how long its
    /// payload size and header are together, and how many content bytes follow. Nil when they do not
    /// start a stream of `encryptedSize` bytes.
    public static func layout(ofStreamStart head: [UInt8], encryptedSize: Int64) -> (prefixLength: Int, contentSize: Int64)? {
        guard head.count > 8 else { return nil }
        let payloadSize = head[0..<8].reduce(Int64(0)) { $0 << 8 | Int64($1) }
        guard case .complete(_, let length) = TransferFileHeader.parse(head[8...]),
              payloadSize >= Int64(length), payloadSize <= encryptedSize - overhead else { return nil }
        return (8 + length, payloadSize - Int64(length))
    }

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
        var cipher = SecretBoxStream(args: args)

        var prefix = bigEndian(payloadSize) + headerBytes
        prefix.withUnsafeMutableBytes { cipher.seal($0) }
        try prefix.withUnsafeBytes { try sink($0) }

        try StreamPipeline.seal(fd: fd, path: input, length: size, fileSize: size, box: &cipher, sink: sink, progress: progress)

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
            let reader = try SegmentReader(segments, consuming: consumingSegments)
            defer { reader.close() }
            guard reader.totalSize == encryptedSize, encryptedSize >= overhead + 2 else {
                throw TransferFileError.wrongEncryptedSize(path: name, expected: encryptedSize, actual: reader.totalSize)
            }
            let cipher = SecretBoxStream(args: args)
            var mac = cipher.authenticator
            let keystream = HandedOver(cipher.keystream)
            // Four stages, each on its own thread, a few buffers apart: reading the chunks (around the
            // page cache, at the disk's speed), authenticating the ciphertext (here), decrypting (the
            // two halves of the secret box cost about the same), and writing the plaintext (an
            // O_DIRECT write blocks for the disk's time, so it does not share the decrypting thread).
            let behind = PlaintextWriter(parser: PlaintextParser(bodyLength: encryptedSize - Int64(tagLength), path: name), output: output)
            let ring = ReadAhead(reader: reader, bodyLength: encryptedSize - Int64(tagLength))
            let decrypting = DispatchQueue(label: "sxkit.transfer.decrypt-behind")
            let writing = DispatchQueue(label: "sxkit.transfer.write-behind")
            defer {
                ring.stop()
                decrypting.sync {}  // drain both stages, in order, before the buffers go away
                writing.sync {}
                ring.release()
            }
            ring.start()
            while let slot = try ring.next() {
                if let failure = behind.writeFailure { throw failure }
                mac.update(UnsafeRawBufferPointer(slot))
                let shared = SharedSlice(bytes: slot)
                decrypting.async {
                    keystream.value.xor(shared.bytes)
                    writing.async {
                        behind.consume(UnsafeRawBufferPointer(shared.bytes))
                        progress?.addBytes(Int64(shared.bytes.count))
                        ring.recycle()
                    }
                }
            }
            decrypting.sync {}
            writing.sync {}
            if let failure = behind.writeFailure { throw failure }
            guard mac.verify(try ring.tag()) else { throw TransferFileError.invalidAuthTag(path: name) }
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
final class PlaintextWriter: @unchecked Sendable {
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
    let bytes: UnsafeMutableRawBufferPointer
}

/// Splits the decrypted stream into payload size, header, content (written out) and padding (checked).
struct PlaintextParser {
    let bodyLength: Int64
    let path: String
    private var prefix: [UInt8] = []
    private var header: TransferFileHeader?
    private var contentLeft: Int64 = 0
    /// Content bytes the output holds already (a resumed receive's kept plaintext): parsed, not written.
    private var alreadyWritten: Int64

    init(bodyLength: Int64, path: String, alreadyWritten: Int64 = 0) {
        self.bodyLength = bodyLength
        self.path = path
        self.alreadyWritten = alreadyWritten
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
                let kept = Int(min(alreadyWritten, Int64(n)))
                alreadyWritten -= Int64(kept)
                if kept < n { try output.write(UnsafeRawBufferPointer(rebasing: bytes[(i + kept)..<(i + n)])) }
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

/// Reads ahead of the decryption on a thread of its own: fills `depth` page-aligned buffers in turn
/// with the body (everything but the tag), then reads the tag. The decryption takes the buffers in
/// order (`next`) and the plaintext writer hands each back (`recycle`) once written.
private final class ReadAhead: @unchecked Sendable {
    static let depth = 8
    static let bufferSize = 1 << 20

    private let reader: SegmentReader
    private let bodyLength: Int64
    private let memory = UnsafeMutableRawBufferPointer.allocate(byteCount: depth * bufferSize, alignment: POSIXFile.directAlignment)
    private let free = DispatchSemaphore.slots(depth)
    private let filled = DispatchSemaphore(value: 0)
    private let done = DispatchGroup()
    private let stopped = Atomic<Bool>(false)
    /// Written by the reading thread before it signals `filled`, read after waiting on it.
    private var lengths = [Int](repeating: 0, count: depth)
    private var failure: (any Error)?
    private var tagBytes = [UInt8](repeating: 0, count: TransferFileCrypto.tagLength)
    private var taken = 0

    init(reader: SegmentReader, bodyLength: Int64) {
        self.reader = reader
        self.bodyLength = bodyLength
    }

    func start() {
        DispatchQueue.global().async(group: done) { [self] in
            var remaining = bodyLength
            var slot = 0
            do {
                while remaining > 0 {
                    free.wait()
                    if stopped.load(ordering: .acquiring) { return }
                    let want = Int(min(remaining, Int64(Self.bufferSize)))
                    try reader.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: memory[(slot * Self.bufferSize)..<(slot * Self.bufferSize + want)]))
                    lengths[slot] = want
                    remaining -= Int64(want)
                    slot = (slot + 1) % Self.depth
                    filled.signal()
                }
                try tagBytes.withUnsafeMutableBytes { try reader.readExactly(into: $0) }
            } catch {
                failure = error
            }
            filled.signal()  // the end: no more buffers, or a failure
        }
    }

    /// The next filled buffer in order, nil after the last one; throws what reading failed with.
    func next() throws -> UnsafeMutableRawBufferPointer? {
        filled.wait()
        let slot = taken % Self.depth
        if let failure { throw failure }
        guard Int64(taken) * Int64(Self.bufferSize) < bodyLength else { return nil }
        taken += 1
        return UnsafeMutableRawBufferPointer(rebasing: memory[(slot * Self.bufferSize)..<(slot * Self.bufferSize + lengths[slot])])
    }

    /// The tag, after `next` returned nil.
    func tag() throws -> [UInt8] {
        if let failure { throw failure }
        return tagBytes
    }

    /// A buffer is written: the reader may fill it again.
    func recycle() { free.signal() }

    /// Makes the reading thread stop at its next buffer.
    func stop() {
        stopped.store(true, ordering: .releasing)
        free.signal()
    }

    /// After `stop` and after the writer drained: waits for the reading thread, then wipes and frees.
    func release() {
        done.wait()
        Wipe.bytes(memory)
        memory.deallocate()
    }
}

/// Reads several files as one stream, front to back, around the page cache where the file system
/// allows it (the chunks were written that way, and each is read once).
private final class SegmentReader: @unchecked Sendable {
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
                if !POSIXFile.setDirect(fd, true) { POSIXFile.adviseSequential(fd) }
                fds.append((fd, path))
                totalSize += size
            }
        } catch {
            close()
            throw error
        }
    }

    func readExactly(into buffer: UnsafeMutableRawBufferPointer) throws {
        var done = 0
        while done < buffer.count {
            guard index < fds.count else { throw CryptoFileError.changedWhileReading(path: fds.last?.path ?? "<no chunks>") }
            let n = try POSIXFile.readDirect(fds[index].fd, into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), path: fds[index].path)
            done += n
            if n == 0 {  // this segment is read to its end
                if consuming { unlink(fds[index].path); Glibc.close(fds[index].fd); fds[index].fd = -1 }
                index += 1
                // A receive killed here leaves partial plaintext in its temp file (the crash tests').
                if consuming { CrashPoint.reach("transfer-receive-consumed-chunk") }
            }
        }
    }

    func close() {
        for entry in fds where entry.fd >= 0 { Glibc.close(entry.fd) }
        fds = []
    }
}
