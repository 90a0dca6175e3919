import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Decrypts an encrypted transfer file (FORMATS §7) handed over in order, in pieces of any size, as
/// they arrive: a receive decrypts each chunk while later ones are still downloading, instead of
/// reading every chunk back from disk once the download is over.
///
/// The same checks as `TransferFileCrypto.decrypt`: layout, padding and, in `finish`, the tag, which
/// is the authority (a layout problem is reported only once the tag matches). Plaintext goes only to
/// `output`, whose temp file the caller aborts on any failure, so nothing unverified is published.
///
/// Not thread-safe: one thread at a time, in stream order.
public final class TransferFileDecryptor: @unchecked Sendable {
    private static let pieceSize = 1 << 20

    private let name: String
    private let bodyLength: Int64
    private let encryptedSize: Int64
    private var keystream: SecretBoxStream.Keystream
    private var mac: SecretBoxStream.Authenticator
    private let writer: PlaintextWriter
    private let progress: ProgressTracker?
    /// Allocated only once nothing in `init` can throw any more: a class whose `init` throws
    /// before it is whole gets no `deinit`, so a refused size leaked the megabyte (found by fuzzing).
    private let scratch: UnsafeMutableRawBufferPointer
    private var tagBytes: [UInt8] = []
    private var received: Int64 = 0

    /// - Parameter name: names the file in errors.
    /// - Parameter contentAlreadyWritten: the first content bytes `output` holds already (a resumed
    ///   receive's kept plaintext, taken over by `output`): the stream is parsed and authenticated from
    ///   its start as usual, but those bytes are not written again.
    public init(encryptedSize: Int64, args: CryptoFileArgs, output: AtomicFileWriter, name: String, progress: ProgressTracker? = nil,
                contentAlreadyWritten: Int64 = 0) throws {
        guard encryptedSize >= TransferFileCrypto.overhead + 2 else {
            throw TransferFileError.wrongEncryptedSize(path: name, expected: TransferFileCrypto.overhead + 2, actual: encryptedSize)
        }
        self.name = name
        self.encryptedSize = encryptedSize
        bodyLength = encryptedSize - Int64(TransferFileCrypto.tagLength)
        let cipher = SecretBoxStream(args: args)
        keystream = cipher.keystream
        mac = cipher.authenticator
        writer = PlaintextWriter(parser: PlaintextParser(bodyLength: bodyLength, path: name, alreadyWritten: contentAlreadyWritten), output: output)
        self.progress = progress
        scratch = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.pieceSize, alignment: 64)
    }

    deinit {
        Wipe.bytes(scratch)
        scratch.deallocate()
    }

    /// The next ciphertext bytes. Throws on a write failure (a full disk) and on more bytes than the
    /// file has; layout problems wait for the tag.
    public func consume(_ ciphertext: UnsafeRawBufferPointer) throws {
        guard ciphertext.count > 0 else { return }
        let (total, overflow) = received.addingReportingOverflow(Int64(ciphertext.count))
        guard !overflow, total <= encryptedSize else {
            throw TransferFileError.wrongEncryptedSize(path: name, expected: encryptedSize, actual: overflow ? .max : total)
        }
        var offset = 0
        while offset < ciphertext.count {
            if received < bodyLength {
                let n = Int(min(Int64(Self.pieceSize), bodyLength - received, Int64(ciphertext.count - offset)))
                let piece = UnsafeRawBufferPointer(rebasing: ciphertext[offset..<(offset + n)])
                mac.update(piece)
                let plain = UnsafeMutableRawBufferPointer(rebasing: scratch[0..<n])
                plain.copyMemory(from: piece)
                keystream.xor(plain)
                writer.consume(UnsafeRawBufferPointer(plain))
                if let failure = writer.writeFailure { throw failure }
                progress?.addBytes(Int64(n))
                received += Int64(n)
                offset += n
            } else {
                tagBytes += ciphertext[offset...]
                received += Int64(ciphertext.count - offset)
                offset = ciphertext.count
            }
        }
    }

    /// After the last byte: checks the size, the tag, then the layout; returns the file's header.
    public func finish() throws -> TransferFileHeader {
        guard received == encryptedSize else {
            throw TransferFileError.wrongEncryptedSize(path: name, expected: encryptedSize, actual: received)
        }
        if let failure = writer.writeFailure { throw failure }
        guard mac.verify(tagBytes) else { throw TransferFileError.invalidAuthTag(path: name) }
        return try writer.finish()
    }
}
