import SXCore

/// The links that carry a recipient description:
///
/// - `simplex:/file#/?desc=<YAML>[&data=<JSON>]`, the chat's and device migration's link, and the same
///   query after `https://<host>[:<port>]/file#/?` (simplexmq `Description.hs` `FileDescriptionURI`
///   243-266; `ServiceScheme.hs` 17-39; the query through http-types' `renderSimpleQuery False`:
///   every byte but `A-Z a-z 0-9 - _ . ~` as `%XX`, uppercase);
/// - `https://<host>/#<fragment>`, the xftp CLI's and web page's link, whose fragment is base64url
///   (padded) of the raw DEFLATE of the YAML (`Client/Main.hs` `encodeWebURI` 587-606; the host is the
///   first host of the first chunk's first replica, without the port).
public enum FileDescriptionLink {
    /// `simplex:/file#/?desc=…`, with the apps' `data` JSON (for device migration
    /// `{"networkConfig":{…}}`) when given.
    public static func simplexLink(_ description: FileDescription, data: String? = nil) -> String {
        var query = "desc=" + percentEncode(Array(description.yaml().utf8))
        if let data { query += "&data=" + percentEncode(Array(data.utf8)) }
        return "simplex:/file#/?" + query
    }

    /// Whether a recipient description must go through a redirect before it makes a `simplex:/file`
    /// link: the chat sends a description of more than one chunk as a file of its own, one chunk
    /// long, and links to that (simplex-chat `Subscriber.hs`, on `SFDONE`; the redirect as simplexmq
    /// `Agent.hs` `xftpSendDescription'` makes it). The web link needs none: its fragment is compressed,
    /// and the xftp CLI never redirects it (`Client/Main.hs` 266-272).
    public static func needsRedirect(_ description: FileDescription) -> Bool { description.chunks.count != 1 }

    /// The xftp CLI's web link; only for a description whose first replica is on an XFTP server.
    public static func webLink(_ description: FileDescription) throws(LinkProblem) -> String {
        guard case .xftp(let server)? = description.chunks.first?.replicas.first?.server, let host = server.hosts.first else {
            throw .noXFTPServer
        }
        let fragment = Base64URL.encode(try RawDeflate.compress(Array(description.yaml().utf8)))
        return "https://" + host.connectName + "/#" + fragment
    }

    /// What a link holds: the description and the `data` text that came with it.
    public struct Parsed: Sendable, Equatable {
        public var description: FileDescription
        public var data: String?
    }

    /// Whether `text` looks like one of the links (rather than YAML).
    public static func isLink(_ text: String) -> Bool {
        let t = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return t.hasPrefix("simplex:") || t.hasPrefix("https://") || t.hasPrefix("http://")
    }

    public static func parse(_ link: String) throws(LinkProblem) -> Parsed {
        let text = link.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let hash = text.firstIndex(of: "#") else { throw .notALink("it has no '#'") }
        let before = text[..<hash]
        let fragment = text[text.index(after: hash)...]
        if fragment.hasPrefix("/?") {
            // FileDescriptionURI: `simplex:` or `https://host[:port]`, then `/file` or `/file/`.
            let isSimplex = before == "simplex:/file" || before == "simplex:/file/"
            let isAppServer = before.hasPrefix("https://") && (before.hasSuffix("/file") || before.hasSuffix("/file/"))
                && !before.dropFirst(8).prefix(while: { $0 != "/" }).isEmpty
            guard isSimplex || isAppServer else { throw .notALink("'\(before)' is neither simplex:/file nor https://<host>/file") }
            let query = fragment.dropFirst(2).prefix { $0 != " " && $0 != "\n" }
            let params = parseQuery(String(query))
            guard let desc = params.first(where: { $0.0 == "desc" })?.1 else { throw .noDescription }
            guard let yaml = String(validating: desc, as: UTF8.self) else { throw .badDescription(.notYAML("not UTF-8")) }
            let description: FileDescription
            do { description = try FileDescription.parse(yaml: yaml) } catch { throw .badDescription(error) }
            guard description.party == .recipient else { throw .notRecipient }
            let data = params.first(where: { $0.0 == "data" }).map { String(decoding: $0.1, as: UTF8.self) }
            return Parsed(description: description, data: data)
        }
        guard before.hasPrefix("https://") || before.hasPrefix("http://") else { throw .notALink("'\(before)' is not an https:// link") }
        guard !fragment.isEmpty else { throw .notALink("the link has no fragment") }
        guard let compressed = Base64URL.decodeLenient(String(fragment)) else { throw .notALink("the fragment is not base64url") }
        let yamlBytes = try RawDeflate.decompress(compressed, limit: TransferReceiverLimits.descriptionBytes)
        guard let yaml = String(validating: yamlBytes, as: UTF8.self) else { throw .badDescription(.notYAML("not UTF-8")) }
        let description: FileDescription
        do { description = try FileDescription.parse(yaml: yaml) } catch { throw .badDescription(error) }
        guard description.party == .recipient else { throw .notRecipient }
        return Parsed(description: description, data: nil)
    }

