import SXCore

/// Why a transfer-encrypted file (FORMATS §7) could not be made or read back.
public enum TransferFileError: SXError, Equatable {
    /// The file name or extra text does not fit the one-byte length of the header.
    case headerFieldTooLong(field: String, bytes: Int)
    /// The encrypted file is not the size its plan says (truncated or padded on the way).
    case wrongEncryptedSize(path: String, expected: Int64, actual: Int64)
    /// The tag does not match: wrong key or nonce, or a byte changed; no plaintext was released.
    case invalidAuthTag(path: String)
    /// The tag matched but the decrypted layout is not a transfer file (cannot happen without the key).
    case invalidLayout(path: String, reason: String)
    /// A padding byte is not `#`.
    case invalidPadding(path: String)

    public var description: String {
        switch self {
        case .headerFieldTooLong(let field, let bytes):
            return "the \(field) is \(bytes) bytes in UTF-8; a transfer file header holds at most 255"
        case .wrongEncryptedSize(let path, let expected, let actual):
            return "'\(path)' is \(actual) bytes but the transfer plan says \(expected); it was truncated or altered"
        case .invalidAuthTag(let path):
            return "'\(path)': invalid auth tag — wrong key or nonce, or the encrypted file was modified (or it was sent by sxkit before 0.2.0, whose key schedule SimpleX does not use: have it sent again); no plaintext was written"
        case .invalidLayout(let path, let reason):
            return "'\(path)' is not a valid transfer file: \(reason); no plaintext was written"
        case .invalidPadding(let path):
            return "'\(path)' has padding bytes other than '#'; the file is not a valid transfer file and no plaintext was written"
        }
    }
}
