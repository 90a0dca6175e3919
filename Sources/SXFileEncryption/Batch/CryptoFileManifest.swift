import SXCrypto
import Foundation
import SXCore

/// A JSON array of CryptoFile objects (FORMATS §5): `{"filePath": …, "cryptoArgs": {…}}`.
/// `filePath` is relative to the manifest's folder when the file is inside it, else absolute.
/// Written atomically, mode 0600: it holds every key.
public struct CryptoFileManifest: Sendable {
    public struct Entry: Sendable {
        /// Absolute path of the encrypted file.
        public var path: String
        /// Nil for a plaintext file (`cryptoArgs` absent).
        public var args: CryptoFileArgs?
        /// The entry's JSON text, made once: a batch rewrites the manifest after every group.
        fileprivate var json: String
    }

    /// Absolute path of the manifest file.
    public let path: String
    public var folder: String { Path.parent(path) }
    private var entries: [String: Entry] = [:]

    public var count: Int { entries.count }
    public var allEntries: [Entry] { entries.values.sorted { $0.path < $1.path } }

    /// An empty manifest that will be written to `path`.
    public init(path: String) {
        self.path = Path.absolute(path)
    }

    /// Reads the manifest; a missing file is an empty manifest.
    public static func load(_ path: String) throws -> CryptoFileManifest {
        var manifest = CryptoFileManifest(path: path)
        guard POSIXFile.exists(manifest.path) else { return manifest }
        let bytes = try FileBytes.read(manifest.path, limit: 1 << 30)
        let raw: [RawEntry]
        do {
            raw = try JSONDecoder().decode([RawEntry].self, from: Data(bytes))
        } catch {
            throw ManifestError.notAManifest(path: manifest.path, detail: "not a JSON array of CryptoFile objects (\(Self.summary(error)))")
        }
        for (i, r) in raw.enumerated() {
            var args: CryptoFileArgs?
            if let a = r.cryptoArgs {
                do { args = try JSONDecoder().decode(CryptoFileArgs.self, from: JSONEncoder().encode(a)) } catch {
                    throw ManifestError.badEntry(path: manifest.path, index: i, filePath: r.filePath, detail: ErrorCause.text(of: error))
                }
            }
            let absolute = Path.absolute(r.filePath, relativeTo: manifest.folder)
            manifest.entries[absolute] = manifest.makeEntry(absolute, args)
        }
        return manifest
    }

    public func entry(for absolutePath: String) -> Entry? { entries[absolutePath] }
    public func args(for absolutePath: String) -> CryptoFileArgs? { entries[absolutePath]?.args }

    public mutating func set(_ absolutePath: String, args: CryptoFileArgs) {
        entries[absolutePath] = makeEntry(absolutePath, args)
    }

    private func makeEntry(_ absolutePath: String, _ args: CryptoFileArgs?) -> Entry {
        var line = "  {\"filePath\": \(JSONText.quote(storedPath(absolutePath), keepingRawBytes: true))"
        if let args {
            let key = args.key.withUnsafeBytes { Base64URL.encode($0) }
            line += ", \"cryptoArgs\": {\"fileKey\": \"\(key)\", \"fileNonce\": \"\(Base64URL.encode(args.nonce))\"}"
        }
        return Entry(path: absolutePath, args: args, json: line + "}")
    }

    public mutating func remove(_ absolutePath: String) { entries[absolutePath] = nil }

    /// The `filePath` written for an absolute path.
    public func storedPath(_ absolutePath: String) -> String {
        Path.relative(absolutePath, inside: folder) ?? absolutePath
    }

    /// One entry a line, fields in the order of FORMATS §5 (`filePath`, then `cryptoArgs` with
    /// `fileKey`, `fileNonce`). Written by hand: Foundation's encoder does not keep key order.
    public func encoded() -> [UInt8] {
        let lines = allEntries.map(\.json)
        return Array(("[\n" + lines.joined(separator: ",\n") + (lines.isEmpty ? "" : "\n") + "]\n").utf8)
    }

    /// Atomic, durable, 0600.
    public func save() throws {
        try AtomicFileWriter.write(encoded(), to: path, mode: 0o600)
    }

    struct RawArgs: Codable { var fileKey: String; var fileNonce: String }
    struct RawEntry: Codable { var filePath: String; var cryptoArgs: RawArgs? }

    static func summary(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let c): return c.debugDescription
        case DecodingError.keyNotFound(let k, _): return "missing \(k.stringValue)"
        case DecodingError.typeMismatch(_, let c): return c.debugDescription
        case DecodingError.valueNotFound(_, let c): return c.debugDescription
        default: return ErrorCause.text(of: error)
        }
    }
}

public enum ManifestError: SXError {
    case notAManifest(path: String, detail: String)
    case badEntry(path: String, index: Int, filePath: String, detail: String)
    case busy(path: String)
    /// One file's key and nonce were given, but the path is a folder of files.
    case oneFileExpected(path: String)

    public var description: String {
        switch self {
        case .notAManifest(let p, let d): return "manifest '\(p)' is unusable: \(d); nothing was changed"
        case .badEntry(let p, let i, let f, let d): return "manifest '\(p)', entry \(i + 1) ('\(f)'): \(d); nothing was changed"
        case .busy(let p): return "another sxkit process is working with manifest '\(p)'; wait for it to finish"
        case .oneFileExpected(let p): return "'\(p)' is a folder, and one key and nonce decrypt one file; nothing was changed"
        }
    }

    public var remedy: Remedy? {
        if case .oneFileExpected = self { return .decryptOneFile }
        return nil
    }
}
