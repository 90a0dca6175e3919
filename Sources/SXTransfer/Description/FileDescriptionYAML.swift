import SXCore
import Yams

/// The YAML form of a file description, as SimpleX writes it:
///
///     party: recipient
///     size: 128kb
///     digest: <base64url SHA-512>
///     key: <base64url>
///     nonce: <base64url>
///     chunkSize: 64kb
///     replicas:
///     - server: <relay address>
///       chunks:
///       - 1:<replicaId>:<replicaKey>:<base64url SHA-256>
///       - 2:<replicaId>:<replicaKey>:<base64url SHA-256>[:<size, when not chunkSize>]
///
/// The digest (and a size differing from chunkSize) are written on a chunk's first replica only.
extension FileDescription {
    private struct Document: Codable {
        var party: String?
        var size: String?
        var digest: String?
        var key: String?
        var nonce: String?
        var chunkSize: String?
        var replicas: [ServerReplicas]?
    }

    private struct ServerReplicas: Codable {
        var server: String?
        var chunks: [String]?
    }

    public func yaml() throws -> String {
        // Group replicas by relay, in first-seen order; chunks keep their order inside a group.
        var servers: [String] = []
        var lines: [String: [String]] = [:]
        for chunk in chunks {
            for (index, replica) in chunk.replicas.enumerated() {
                var line = "\(chunk.number):\(replica.replica.id):\(Base64URL.encode(replica.replica.key))"
                if index == 0 {
                    line += ":" + Base64URL.encode(chunk.digest)
                    if chunk.size != chunkSize { line += ":" + DescriptionSize.encode(chunk.size) }
                }
                if lines[replica.relay] == nil { servers.append(replica.relay) }
                lines[replica.relay, default: []].append(line)
            }
        }
        let document = Document(party: party.rawValue, size: DescriptionSize.encode(size), digest: Base64URL.encode(digest),
                                key: Base64URL.encode(key), nonce: Base64URL.encode(nonce), chunkSize: DescriptionSize.encode(chunkSize),
                                replicas: servers.map { ServerReplicas(server: $0, chunks: lines[$0]) })
        return try YAMLEncoder().encode(document)
    }

    /// Parses and validates strictly; every problem is a specific `DescriptionProblem`.
    public static func parse(yaml text: String) throws(DescriptionProblem) -> FileDescription {
        let document: Document
        do {
            document = try YAMLDecoder().decode(Document.self, from: text)
        } catch {
            throw .notYAML(String(describing: error).prefix(200).description)
        }
        guard let partyText = document.party else { throw .missingField("party") }
        guard let party = Party(rawValue: partyText) else { throw .unknownParty(partyText) }
        // In the order the fields are written, so the first problem reported is the first in the file.
        let size = try sizeField("size", document.size)
        let digest = try bytesField("digest", document.digest, length: 64)
        let key = try bytesField("key", document.key, length: 32)
        let nonce = try bytesField("nonce", document.nonce, length: 24)
        let chunkSize = try sizeField("chunkSize", document.chunkSize)
        guard let groups = document.replicas else { throw .missingField("replicas") }

        var chunks: [Chunk] = []
        var byNumber: [Int: Int] = [:]
        for group in groups {
            guard let server = group.server else { throw .missingField("replicas.server") }
            guard let lines = group.chunks else { throw .missingField("replicas.chunks") }
            var previous = 0
            for line in lines {
                let parsed = try chunkLine(line)
                // Inside a group, lines follow chunk order; across groups, new chunks continue 1…n.
                guard parsed.number > previous else { throw .chunkNumbersOutOfOrder(expected: previous + 1, found: parsed.number) }
                previous = parsed.number
                let replica = Replica(relay: server, replica: ChunkReplica(id: parsed.id, key: parsed.key))
                if let index = byNumber[parsed.number] {
                    if let d = parsed.digest, d != chunks[index].digest { throw .conflictingReplicas(chunk: parsed.number) }
                    if let s = parsed.size, s != chunks[index].size { throw .conflictingReplicas(chunk: parsed.number) }
                    chunks[index].replicas.append(replica)
                } else {
                    guard parsed.number == chunks.count + 1 else { throw .chunkNumbersOutOfOrder(expected: chunks.count + 1, found: parsed.number) }
                    guard let digest = parsed.digest else { throw .noDigest(chunk: parsed.number) }
                    byNumber[parsed.number] = chunks.count
                    chunks.append(Chunk(number: parsed.number, size: parsed.size ?? chunkSize, digest: digest, replicas: [replica]))
                }
            }
        }
        let description = FileDescription(party: party, size: size, digest: digest, key: key, nonce: nonce, chunkSize: chunkSize, chunks: chunks)
        try description.validate()
        return description
    }

    private static func sizeField(_ name: String, _ value: String?) throws(DescriptionProblem) -> Int64 {
        guard let value else { throw .missingField(name) }
        guard let size = DescriptionSize.decode(value) else { throw .badSize(field: name, value: value) }
        return size
    }

    private static func bytesField(_ name: String, _ value: String?, length: Int) throws(DescriptionProblem) -> [UInt8] {
        guard let value else { throw .missingField(name) }
        guard let bytes = Base64URL.decode(value) else { throw .badBase64(field: name) }
        guard bytes.count == length else { throw .wrongLength(field: name, expected: length, actual: bytes.count) }
        return bytes
    }

    private struct ChunkLine {
        var number: Int
        var id: String
        var key: [UInt8]
        var digest: [UInt8]?
        var size: Int64?
    }

    /// `chunkNo:replicaId:replicaKey[:digest[:size]]`.
    private static func chunkLine(_ line: String) throws(DescriptionProblem) -> ChunkLine {
        let parts = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (3...5).contains(parts.count) else { throw .badChunkLine(line: line, reason: "expected 3 to 5 fields separated by ':'") }
        guard let number = Int(parts[0]), number >= 1 else { throw .badChunkLine(line: line, reason: "'\(parts[0])' is not a chunk number") }
        let id = parts[1]
        guard !id.isEmpty, id.utf8.allSatisfy(isIdCharacter) else { throw .badChunkLine(line: line, reason: "the replica id is not base64url") }
        guard let key = Base64URL.decode(parts[2]) else { throw .badBase64(field: "replica key of chunk \(number)") }
        guard key.count == 32 else { throw .wrongLength(field: "replica key of chunk \(number)", expected: 32, actual: key.count) }
        var result = ChunkLine(number: number, id: id, key: key)
        if parts.count >= 4 {
            guard let digest = Base64URL.decode(parts[3]) else { throw .badBase64(field: "digest of chunk \(number)") }
            guard digest.count == 32 else { throw .wrongLength(field: "digest of chunk \(number)", expected: 32, actual: digest.count) }
            result.digest = digest
        }
        if parts.count == 5 {
            guard let size = DescriptionSize.decode(parts[4]), size > 0 else { throw .badSize(field: "size of chunk \(number)", value: parts[4]) }
            result.size = size
        }
        return result
    }

    private static func isIdCharacter(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F || c == 0x3D
    }

    /// Reads and parses a description file.
    public static func load(_ path: String) throws -> FileDescription {
        let bytes = try FileBytes.read(path, limit: 16 << 20)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw TransferError.badDescription(path: path, problem: .notYAML("not UTF-8")) }
        do {
            return try parse(yaml: text)
        } catch {
            throw TransferError.badDescription(path: path, problem: error)
        }
    }

    /// Writes the description atomically, mode 0600 (it grants access to the file).
    public func save(to path: String) throws {
        try AtomicFileWriter.write(Array(try yaml().utf8), to: path, mode: 0o600)
    }
}
