import SXCore
import SXCrypto

/// A transfer's file description (FORMATS §7), the shape SimpleX's relay file transfer uses: the
/// encrypted file's size, SHA-512, key and nonce, and per chunk its size, SHA-256 and replicas. A
/// sender description holds the sender replicas (upload, delete); each recipient description holds
/// one recipient's replicas (download). Whoever holds a description can use it: files are 0600.
public struct FileDescription: Sendable, Equatable {
    public enum Party: String, Sendable, Codable { case sender, recipient }

    public struct Replica: Sendable, Equatable {
        /// The relay's address: a folder path or a URL (the `server` of a replica group).
        public var relay: String
        public var replica: ChunkReplica
        public init(relay: String, replica: ChunkReplica) {
            self.relay = relay
            self.replica = replica
        }
    }

    public struct Chunk: Sendable, Equatable {
        /// 1-based.
        public var number: Int
        public var size: Int64
        /// SHA-256 of the encrypted chunk.
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
    /// SHA-512 of the encrypted file.
    public var digest: [UInt8]
    public var key: [UInt8]
    public var nonce: [UInt8]
    /// The first (default) chunk size; chunk lines give a size only where it differs.
    public var chunkSize: Int64
    public var chunks: [Chunk]

    public init(party: Party, size: Int64, digest: [UInt8], key: [UInt8], nonce: [UInt8], chunkSize: Int64, chunks: [Chunk]) {
        self.party = party
        self.size = size
        self.digest = digest
        self.key = key
        self.nonce = nonce
        self.chunkSize = chunkSize
        self.chunks = chunks
    }

    public func cryptoArgs() throws -> CryptoFileArgs { try CryptoFileArgs(key: key, nonce: nonce) }

    /// Chunk numbers 1…n in order and sizes adding up to `size` (FORMATS §7).
    public func validate() throws(DescriptionProblem) {
        guard !chunks.isEmpty else { throw .noChunks }
        for (index, chunk) in chunks.enumerated() where chunk.number != index + 1 {
            throw .chunkNumbersOutOfOrder(expected: index + 1, found: chunk.number)
        }
        let sum = chunks.reduce(Int64(0)) { $0 + $1.size }
        guard sum == size else { throw .sizesDoNotAddUp(sum: sum, size: size) }
    }
}

/// Sizes as file descriptions write them: `N`, or `Nkb`/`Nmb`/`Ngb` when exact.
public enum DescriptionSize {
    public static func encode(_ bytes: Int64) -> String {
        var value = bytes
        for unit in ["", "kb", "mb"] {
            if value % 1024 != 0 || value == 0 && unit.isEmpty { return "\(value)" + unit }
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
