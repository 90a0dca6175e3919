import SXCore

/// How every recovery (`db recover`, `archive recover`) says what it found and did.
enum RecoveryText {
    static func lines(_ report: some RecoveryReport) -> [String] {
        report.action == .none ? ["Nothing to recover."] : ["Found: \(report.found).", "Done: \(report.done)."]
    }
}
