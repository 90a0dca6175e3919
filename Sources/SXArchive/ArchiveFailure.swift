import SXCore

/// A fatal archive problem: nothing was changed (import) or no archive was left behind (export).
public struct ArchiveFailure: SXError, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
