/// An interrupted journalled operation that must be settled before anything else touches what it
/// was changing. Thrown when a command that writes meets it; shown as a warning by one that reads.
public struct PendingRecovery: SXError, Equatable {
    public var operation: InterruptedOperation
    /// What was found, in one sentence.
    public var summary: String

    public init(operation: InterruptedOperation, summary: String) {
        self.operation = operation
        self.summary = summary
    }

    public init(_ leftovers: some OperationLeftovers) {
        self.init(operation: type(of: leftovers).operation, summary: leftovers.summary)
    }

    public var description: String { "\(summary); it must be settled first, and nothing was changed" }
    public var remedy: Remedy? { .recover(operation) }
}

/// The one rule for a previous run's leftovers: a command that is (or begins with) the recovery of
/// that operation goes on and settles it; a command that writes refuses, since settling the
/// operation afterwards would undo its changes or be undone by them; a command that only reads goes
/// on, and says what it found.
public enum LeftoverPolicy {
    /// Throws `pending` when the command `writes` and does not settle it; returns it when the
    /// command should go on with a warning; nil when there is nothing to say.
    public static func check(_ pending: PendingRecovery?, writes: Bool, settles: Bool = false) throws -> PendingRecovery? {
        guard let pending, !settles else { return nil }
        if writes { throw pending }
        return pending
    }
}
