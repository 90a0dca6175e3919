import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// CryptoFile encryption at rest (FORMATS §6): ciphertext followed by a 16-byte Poly1305 tag, with
/// SimpleX's secret box (`SecretBoxStream`; simplex-chat `src/Simplex/Chat/Files.hs` reads and writes
/// them through simplexmq `Crypto/File.hs`, which uses `Crypto/Lazy.hs` `sbInit`, tag last).
/// Everything streams in bounded memory; no plaintext reaches a destination before its tag checks.
///
/// Files written by sxkit before 0.2.0 used the key directly (a non-SimpleX schedule). They are
/// recognised when SimpleX's tag fails and the old one matches: decryption still succeeds and says
/// so, verification reports them as what they are, and `reencrypt` turns them into SimpleX's format.
public enum CryptoFile {
    public static let tagLength = SecretBoxStream.tagLength

    /// What a decryption found.
    public struct Decrypted: Sendable, Equatable {
        /// Plaintext bytes.
        public var size: Int64
        /// `.earlierSxkit` for a file written by an earlier sxkit with its non-SimpleX key schedule.
        public var schedule: SecretBoxStream.KeySchedule
    }

    /// Encrypts the file at `input` into `output` with SimpleX's schedule (not committed: the caller
    /// decides when to publish). Returns the plaintext size.
    @discardableResult
    public static func encrypt(file input: String, to output: AtomicFileWriter, args: CryptoFileArgs,
                               progress: ProgressTracker? = nil) throws -> Int64 {
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        var box = SecretBoxStream(args: args)
        try StreamPipeline.seal(fd: fd, path: input, length: size, fileSize: size, box: &box, sink: { try output.write($0) }, progress: progress)
        try output.write(box.tag())
        return size
    }

    /// Decrypts `input` into `output` and checks the tag. A file an earlier sxkit wrote is decrypted
    /// with its schedule (a second and third pass, only for such files). On any failure `output` is
    /// aborted, so its temp file — the only place unverified plaintext ever was — is gone.
    @discardableResult
    public static func decrypt(file input: String, to output: AtomicFileWriter, args: CryptoFileArgs,
                               progress: ProgressTracker? = nil) throws -> Decrypted {
        do {
            do {
                return Decrypted(size: try decrypt(file: input, to: output, args: args, schedule: .simplex, progress: progress), schedule: .simplex)
            } catch CryptoFileError.invalidAuthTag(let path) {
                guard try tagMatches(file: input, args: args, schedule: .earlierSxkit) else { throw CryptoFileError.invalidAuthTag(path: path) }
                try output.rewind()
                return Decrypted(size: try decrypt(file: input, to: output, args: args, schedule: .earlierSxkit, progress: nil), schedule: .earlierSxkit)
            }
        } catch {
            output.abort()
            throw error
        }
    }

    private static func decrypt(file input: String, to output: AtomicFileWriter, args: CryptoFileArgs,
                                schedule: SecretBoxStream.KeySchedule, progress: ProgressTracker?) throws -> Int64 {
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        let tag = try readTag(fd, size: size, path: input)
        var box = SecretBoxStream(args: args, schedule: schedule)
        try StreamPipeline.open(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size, box: &box,
                                sink: { try output.write($0) }, progress: progress)
        guard box.verify(tag) else { throw CryptoFileError.invalidAuthTag(path: input) }
        return size - Int64(tagLength)
    }

    /// Checks SimpleX's tag without writing anything. Returns the plaintext size. A file whose tag
    /// matches only the earlier sxkit schedule fails with `earlierKeySchedule`: the apps cannot open it.
    @discardableResult
    public static func verify(file input: String, args: CryptoFileArgs, progress: ProgressTracker? = nil) throws -> Int64 {
        switch try schedule(of: input, args: args, progress: progress) {
        case .simplex?: return try plaintextSize(input)
        case .earlierSxkit?: throw CryptoFileError.earlierKeySchedule(path: input)
        case nil: throw CryptoFileError.invalidAuthTag(path: input)
        }
    }

    /// Which schedule the file's tag matches with `args` (SimpleX's tried first), nil when neither:
    /// the way a recovery tells a CryptoFile from a plaintext, whichever sxkit wrote it.
    public static func schedule(of input: String, args: CryptoFileArgs, progress: ProgressTracker? = nil) throws -> SecretBoxStream.KeySchedule? {
        if try tagMatches(file: input, args: args, schedule: .simplex, progress: progress) { return .simplex }
        if try tagMatches(file: input, args: args, schedule: .earlierSxkit) { return .earlierSxkit }
        return nil
    }

