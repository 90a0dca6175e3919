import SXCore
import SXCrypto
import Yams

/// The YAML form of a file description, byte for byte as simplexmq writes it (`Description.hs`
/// `encodeFileDescription` 230-241 through `Data.Yaml.encode`; its fixture
/// `tests/fixtures/file_description.yaml` is reproduced exactly):
///
///     chunkSize: 8mb
///     digest: <base64url>
///     key: <base64url>
///     nonce: <base64url>
///     party: recipient
///     redirect:              (only for a redirect)
///       digest: <base64url>
///       size: 18874368       (bytes, a YAML number)
///     replicas:
///     - chunks:
///       - 1:<replicaId>:<replicaKey>:<digest>
///       - 3:<replicaId>:<replicaKey>:<digest>:<size, when not chunkSize>
///       server: xftp://<keyHash>@<host>
///     size: 26mb
///
/// Keys in alphabetical order; one group per server, sorted in SimpleX's server order, chunks in
/// chunk order inside a group; a chunk's digest (and a size other than `chunkSize`) on its first
/// replica only. Strings that YAML would read as numbers, booleans or null are single-quoted.
extension FileDescription {
    public func yaml() -> String {
        var out = ""
        func line(_ key: String, _ value: String, indent: String = "") { out += indent + key + ": " + YAMLScalar.encode(value) + "\n" }
        line("chunkSize", DescriptionSize.encode(chunkSize))
        line("digest", Base64URL.encode(digest))
        line("key", Base64URL.encode(key))
        line("nonce", Base64URL.encode(nonce))
        line("party", party.rawValue)
        if let redirect {
            out += "redirect:\n"
            line("digest", Base64URL.encode(redirect.digest), indent: "  ")
            out += "  size: \(redirect.size)\n"
        }
        let groups = replicaGroups()
        if groups.isEmpty {
            out += "replicas: []\n"
        } else {
            out += "replicas:\n"
            for group in groups {
                out += "- chunks:\n"
                for chunkLine in group.lines { out += "  - " + YAMLScalar.encode(chunkLine) + "\n" }
                line("server", group.server.description, indent: "  ")
            }
        }
        line("size", DescriptionSize.encode(size))
        return out
    }

    /// `unfoldChunksToReplicas` then `groupAllWith server` (`Description.hs` 313-354).
    private func replicaGroups() -> [(server: RelayAddress, lines: [String])] {
        var unfolded: [(server: RelayAddress, line: String)] = []
        for chunk in chunks {
            for (index, replica) in chunk.replicas.enumerated() {
                var text = "\(chunk.number):\(replica.replica.idText):\(replica.replica.key.text)"
                if index == 0 {
                    text += ":" + Base64URL.encode(chunk.digest)
                    if chunk.size != chunkSize { text += ":" + DescriptionSize.encode(chunk.size) }
                }
                unfolded.append((replica.server, text))
            }
        }
        // A stable sort: ties keep chunk order.
        let ordered = unfolded.indices.sorted { a, b in
            unfolded[a].server != unfolded[b].server ? unfolded[a].server < unfolded[b].server : a < b
        }
        var groups: [(server: RelayAddress, lines: [String])] = []
        for i in ordered {
            if groups.last?.server == unfolded[i].server {
                groups[groups.count - 1].lines.append(unfolded[i].line)
            } else {
                groups.append((unfolded[i].server, [unfolded[i].line]))
            }
        }
        return groups
    }

