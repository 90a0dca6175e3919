import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// CryptoFile encryption at rest (FORMATS §6): ciphertext followed by a 16-byte Poly1305 tag.
/// Everything streams in bounded memory; no plaintext reaches a destination before its tag checks.
public enum CryptoFile {
    public static let tagLength = 16

    /// Encrypts the file at `input` into `output` (not committed: the caller decides when to
    /// publish). Returns the plaintext size.
    @discardableResult
    public static func encrypt(file input: String, to output: AtomicFileWriter, args: CryptoFileArgs,
                               progress: ProgressTracker? = nil) throws -> Int64 {
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        var cipher = XSalsa20Poly1305Stream(args: args)
        try StreamPipeline.run(fd: fd, path: input, length: size, fileSize: size, sink: { try output.write($0) }, progress: progress) {
            cipher.seal($0)
        }
        try output.write(cipher.tag())
        return size
    }

    /// Decrypts `input` into `output` and checks the tag. On any failure `output` is aborted, so
    /// its temp file — the only place unverified plaintext ever was — is gone. Returns the
    /// plaintext size.
    @discardableResult
    public static func decrypt(file input: String, to output: AtomicFileWriter, args: CryptoFileArgs,
                               progress: ProgressTracker? = nil) throws -> Int64 {
        do {
            let (fd, size) = try openRegular(input)
            defer { close(fd) }
            let tag = try readTag(fd, size: size, path: input)
            var cipher = XSalsa20Poly1305Stream(args: args)
            try StreamPipeline.run(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size, sink: { try output.write($0) },
                                   progress: progress) { cipher.open($0) }
            guard cipher.verify(tag) else { throw CryptoFileError.invalidAuthTag(path: input) }
            return size - Int64(tagLength)
        } catch {
            output.abort()
            throw error
        }
    }

    /// Checks the tag without writing anything. Returns the plaintext size.
    @discardableResult
    public static func verify(file input: String, args: CryptoFileArgs, progress: ProgressTracker? = nil) throws -> Int64 {
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        let tag = try readTag(fd, size: size, path: input)
        var cipher = XSalsa20Poly1305Stream(args: args)
        try StreamPipeline.run(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size, sink: nil, progress: progress) {
            cipher.authenticate(UnsafeRawBufferPointer($0))
        }
        guard cipher.verify(tag) else { throw CryptoFileError.invalidAuthTag(path: input) }
        return size - Int64(tagLength)
    }

    /// Writes the plaintext to a descriptor (e.g. stdout). A stream cannot be taken back, so the
    /// tag is verified in a first pass and nothing is written for a tampered file; the second pass
    /// checks again and reports a file that changed in between.
    public static func decrypt(file input: String, toDescriptor out: Int32, args: CryptoFileArgs) throws {
        try verify(file: input, args: args)
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        let tag = try readTag(fd, size: size, path: input)
        var cipher = XSalsa20Poly1305Stream(args: args)
        try StreamPipeline.run(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size,
                               sink: { try POSIXFile.writeAll(out, $0, path: "<output>") }, progress: nil) { cipher.open($0) }
        guard cipher.verify(tag) else { throw CryptoFileError.changedWhileReading(path: input) }
    }

    /// Encrypts a buffer in memory: ciphertext || tag.
    public static func encrypt(_ plaintext: [UInt8], args: CryptoFileArgs) -> [UInt8] {
        var out = plaintext
        var cipher = XSalsa20Poly1305Stream(args: args)
        out.withUnsafeMutableBytes { cipher.seal($0) }
        return out + cipher.tag()
    }

    /// Decrypts a buffer in memory, or throws without returning any plaintext.
    public static func decrypt(_ file: [UInt8], args: CryptoFileArgs, name: String = "<memory>") throws -> [UInt8] {
        guard file.count >= tagLength else { throw CryptoFileError.invalidFileSize(path: name) }
        var body = Array(file[0..<(file.count - tagLength)])
        var cipher = XSalsa20Poly1305Stream(args: args)
        body.withUnsafeMutableBytes { cipher.open($0) }
        guard cipher.verify(Array(file[(file.count - tagLength)...])) else {
            Wipe.array(&body)
            throw CryptoFileError.invalidAuthTag(path: name)
        }
        return body
    }

    static func openRegular(_ path: String) throws -> (Int32, Int64) {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let code = errno
            close(fd)
            throw FileSystemError("read the status of", path: path, code: code)
        }
        guard (st.st_mode & S_IFMT) == S_IFREG else {
            close(fd)
            throw FileSystemError("read", path: path, code: (st.st_mode & S_IFMT) == S_IFDIR ? EISDIR : EINVAL)
        }
        return (fd, Int64(st.st_size))
    }

    private static func readTag(_ fd: Int32, size: Int64, path: String) throws -> [UInt8] {
        guard size >= Int64(tagLength) else { throw CryptoFileError.invalidFileSize(path: path) }
        var tag = [UInt8](repeating: 0, count: tagLength)
        let n = try tag.withUnsafeMutableBytes { try POSIXFile.pread(fd, into: $0, at: size - Int64(tagLength), path: path) }
        guard n == tagLength else { throw CryptoFileError.changedWhileReading(path: path) }
        return tag
    }
}
