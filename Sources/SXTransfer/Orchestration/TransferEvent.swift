import SXCore

/// What a send or receive reports while it runs, named as SimpleX names them (FORMATS §5) and
/// written as `"type"`-tagged JSON objects, one a line when streaming.
public enum TransferEvent: Sendable, Equatable {
    case sndFileStart(fileName: String, fileSize: Int64, encryptedSize: Int64, chunks: Int)
    case sndFileProgressXFTP(sentSize: Int64, totalSize: Int64)
    /// `chunksUploaded`: by this run (fewer than the chunks when an interrupted run sent some);
    /// `alreadySent`: a rerun of a send that had finished, which checked its descriptions and sent nothing.
    case sndFileCompleteXFTP(senderDescription: String, recipientDescriptions: [String], chunksUploaded: Int, alreadySent: Bool)
    case sndFileError(error: String)
    case sndFileWarning(warning: String)
    case rcvFileStart(encryptedSize: Int64, chunks: Int)
    case rcvFileProgressXFTP(receivedSize: Int64, totalSize: Int64)
    /// `alreadyPresent`: the destination already held these very bytes (a rerun after a kill); nothing was written.
    case rcvFileComplete(path: String, fileName: String, fileSize: Int64, alreadyPresent: Bool)
    case rcvFileError(error: String)
    case rcvFileWarning(warning: String)
    case rcvFileSndCancelled(error: String)

    public var type: String {
        switch self {
        case .sndFileStart: return "sndFileStart"
        case .sndFileProgressXFTP: return "sndFileProgressXFTP"
        case .sndFileCompleteXFTP: return "sndFileCompleteXFTP"
        case .sndFileError: return "sndFileError"
        case .sndFileWarning: return "sndFileWarning"
        case .rcvFileStart: return "rcvFileStart"
        case .rcvFileProgressXFTP: return "rcvFileProgressXFTP"
        case .rcvFileComplete: return "rcvFileComplete"
        case .rcvFileError: return "rcvFileError"
        case .rcvFileWarning: return "rcvFileWarning"
        case .rcvFileSndCancelled: return "rcvFileSndCancelled"
        }
    }

    /// The fields besides `type`, in a stable order.
    var fields: [(String, Any)] {
        switch self {
        case .sndFileStart(let name, let size, let encrypted, let chunks):
            return [("fileName", name), ("fileSize", size), ("encryptedSize", encrypted), ("chunks", chunks)]
        case .sndFileProgressXFTP(let sent, let total): return [("sentSize", sent), ("totalSize", total)]
        case .sndFileCompleteXFTP(let sender, let recipients, let uploaded, let already):
            return [("senderDescription", sender), ("recipientDescriptions", recipients), ("chunksUploaded", uploaded), ("alreadySent", already)]
        case .sndFileError(let error), .rcvFileError(let error), .rcvFileSndCancelled(let error): return [("error", error)]
        case .sndFileWarning(let warning), .rcvFileWarning(let warning): return [("warning", warning)]
        case .rcvFileStart(let encrypted, let chunks): return [("encryptedSize", encrypted), ("chunks", chunks)]
        case .rcvFileProgressXFTP(let received, let total): return [("receivedSize", received), ("totalSize", total)]
        case .rcvFileComplete(let path, let name, let size, let already):
            return [("path", path), ("fileName", name), ("fileSize", size), ("alreadyPresent", already)]
        }
    }

    /// One compact JSON object: `{"type":"sndFileProgressXFTP","sentSize":…,"totalSize":…}`.
    public var json: String {
        var parts = ["\"type\":\"\(type)\""]
        for (key, value) in fields { parts.append("\"\(key)\":" + Self.encode(value)) }
        return "{" + parts.joined(separator: ",") + "}"
    }

    private static func encode(_ value: Any) -> String {
        switch value {
        case let s as String: return JSONText.quote(s)
        case let list as [String]: return "[" + list.map { encode($0) }.joined(separator: ",") + "]"
        case let n as Int64: return String(n)
        case let n as Int: return String(n)
        case let b as Bool: return b ? "true" : "false"
        default: return "null"
        }
    }
}

/// Receives events; called from worker tasks, so it must be thread-safe.
public typealias TransferEventHandler = @Sendable (TransferEvent) -> Void

/// How hard to try: parallel chunks and retries of transient relay errors with exponential backoff.
public struct TransferPolicy: Sendable {
    public var parallelChunks: Int
    public var attempts: Int
    public var firstBackoff: Duration
    public var maxBackoff: Duration

    /// Attempts per network operation: the xftp CLI's default (simplexmq `Client/Main.hs`
    /// `defaultRetryCount = 3`, `withRetry n` makes at most n attempts). With the backoff below, an
    /// unreachable relay is given up on within about a second plus the connection timeouts.
    public static let defaultAttempts = 3

    public init(parallelChunks: Int = 4, attempts: Int = defaultAttempts, firstBackoff: Duration = .milliseconds(200), maxBackoff: Duration = .seconds(5)) {
        self.parallelChunks = max(1, parallelChunks)
        self.attempts = max(1, attempts)
        self.firstBackoff = firstBackoff
        self.maxBackoff = maxBackoff
    }

    /// Runs `body`, retrying transient relay errors; `warn` hears of each retry.
    func withRetries<T: Sendable>(_ what: String, warn: (String) -> Void, _ body: () async throws -> T) async throws -> T {
        var delay = firstBackoff
        for attempt in 1... {
            do {
                return try await body()
            } catch let error as RelayError where error.isTransient && attempt < attempts {
                warn("\(what): \(ErrorCause.text(of: error)); retrying in \(delay) (attempt \(attempt + 1) of \(attempts))")
                try await Task.sleep(for: delay)
                delay = min(delay * 2, maxBackoff)
            }
        }
        fatalError("unreachable")
    }
}

