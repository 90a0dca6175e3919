/// A non-fatal problem met during export or import (FORMATS §5): the work completes, and the list is
/// reported. A fatal problem is an `ArchiveFailure` instead and aborts.
///
/// JSON: `{"type":"import","importError":"…"}` or `{"type":"fileError","file":"…","fileError":"…"}`.
public enum ArchiveError: Sendable, Equatable, Codable {
    case `import`(importError: String)
    case fileError(file: String, fileError: String)

    enum CodingKeys: String, CodingKey { case type, importError, file, fileError }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .import(let importError):
            try c.encode("import", forKey: .type)
            try c.encode(importError, forKey: .importError)
        case .fileError(let file, let fileError):
            try c.encode("fileError", forKey: .type)
            try c.encode(file, forKey: .file)
            try c.encode(fileError, forKey: .fileError)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(String.self, forKey: .type) {
        case "import": self = .import(importError: try c.decode(String.self, forKey: .importError))
        case "fileError": self = .fileError(file: try c.decode(String.self, forKey: .file), fileError: try c.decode(String.self, forKey: .fileError))
        case let other:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown ArchiveError type '\(other)'")
        }
    }

    /// One line for humans.
    public var sentence: String {
        switch self {
        case .import(let message): message
        case .fileError(let file, let message): "\(file): \(message)"
        }
    }
}
