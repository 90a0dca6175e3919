import SXCore

extension RelayError: SXError {}

/// Why a transfer could not be planned, sent or received; each reads as a sentence a user can act on.
public enum TransferError: SXError, Equatable {
    /// Larger than the limit that applies (named as in FORMATS §1).
    case tooLarge(size: Int64, limitName: String, limit: Int64)
    /// A file description that cannot be used, and why.
    case badDescription(path: String, problem: DescriptionProblem)
    /// The description is for the other party (e.g. `cancel` given a recipient description).
    case wrongParty(path: String, expected: FileDescription.Party, found: FileDescription.Party)
    /// A downloaded chunk's SHA-256 differs from the description's, even after fetching it again.
    case chunkDigestMismatch(chunk: Int, relay: String)
    /// The chunks verified one by one but the whole file's SHA-512 differs.
    case fileDigestMismatch(path: String)
    /// The decrypted file name cannot be used as a file name here.
    case unsafeFileName(String)
    /// The destination exists already and would be overwritten.
    case destinationExists(path: String)
    /// The send's state file belongs to a different file or relay.
    case stateMismatch(path: String, reason: String)
    /// A file link that cannot be used, and why.
    case badLink(source: String, problem: LinkProblem)
    /// A redirect description whose file is not the description it promises.
    case badRedirect(path: String, reason: String)
    /// The transfer was cancelled while it ran.
    case cancelled
    /// A description too large to go as a redirect's single 4 MiB chunk.
    case redirectTooLarge(bytes: Int64)
    /// Another run is receiving the same file right now, in the same work folder.
    case receiveInProgress(workFolder: String)
    /// A web link was asked of a send to a folder relay: the link names an XFTP server's host.
    case webLinkNeedsXFTPServer(relay: String)

    public var description: String {
        switch self {
        case .tooLarge(let size, let name, let limit):
            return "the file is \(size) bytes, over \(name) (\(limit) bytes, \(ByteCount.format(limit)))"
        case .badDescription(let path, let problem):
            return "file description '\(path)' is not valid: \(problem)"
        case .wrongParty(let path, let expected, let found):
            return "'\(path)' is a \(found.rawValue) description; this needs the \(expected.rawValue) description"
        case .chunkDigestMismatch(let chunk, let relay):
            return "chunk \(chunk) from relay \(relay) does not match its SHA-256 digest, also when fetched again; it was corrupted or truncated on the relay, and nothing was decrypted"
        case .fileDigestMismatch(let path):
            return "the downloaded file for '\(path)' does not match its SHA-512 digest; nothing was decrypted"
        case .unsafeFileName(let name):
            return "the sender's file name \(name.debugDescription) cannot be used here; give the destination with -o"
        case .destinationExists(let path):
            return "'\(path)' already exists; choose another destination with -o or remove it"
        case .stateMismatch(let path, let reason):
            return "the saved transfer state '\(path)' does not belong to this transfer (\(reason)); remove it to start over"
        case .badLink(let source, let problem):
            return "'\(source)': \(problem)"
        case .badRedirect(let path, let reason):
            return "the redirect description '\(path)' cannot be followed: \(reason)"
        case .redirectTooLarge(let bytes):
            return "the description (\(bytes) bytes) is too large to send as a redirect, which is one chunk of at most 4 MiB"
        case .cancelled:
            return "the transfer was cancelled"
        case .receiveInProgress(let work):
            return "another sxkit run is receiving this file now (it holds the work folder '\(work)'); wait for it to finish, or stop it and run this again to resume"
        case .webLinkNeedsXFTPServer(let relay):
            return "a web link names the XFTP server that holds the file's first chunk, and '\(relay)' is a folder relay, which has none; send to an XFTP server for a web link, or ask for the simplex link only. Nothing was uploaded"
        }
    }

    public var remedy: Remedy? {
        if case .tooLarge(let size, let name, _) = self, name == "MAX_FILE_SIZE_XFTP", size <= SimpleXLimits.maxFileSizeXFTPHard {
            return .allowAboveSoftSizeLimit
        }
        return nil
    }
}

/// What is wrong with a file description, precisely.
public enum DescriptionProblem: Error, Sendable, Equatable, CustomStringConvertible {
    case notYAML(String)
    case missingField(String)
    /// Present but not of the shape SimpleX writes (a list where a value belongs, …).
    case badField(field: String, reason: String)
    /// The chunk sizes add up past what a 64-bit size holds (a crafted description).
    case chunkSizesOverflow
    case badServer(AddressProblem)
    /// SimpleX refuses a server password inside a file description.
    case serverWithPassword(String)
    case sizeOverLimit(field: String, size: Int64, limit: Int64)
    case noReplicas(chunk: Int)
    case unknownParty(String)
    case badSize(field: String, value: String)
    case badBase64(field: String)
    case wrongLength(field: String, expected: Int, actual: Int)
    case badChunkLine(line: String, reason: String)
    case chunkNumbersOutOfOrder(expected: Int, found: Int)
    case sizesDoNotAddUp(sum: Int64, size: Int64)
    case conflictingReplicas(chunk: Int)
    case noDigest(chunk: Int)
    case noChunks

    public var description: String {
        switch self {
        case .notYAML(let why): return "it is not YAML (\(why))"
        case .missingField(let name): return "the field '\(name)' is missing"
        case .badField(let name, let reason): return "the field '\(name)' is not valid: \(reason)"
        case .badServer(let problem): return "\(problem)"
        case .serverWithPassword(let text): return "server '\(text)' carries a password, which a file description may not (SimpleX refuses it)"
        case .sizeOverLimit(let field, let size, let limit): return "\(field) \(size) is over the protocol's limit of \(limit) bytes"
        case .chunkSizesOverflow: return "its chunk sizes add up to more than a 64-bit size holds (8 EiB): no file is that large"
        case .noReplicas(let chunk): return "chunk \(chunk) has no replica"
        case .unknownParty(let value): return "party '\(value)' is neither 'sender' nor 'recipient'"
        case .badSize(let field, let value): return "\(field) '\(value)' is not a size (N, Nkb, Nmb or Ngb)"
        case .badBase64(let field): return "\(field) is not base64url"
        case .wrongLength(let field, let expected, let actual): return "\(field) is \(actual) bytes, expected \(expected)"
        case .badChunkLine(let line, let reason): return "chunk line '\(line)': \(reason)"
        case .chunkNumbersOutOfOrder(let expected, let found): return "chunk numbers are not 1…n in order (expected \(expected), found \(found))"
        case .sizesDoNotAddUp(let sum, let size): return "the chunk sizes add up to \(sum), but size is \(size)"
        case .conflictingReplicas(let chunk): return "the replicas of chunk \(chunk) give different digests or sizes"
        case .noDigest(let chunk): return "chunk \(chunk) has no digest"
        case .noChunks: return "it lists no chunks"
        }
    }
}
