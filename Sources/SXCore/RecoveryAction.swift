/// What settling an interrupted multi-step operation did (an archive import, a passphrase change).
public enum RecoveryAction: String, Sendable, Codable {
    /// Nothing was left over.
    case none
    /// The replacing had begun: it was finished, so the data is the new one.
    case rolledForward
    /// Nothing had been replaced yet: the new copies were deleted, so the data is as it was.
    case rolledBack
}
