import SXCore

/// A fatal archive problem: nothing was changed (import) or no archive was left behind (export).
public struct ArchiveFailure: SXError, Equatable {
    public let message: String
    public let remedy: Remedy?
    public init(_ message: String, remedy: Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }
    public var description: String { message }
}