    /// Parses and validates, as SimpleX's `strDecode` of a `ValidFileDescription` does (`Description.hs`
    /// 201-228, 356-408): any valid YAML with these fields (any key order, quoted scalars, unknown keys
    /// ignored); chunk lines gathered by chunk number across server groups, then sorted.
    public static func parse(yaml text: String) throws(DescriptionProblem) -> FileDescription {
        let root: Node
        do {
            guard let node = try Yams.compose(yaml: text) else { throw DescriptionProblem.notYAML("it is empty") }
            root = node
        } catch let problem as DescriptionProblem {
            throw problem
        } catch {
            throw .notYAML(String(String(describing: error).prefix(200)))
        }
        guard root.mapping != nil else { throw .notYAML("it is not a mapping of fields") }
        let fields = Fields(root)
        let chunkSize = try sizeField("chunkSize", fields.scalar("chunkSize"))
        let digest = try bytesField("digest", fields.scalar("digest"))
        let key = try bytesField("key", fields.scalar("key"), length: CryptoFileArgs.keyLength)
        let nonce = try bytesField("nonce", fields.scalar("nonce"), length: CryptoFileArgs.nonceLength)
        guard let partyText = try fields.scalar("party") else { throw .missingField("party") }
        guard let party = Party(rawValue: partyText) else { throw .unknownParty(partyText) }
        var redirect: Redirect?
        if let node = root["redirect"], !(node.scalar.map { $0.string == "null" || $0.string == "~" } ?? false) {
            let inner = Fields(node)
            guard node.mapping != nil else { throw .badField(field: "redirect", reason: "it is not a mapping of digest and size") }
            let redirectDigest = try bytesField("redirect.digest", inner.scalar("digest"))
            guard let sizeText = try inner.scalar("size") else { throw .missingField("redirect.size") }
            // A YAML number in SimpleX's files; the size syntax is taken too.
            guard let redirectSize = Int64(sizeText) ?? DescriptionSize.decode(sizeText) else { throw .badSize(field: "redirect.size", value: sizeText) }
            redirect = Redirect(size: redirectSize, digest: redirectDigest)
        }
        guard let groups = root["replicas"] else { throw .missingField("replicas") }
        guard let groupList = groups.sequence else { throw .badField(field: "replicas", reason: "it is not a list") }

        var byNumber: [Int: Chunk] = [:]
        for group in groupList {
            guard group.mapping != nil else { throw .badField(field: "replicas", reason: "an item is not a mapping of chunks and server") }
            let groupFields = Fields(group)
            guard let serverText = try groupFields.scalar("server") else { throw .missingField("replicas.server") }
            let server: RelayAddress
            switch RelayAddress.parse(serverText) {
            case .success(let parsed): server = parsed
            case .failure(let problem): throw .badServer(problem)
            }
            if case .xftp(let address) = server, address.basicAuth != nil { throw .serverWithPassword(serverText) }
            guard let lines = group["chunks"] else { throw .missingField("replicas.chunks") }
            guard let lineList = lines.sequence else { throw .badField(field: "replicas.chunks", reason: "it is not a list") }
            for lineNode in lineList {
                guard let lineText = lineNode.scalar?.string else { throw .badField(field: "replicas.chunks", reason: "an item is not a chunk line") }
                let parsed = try chunkLine(lineText)
                let replica = Replica(server: server, replica: ChunkReplica(id: parsed.id, key: parsed.key))
                var chunk = byNumber[parsed.number] ?? Chunk(number: parsed.number, size: -1, digest: [], replicas: [])
                if let d = parsed.digest {
                    guard chunk.digest.isEmpty || chunk.digest == d else { throw .conflictingReplicas(chunk: parsed.number) }
                    chunk.digest = d
                }
                if let s = parsed.size {
                    guard chunk.size < 0 || chunk.size == s else { throw .conflictingReplicas(chunk: parsed.number) }
                    chunk.size = s
                }
                chunk.replicas.append(replica)
                byNumber[parsed.number] = chunk
            }
        }
        var chunks: [Chunk] = []
        for number in byNumber.keys.sorted() {
            var chunk = byNumber[number]!
            guard !chunk.digest.isEmpty else { throw .noDigest(chunk: number) }
            if chunk.size < 0 { chunk.size = chunkSize }
            chunks.append(chunk)
        }
        let size = try sizeField("size", fields.scalar("size"))
        let description = FileDescription(party: party, size: size, digest: digest, key: key, nonce: nonce, chunkSize: chunkSize,
                                          chunks: chunks, redirect: redirect)
        try description.validate()
        return description
    }

    /// The scalar fields of a mapping node.
    private struct Fields {
        let node: Node
        init(_ node: Node) { self.node = node }

        func scalar(_ name: String) throws(DescriptionProblem) -> String? {
            guard let value = node[name] else { return nil }
            guard let scalar = value.scalar else { throw .badField(field: name, reason: "it is not a single value") }
            return scalar.string
        }
    }

    private static func sizeField(_ name: String, _ value: String?) throws(DescriptionProblem) -> Int64 {
        guard let value else { throw .missingField(name) }
        guard let size = DescriptionSize.decode(value) else { throw .badSize(field: name, value: value) }
        return size
    }

    private static func bytesField(_ name: String, _ value: String?, length: Int? = nil) throws(DescriptionProblem) -> [UInt8] {
        guard let value else { throw .missingField(name) }
        guard let bytes = Base64URL.decodeLenient(value) else { throw .badBase64(field: name) }
        if let length, bytes.count != length { throw .wrongLength(field: name, expected: length, actual: bytes.count) }
        return bytes
    }

    private struct ChunkLine {
        var number: Int
        var id: [UInt8]
        var key: ReplicaKey
        var digest: [UInt8]?
        var size: Int64?
    }