    /// http-types' `urlEncode True`: unreserved bytes kept, every other byte `%XX`.
    static func percentEncode(_ bytes: [UInt8]) -> String {
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for b in bytes {
            let keep = (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || (b >= 0x30 && b <= 0x39) || b == 0x2D || b == 0x5F || b == 0x2E || b == 0x7E
            if keep { out.append(b) } else { out += [0x25, hex[Int(b >> 4)], hex[Int(b & 15)]] }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// http-types' `parseSimpleQuery`: pairs split on `&` and `;`, key from value at the first `=`,
    /// `+` as a space, `%XX` decoded (an invalid escape kept as it is).
    static func parseQuery(_ query: String) -> [(String, [UInt8])] {
        query.split(whereSeparator: { $0 == "&" || $0 == ";" }).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = String(decoding: percentDecode(String(parts[0])), as: UTF8.self)
            return (key, parts.count > 1 ? percentDecode(String(parts[1])) : [])
        }
    }

    static func percentDecode(_ text: String) -> [UInt8] {
        let bytes = Array(text.utf8)
        var out: [UInt8] = []
        var i = 0
        func hexValue(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: c - 0x30
            case 0x41...0x46: c - 0x37
            case 0x61...0x66: c - 0x57
            default: nil
            }
        }
        while i < bytes.count {
            if bytes[i] == 0x25, i + 2 < bytes.count, let h = hexValue(bytes[i + 1]), let l = hexValue(bytes[i + 2]) {
                out.append(h << 4 | l)
                i += 3
            } else {
                out.append(bytes[i] == 0x2B ? 0x20 : bytes[i])
                i += 1
            }
        }
        return out
    }
}

/// Why a link cannot be used.
public enum LinkProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notALink(String)
    case noDescription
    case badDescription(DescriptionProblem)
    case notRecipient
    case notCompressed
    case tooLong(limit: Int)
    case compression(String)
    case noXFTPServer

    public var description: String {
        switch self {
        case .notALink(let why): return "not a file link: \(why)"
        case .noDescription: return "the link has no desc= parameter"
        case .badDescription(let problem): return "the link's description is not valid: \(problem)"
        case .notRecipient: return "the link holds a sender description; links carry recipient descriptions"
        case .notCompressed: return "the link's fragment is not a compressed description"
        case .tooLong(let limit): return "the link's description is over \(limit) bytes"
        case .compression(let why): return "compression failed: \(why)"
        case .noXFTPServer: return "a web link needs a description whose first replica is on an XFTP server"
        }
    }
}

/// Bounds on what a receiver reads before it knows it is a description.
public enum TransferReceiverLimits {
    /// A description of a 5 GiB file in 64 KiB chunks is about 15 MB of YAML.
    public static let descriptionBytes = 16 << 20
}

extension FileDescription {
    /// Reads a description from a file holding its YAML or one of its links.
    public static func load(_ path: String) throws -> FileDescription { try loadWithData(path).0 }

    /// The same, with a link's `data` text (device migration puts its network settings there).
    public static func loadWithData(_ path: String) throws -> (FileDescription, data: String?) {
        let bytes = try FileBytes.read(path, limit: TransferReceiverLimits.descriptionBytes)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw TransferError.badDescription(path: path, problem: .notYAML("not UTF-8")) }
        return try parse(text, source: path)
    }

    /// Parses YAML or a link; `source` names it in errors.
    public static func parse(_ text: String, source: String) throws -> (FileDescription, data: String?) {
        if FileDescriptionLink.isLink(text) {
            do {
                let parsed = try FileDescriptionLink.parse(text)
                return (parsed.description, parsed.data)
            } catch {
                throw TransferError.badLink(source: source, problem: error)
            }
        }
        do {
            return (try parse(yaml: text), nil)
        } catch {
            throw TransferError.badDescription(path: source, problem: error)
        }
    }

    /// Writes the YAML atomically, mode 0600 (it grants access to the file).
    public func save(to path: String) throws {
        try AtomicFileWriter.write(Array(yaml().utf8), to: path, mode: 0o600)
    }
}
