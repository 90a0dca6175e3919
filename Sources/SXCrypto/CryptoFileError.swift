import SXCore

public enum CryptoFileError: SXError, Equatable {
    /// Shorter than the 16-byte tag: cannot be a CryptoFile.
    case invalidFileSize(path: String)
    /// The tag does not match: wrong key or nonce, or the file was modified.
    case invalidAuthTag(path: String)
    /// SimpleX's tag does not match, but the one of sxkit before 0.2.0 (the key used directly, a
    /// non-SimpleX schedule) does: the file is intact, and the SimpleX apps cannot open it.
    case earlierKeySchedule(path: String)
    /// The file grew or shrank while it was being read.
    case changedWhileReading(path: String)
    case badArguments(String)

    public var description: String {
        switch self {
        case .invalidFileSize(let p):
            return "'\(p)': invalid file size — a CryptoFile holds at least its 16-byte tag"
        case .invalidAuthTag(let p):
            return "'\(p)': invalid auth tag — wrong key or nonce, or the file was modified; no plaintext was written"
        case .earlierKeySchedule(let p):
            return "'\(p)': encrypted by an earlier sxkit with a non-SimpleX key schedule — intact, but the SimpleX apps cannot open it; decrypt it, or re-encrypt it with SimpleX's schedule"
        case .changedWhileReading(let p):
            return "'\(p)' changed while it was being read; nothing was written, run the command again"
        case .badArguments(let why):
            return "bad CryptoFile arguments: \(why)"
        }
    }
}