    /// Whether the file's tag matches `args` under `schedule` (one read through, nothing written).
    public static func tagMatches(file input: String, args: CryptoFileArgs, schedule: SecretBoxStream.KeySchedule,
                                  progress: ProgressTracker? = nil) throws -> Bool {
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        let tag = try readTag(fd, size: size, path: input)
        var box = SecretBoxStream(args: args, schedule: schedule)
        try StreamPipeline.run(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size, sink: nil, progress: progress) {
            box.authenticate(UnsafeRawBufferPointer($0))
        }
        return box.verify(tag)
    }

    private static func plaintextSize(_ input: String) throws -> Int64 {
        let (fd, size) = try openRegular(input)
        close(fd)
        return size - Int64(tagLength)
    }

    /// Re-encrypts a file an earlier sxkit wrote (`from`, its non-SimpleX schedule) with SimpleX's
    /// schedule and `to` into `output`, in one pass: the plaintext exists only in memory, and the old
    /// tag is checked before the caller can publish anything. Returns the plaintext size.
    @discardableResult
    public static func reencrypt(file input: String, to output: AtomicFileWriter, from old: CryptoFileArgs,
                                 schedule oldSchedule: SecretBoxStream.KeySchedule = .earlierSxkit, to new: CryptoFileArgs,
                                 progress: ProgressTracker? = nil) throws -> Int64 {
        do {
            let (fd, size) = try openRegular(input)
            defer { close(fd) }
            let tag = try readTag(fd, size: size, path: input)
            var reading = SecretBoxStream(args: old, schedule: oldSchedule)
            // The old stream opens on this thread, the new one seals behind, on the writer's.
            let writing = HandedOver(SecretBoxStream(args: new))
            try StreamPipeline.run(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size, sink: { try output.write($0) },
                                   progress: progress, behind: { writing.value.seal($0) }) { reading.open($0) }
            guard reading.verify(tag) else { throw CryptoFileError.invalidAuthTag(path: input) }
            try output.write(writing.value.tag())
            return size - Int64(tagLength)
        } catch {
            output.abort()
            throw error
        }
    }

    /// Writes the plaintext to a descriptor (e.g. stdout). A stream cannot be taken back, so the
    /// tag is verified in a first pass and nothing is written for a tampered file; the second pass
    /// checks again and reports a file that changed in between. Returns the schedule the file used.
    @discardableResult
    public static func decrypt(file input: String, toDescriptor out: Int32, args: CryptoFileArgs) throws -> SecretBoxStream.KeySchedule {
        guard let schedule = try schedule(of: input, args: args) else { throw CryptoFileError.invalidAuthTag(path: input) }
        let (fd, size) = try openRegular(input)
        defer { close(fd) }
        let tag = try readTag(fd, size: size, path: input)
        var box = SecretBoxStream(args: args, schedule: schedule)
        try StreamPipeline.open(fd: fd, path: input, length: size - Int64(tagLength), fileSize: size, box: &box,
                                sink: { try POSIXFile.writeAll(out, $0, path: "<output>") }, progress: nil)
        guard box.verify(tag) else { throw CryptoFileError.changedWhileReading(path: input) }
        return schedule
    }

    /// Encrypts a buffer in memory with SimpleX's schedule: ciphertext || tag.
    public static func encrypt(_ plaintext: [UInt8], args: CryptoFileArgs) -> [UInt8] {
        SecretBoxStream.seal(plaintext, key: args.key, nonce: args.nonce)
    }

    /// Decrypts a buffer in memory (SimpleX's schedule only), or throws without returning any
    /// plaintext; a buffer an earlier sxkit sealed fails with `earlierKeySchedule`.
    public static func decrypt(_ file: [UInt8], args: CryptoFileArgs, name: String = "<memory>") throws -> [UInt8] {
        guard file.count >= tagLength else { throw CryptoFileError.invalidFileSize(path: name) }
        if let plain = SecretBoxStream.open(file, key: args.key, nonce: args.nonce) { return plain }
        if var old = SecretBoxStream.open(file, key: args.key, nonce: args.nonce, schedule: .earlierSxkit) {
            Wipe.array(&old)
            throw CryptoFileError.earlierKeySchedule(path: name)
        }
        throw CryptoFileError.invalidAuthTag(path: name)
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
