import SXCore

public enum CryptoFileError: SXError, Equatable {
    /// Shorter than the 16-byte tag: cannot be a CryptoFile.
    case invalidFileSize(path: String)
    /// The tag does not match: wrong key or nonce, or the file was modified.
    case invalidAuthTag(path: String)
    /// The file grew or shrank while it was being read.
    case changedWhileReading(path: String)
    case badArguments(String)

    public var description: String {
        switch self {
        case .invalidFileSize(let p):
            return "'\(p)': invalid file size — a CryptoFile holds at least its 16-byte tag"
        case .invalidAuthTag(let p):
            return "'\(p)': invalid auth tag — wrong key or nonce, or the file was modified; no plaintext was written"
        case .changedWhileReading(let p):
            return "'\(p)' changed while it was being read; nothing was written, run the command again"
        case .badArguments(let why):
            return "bad CryptoFile arguments: \(why)"
        }
    }
}