    /// `chunkNo:replicaId:replicaKey[:digest[:size]]` (`Description.hs` 327-344).
    private static func chunkLine(_ line: String) throws(DescriptionProblem) -> ChunkLine {
        let parts = line.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard (3...5).contains(parts.count) else { throw .badChunkLine(line: line, reason: "expected 3 to 5 fields separated by ':'") }
        guard parts[0].allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int(parts[0]), number >= 1 else {
            throw .badChunkLine(line: line, reason: "'\(parts[0])' is not a chunk number")
        }
        guard let id = Base64URL.decodeLenient(parts[1]) else { throw .badChunkLine(line: line, reason: "the replica id is not base64url") }
        guard let keyDER = Base64URL.decodeLenient(parts[2]) else { throw .badBase64(field: "replica key of chunk \(number)") }
        guard let key = ReplicaKey(der: keyDER) else {
            throw .badChunkLine(line: line, reason: "the replica key is not an Ed25519, X25519 or Ed448 private key in PKCS#8 DER")
        }
        var result = ChunkLine(number: number, id: id, key: key)
        if parts.count >= 4 {
            if let digest = Base64URL.decodeLenient(parts[3]) {
                result.digest = digest
            } else if parts.count == 4, let size = DescriptionSize.decode(parts[3]) {
                // SimpleX's parser backtracks the same way: a size in the digest's place is a size.
                result.size = size
            } else {
                throw .badBase64(field: "digest of chunk \(number)")
            }
        }
        if parts.count == 5 {
            guard let size = DescriptionSize.decode(parts[4]), size > 0 else { throw .badSize(field: "size of chunk \(number)", value: parts[4]) }
            result.size = size
        }
        return result
    }
}

/// How `Data.Yaml` writes a string scalar (yaml `Data/Yaml/Internal.hs` 391-424, then libyaml): plain
/// when YAML would read it back as the same string, single-quoted when it looks like a number, a
/// boolean or null, or cannot be plain; double-quoted with escapes only for control characters.
enum YAMLScalar {
    static func encode(_ text: String) -> String {
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return "\"" + text.unicodeScalars.map { s -> String in
                switch s {
                case "\"": return "\\\""
                case "\\": return "\\\\"
                case "\n": return "\\n"
                case "\t": return "\\t"
                default: return s.value < 0x20 || s.value == 0x7F ? String(format: "\\x%02X", s.value) : String(s)
                }
            }.joined() + "\""
        }
        if text.isEmpty || isSpecial(text) || !canBePlain(text) {
            return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        }
        return text
    }

    private static let specialWords: Set<String> = [
        "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE",
        "on", "On", "ON", "off", "Off", "OFF", "null", "Null", "NULL", "~", "*",
    ]

    /// `isSpecialString`: a YAML 1.1 boolean or null, or anything `textToScientific` reads as a number.
    static func isSpecial(_ text: String) -> Bool {
        specialWords.contains(text) || looksNumeric(text)
    }

    private static func looksNumeric(_ text: String) -> Bool {
        let s = Array(text.utf8)
        func digits(_ from: Int, _ ok: (UInt8) -> Bool) -> Int { var i = from; while i < s.count && ok(s[i]) { i += 1 }; return i }
        let isDigit: (UInt8) -> Bool = { $0 >= 0x30 && $0 <= 0x39 }
        if s.count > 2, s[0] == 0x30, s[1] == 0x78 || s[1] == 0x6F {  // 0x…, 0o…
            let isHex: (UInt8) -> Bool = { isDigit($0) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
            return digits(2, s[1] == 0x78 ? isHex : { $0 >= 0x30 && $0 <= 0x37 }) == s.count
        }
        var i = 0
        if i < s.count, s[i] == 0x2B || s[i] == 0x2D { i += 1 }
        let intEnd = digits(i, isDigit)
        guard intEnd > i else { return false }
        i = intEnd
        if i < s.count, s[i] == 0x2E {
            let fracEnd = digits(i + 1, isDigit)
            guard fracEnd > i + 1 else { return false }
            i = fracEnd
        }
        if i < s.count, s[i] == 0x65 || s[i] == 0x45 {
            var j = i + 1
            if j < s.count, s[j] == 0x2B || s[j] == 0x2D { j += 1 }
            let expEnd = digits(j, isDigit)
            guard expEnd > j else { return false }
            i = expEnd
        }
        return i == s.count
    }

    /// Whether libyaml writes it plain in block context (a conservative reading of
    /// `yaml_emitter_analyze_scalar`: every character of descriptions, addresses and paths that
    /// needs no care; anything else is quoted, which reads back the same).
    private static func canBePlain(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let safe: (UInt8) -> Bool = { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || "-_./:@,=+~%()[]".utf8.contains(c) || c >= 0x80
        }
        guard bytes.allSatisfy(safe), let first = bytes.first else { return false }
        if "-:".utf8.contains(first) && bytes.count == 1 { return false }
        // Indicators at the start ([ ] are flow indicators only, fine inside a block scalar).
        if ",%@[]".utf8.contains(first) { return false }
        // ':' ending the scalar is a mapping indicator in block context.
        return bytes.last != UInt8(ascii: ":")
    }
}
