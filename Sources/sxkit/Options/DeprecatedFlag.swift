import SXCore
import SXTerminal

/// A flag kept under its old name so scripts keep working: hidden from help, and each use says
/// once on stderr which flag replaces it.
enum DeprecatedFlag {
    /// The note for `old` (given) in favour of `replacement`; nothing when `old` was not given.
    static func note(_ old: String, given: Bool, use replacement: String) {
        guard given else { return }
        ConsoleOutput.standardError.writeLine("sxkit: note: \(old) is deprecated; use \(replacement)")
    }
}
