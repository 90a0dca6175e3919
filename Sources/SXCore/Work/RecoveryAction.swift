/// What settling an interrupted multi-step operation did (an archive import, a passphrase change).
public enum RecoveryAction: String, Sendable, Codable {
    /// Nothing was left over.
    case none
    /// The replacing had begun: it was finished, so the data is the new one.
    case rolledForward
    /// Nothing had been replaced yet: the new copies were deleted, so the data is as it was.
    case rolledBack
}

/// What settling any journalled operation reports, in one shape: what was found and what was done,
/// each one sentence, and which way it went. Passphrase change and archive import both report so.
public protocol RecoveryReport: Sendable, Codable {
    var action: RecoveryAction { get }
    /// What was found, in one sentence.
    var found: String { get }
    /// What was done, in one sentence.
    var done: String { get }
}

/// What an interrupted journalled operation left, found by names alone (nothing is opened), so
/// every command can afford to look.
public protocol OperationLeftovers: Sendable {
    /// The journal, when the operation had passed its point of no return.
    var journal: String? { get }
    /// What was found, in one sentence.
    var summary: String { get }
    static var operation: InterruptedOperation { get }
}
