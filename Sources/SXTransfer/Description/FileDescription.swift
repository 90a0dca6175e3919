import SXCore
import SXCrypto

/// A transfer's file description (FORMATS §7), as simplexmq models it
/// (`src/Simplex/FileTransfer/Description.hs` 75-110): the encrypted file's size, SHA-512, key and
/// nonce, and per chunk its size, SHA-256 and replicas. A sender description holds the sender
/// replicas (upload, delete); each recipient description holds one recipient's replicas (download).
/// Whoever holds a description can use it: files are 0600.
///
/// A description with a `redirect` describes a small file that is itself the (recipient)
/// description of the real file, whose size and digest `redirect` gives.
public struct FileDescription: Sendable, Equatable {
    public enum Party: String, Sendable, Codable { case sender, recipient }

    /// The real file behind a redirect: its encrypted size and SHA-512 (`RedirectFileInfo`).
    public struct Redirect: Sendable, Equatable {
        public var size: Int64
        public var digest: [UInt8]
        public init(size: Int64, digest: [UInt8]) {
            self.size = size
            self.digest = digest
        }
    }

    public struct Replica: Sendable, Equatable {
        public var server: RelayAddress
        public var replica: ChunkReplica
        public init(server: RelayAddress, replica: ChunkReplica) {
            self.server = server
            self.replica = replica
        }
    }

    public struct Chunk: Sendable, Equatable {
        /// 1-based.
        public var number: Int
        public var size: Int64
        /// SHA-256 of the encrypted chunk (any length parses; SimpleX's own test fixture uses 3 bytes).
        public var digest: [UInt8]
        public var replicas: [Replica]
        public init(number: Int, size: Int64, digest: [UInt8], replicas: [Replica]) {
            self.number = number
            self.size = size
            self.digest = digest
            self.replicas = replicas
        }
    }

    public var party: Party
    /// The encrypted file's size (the plan's sum).
    public var size: Int64
    /// SHA-512 of the encrypted file (any length parses).
    public var digest: [UInt8]
    public var key: [UInt8]
    public var nonce: [UInt8]
    /// The default chunk size: chunk lines give a size only where it differs (SimpleX's senders use
    /// the first chunk's size).
    public var chunkSize: Int64
    public var chunks: [Chunk]
    public var redirect: Redirect?

    public init(party: Party, size: Int64, digest: [UInt8], key: [UInt8], nonce: [UInt8], chunkSize: Int64, chunks: [Chunk],
                redirect: Redirect? = nil) {
        self.party = party
        self.size = size
        self.digest = digest
        self.key = key
        self.nonce = nonce
        self.chunkSize = chunkSize
        self.chunks = chunks
        self.redirect = redirect
    }

    public func cryptoArgs() throws -> CryptoFileArgs { try CryptoFileArgs(key: key, nonce: nonce) }

    /// SimpleX's `validateFileDescription` (`Description.hs` 221-228): chunk numbers 1…n and sizes
    /// adding up to `size`, summed without overflow (a hostile description cannot trap the process).
    /// Like SimpleX's parser, it does not bound chunk or file sizes: see `checkLimits`.
    public func validate() throws(DescriptionProblem) {
        for (index, chunk) in chunks.enumerated() where chunk.number != index + 1 {
            throw .chunkNumbersOutOfOrder(expected: index + 1, found: chunk.number)
        }
        var sum: Int64 = 0
        for chunk in chunks {
            guard chunk.size > 0 else { throw .badSize(field: "size of chunk \(chunk.number)", value: String(chunk.size)) }
            guard !chunk.replicas.isEmpty else { throw .noReplicas(chunk: chunk.number) }
            let (next, overflow) = sum.addingReportingOverflow(chunk.size)
            guard !overflow else { throw .chunkSizesOverflow }
            sum = next
        }
        guard sum == size else { throw .sizesDoNotAddUp(sum: sum, size: size) }
    }

    /// What downloading needs before it allocates or fetches anything: sizes within the protocol's
    /// limits (no chunk over an XFTP server's largest, 4 MiB, `Chunks.hs` `chunkSize3`; no file over
    /// the 5 GiB hard limit, `Description.hs` 279-281 `maxFileSizeHard`).
    public func checkLimits() throws(DescriptionProblem) {
        let hard = SimpleXLimits.maxFileSizeXFTPHard
        guard size <= hard else { throw .sizeOverLimit(field: "size", size: size, limit: hard) }
        for chunk in chunks where chunk.size > ChunkPlan.largestChunkSize {
            throw .sizeOverLimit(field: "size of chunk \(chunk.number)", size: chunk.size, limit: ChunkPlan.largestChunkSize)
        }
        if let redirect, redirect.size <= 0 || redirect.size > hard {
            throw .sizeOverLimit(field: "redirect size", size: redirect.size, limit: hard)
        }
    }
}

/// Sizes as file descriptions write them (`Description.hs` 287-304): the largest exact unit of
/// `N`, `Nkb`, `Nmb`, `Ngb` (×1024 each); 0 is `0gb`.
public enum DescriptionSize {
    public static func encode(_ bytes: Int64) -> String {
        var value = bytes
        for unit in ["", "kb", "mb"] {
            if value % 1024 != 0 { return "\(value)" + unit }
            value /= 1024
        }
        return "\(value)gb"
    }

    public static func decode(_ text: String) -> Int64? {
        let units: [(String, Int64)] = [("gb", 1 << 30), ("mb", 1 << 20), ("kb", 1 << 10), ("", 1)]
        for (suffix, multiplier) in units where text.hasSuffix(suffix) {
            let digits = text.dropLast(suffix.count)
            guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let n = Int64(digits) else { return nil }
            let (value, overflow) = n.multipliedReportingOverflow(by: multiplier)
            return overflow ? nil : value
        }
        return nil
    }
}
