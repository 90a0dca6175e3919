import SXCore
import SXCrypto
#if canImport(Glibc)
import Glibc
#endif

/// What an interrupted receive resumes from when it decrypts while downloading: the plaintext it had
/// written (its 0600 temp file in the destination folder, kept on an error, Ctrl-C or a kill) and the
/// first chunk (the only one kept on disk: it holds the header). The other chunks are not written to
/// disk at all: a 1 GiB receive writes 1 GiB, not 2 (measured on this project's VM: 127-136 MB/s
/// against 88-104 with every chunk written; notes/xftp-throughput.md, stop 33).
///
/// Nothing kept is trusted: a rerun re-encrypts the kept plaintext chunk by chunk (the chunk plan and
/// the key are the description's) and keeps it only up to the first chunk whose SHA-256 differs from
/// the description's; what comes after is downloaded again. So a kept file cut short, zero-filled
/// by a crash or changed by anyone reads as "download from here", never as wrong plaintext.
enum KeptPlaintext {
    /// The work folder's record of the temp file's path.
    static let recordName = "partial-plaintext"

    static func record(_ tempPath: String, in work: String) throws {
        try AtomicFileWriter.write(Array(tempPath.utf8), to: Path.join(work, recordName), mode: 0o600)
    }

    static func forget(in work: String) {
        unlink(Path.join(work, recordName))
    }

    /// The kept file the record names, opened and locked (before anything sweeps the destination),
    /// when it is still there in `folder` under a temp file's name. Anything else is forgotten, and a
    /// stale file elsewhere (a rerun into another folder) removed.
    static func claim(in work: String, folder: String) -> (path: String, fd: Int32)? {
        guard let bytes = try? FileBytes.read(Path.join(work, recordName), limit: 1 << 16),
              let path = String(validating: bytes, as: UTF8.self) else {
            forget(in: work)
            return nil
        }
        let named = Path.basename(path)
        guard named.hasPrefix(ReceiveLeftovers.incomingPrefix), let fd = AtomicFileWriter.openStale(path) else {
            forget(in: work)
            return nil
        }
        guard Path.parent(path) == folder else {
            unlink(path)
            TempOwnership.release(fd)
            forget(in: work)
            return nil
        }
        return (path, fd)
    }
}

/// Re-creates chunks' ciphertext from a kept plaintext: the stream is `payload size || header ||
/// content || '#' padding` (FORMATS §7; simplexmq `FileTransfer/Client/Main.hs` `encrypt`, through
/// `Messaging/Crypto/Lazy.hs` `sbEncrypt`, and read back chunk by chunk by `FileTransfer/Crypto.hs`
/// `decryptChunks`), whose first bytes come from the first chunk (decrypted here) and whose content
/// is the kept file; each chunk is that stream's slice at the chunk's offset, XORed with the
/// keystream from that offset. The chunks' SHA-256 digests, not this reasoning, decide what is kept.
struct ChunkRegenerator: @unchecked Sendable {
    private let sizes: [Int64]
    private let offsets: [Int64]
    /// The plaintext stream's first bytes: the payload size and the header.
    private let prefix: [UInt8]
    private let contentSize: Int64
    private let args: CryptoFileArgs
    private let kept: Int32
    private let keptLength: Int64

    /// Nil when the first chunk does not start like a transfer file's stream (then nothing is kept).
    init?(firstChunk path: String, chunkSizes: [Int64], encryptedSize: Int64, args: CryptoFileArgs, kept fd: Int32) {
        guard let first = chunkSizes.first else { return nil }
        var head = [UInt8](repeating: 0, count: Int(min(first, Int64(TransferFileCrypto.maxPrefixBytes))))
        defer { Wipe.array(&head) }
        guard let chunk = try? POSIXFile.open(path, flags: O_RDONLY) else { return nil }
        let read = head.withUnsafeMutableBytes { pread(chunk, $0.baseAddress!, $0.count, 0) }
        close(chunk)
        guard read == head.count else { return nil }
        var keystream = SecretBoxStream(args: args).keystream
        head.withUnsafeMutableBytes { keystream.xor($0) }
        guard let layout = TransferFileCrypto.layout(ofStreamStart: head, encryptedSize: encryptedSize) else { return nil }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return nil }
        prefix = Array(head[0..<layout.prefixLength])
        contentSize = layout.contentSize
        sizes = chunkSizes
        offsets = chunkSizes.reduce(into: [Int64(0)]) { $0.append($0.last! + $1) }
        self.args = args
        kept = fd
        keptLength = Int64(st.st_size)
    }

    /// Content bytes in the stream before chunk `index`.
    func contentBytes(before index: Int) -> Int64 {
        min(max(offsets[index] - Int64(prefix.count), 0), contentSize)
    }

    /// Whether the kept file covers chunk `index`'s content; never the last chunk's (it holds the
    /// tag, and is what a resumed run finishes with).
    func covers(_ index: Int) -> Bool {
        index < sizes.count - 1 && keptLength >= contentBytes(before: index + 1)
    }

    /// Chunk `index`'s ciphertext, into `buffer` (whose capacity is at least the chunk's size).
    func regenerate(_ index: Int, into buffer: AlignedBuffer) throws {
        buffer.removeAll()
        let start = offsets[index], size = Int(sizes[index])
        let keptPath = "the kept plaintext"
        _ = try buffer.withUnusedCapacity { space -> Int in
            let out = UnsafeMutableRawBufferPointer(rebasing: space[0..<size])
            var done = 0
            while done < size {
                let position = start + Int64(done)
                let contentAt = position - Int64(prefix.count)
                if contentAt < 0 {
                    out[done] = prefix[Int(position)]
                    done += 1
                } else if contentAt < contentSize {
                    let want = Int(min(Int64(size - done), contentSize - contentAt))
                    let n = pread(kept, out.baseAddress! + done, want, off_t(contentAt))
                    if n < 0 && errno == EINTR { continue }
                    guard n > 0 else { throw FileSystemError("read", path: keptPath, code: n < 0 ? errno : EIO) }
                    done += n
                } else {
                    out[done] = TransferFileCrypto.paddingByte
                    done += 1
                }
            }
            var keystream = SecretBoxStream(args: args).keystream
            keystream.skip(start)
            keystream.xor(out)
            return size
        }
    }

    /// How many chunks from the start the kept file holds the content of exactly (each re-encrypted
    /// and checked against `digests`). The first chunk is checked too, though it is on disk: a run
    /// killed before its first plaintext reached the disk kept a file without it.
    func verifiedCount(digests: [[UInt8]], scratch: AlignedBuffer) throws -> Int {
        var count = 0
        while covers(count) {
            try regenerate(count, into: scratch)
            guard ConstantTime.equal(SHA256Digest.of(scratch.bytes), digests[count]) else { break }
            count += 1
        }
        scratch.wipe()
        return count
    }
}

extension TransferReceiver {
    /// What an interrupted receive of a file left for a rerun (checked only by the rerun).
    public struct Kept: Sendable, Equatable {
        /// Chunks a rerun need not download: on disk, or given back by the kept plaintext.
        public let chunks: Int
        public let bytes: Int64
        public let workFolder: String
        /// The kept plaintext (a private temp file beside the destination), when there is one.
        public let plaintext: String?
        /// The chunks of the file (through a redirect: of the file it names).
        public var total = 0
        /// Through a redirect: the folder keeping the description it named (see `redirectFolder`).
        public var redirectFolder: String?
    }

    /// Nil when nothing is kept. Through a redirect, what is kept of the file it names.
    public func kept(for description: FileDescription) -> Kept? {
        if description.redirect != nil {
            guard let named = keptRedirectDescription(for: description), var kept = kept(for: named) else { return nil }
            kept.redirectFolder = redirectFolder(for: description)
            return kept
        }
        let work = workFolder(for: description)
        let chunks = description.chunks
        let chunkPath = { (i: Int) in Path.join(work, "chunk-\(i + 1)") }
        var here = Set(chunks.indices.filter { i in POSIXFile.linkStatus(chunkPath(i)).map { Int64($0.st_size) == chunks[i].size } ?? false })
        var plaintext: String?
        if let bytes = try? FileBytes.read(Path.join(work, KeptPlaintext.recordName), limit: 1 << 16),
           let path = String(validating: bytes, as: UTF8.self), POSIXFile.linkStatus(path) != nil {
            plaintext = path
            let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0, here.contains(0), let args = try? description.cryptoArgs(),
               let plan = ChunkRegenerator(firstChunk: chunkPath(0), chunkSizes: chunks.map(\.size), encryptedSize: description.size, args: args, kept: fd) {
                var i = 0
                while plan.covers(i) { here.insert(i); i += 1 }
            }
            if fd >= 0 { close(fd) }
        }
        guard !here.isEmpty else { return nil }
        return Kept(chunks: here.count, bytes: here.reduce(Int64(0)) { $0 + chunks[$1].size }, workFolder: work, plaintext: plaintext, total: chunks.count)
    }
}
