/// Which migrations may run without asking (FORMATS §4). Up migrations on a database that has
/// none recorded yet never need confirming: there is nothing to lose.
public enum MigrationConfirmation {
    /// Run up migrations; refuse down migrations.
    case yesUp
    /// Run up and down migrations.
    case yesUpDown
    /// Run nothing that needs confirming; report it instead.
    case error
    /// Ask: the closure is shown the work (`.upgrade` or `.downgrade`) and answers yes or no.
    /// The library never prints; the caller decides how to ask.
    case console(ask: (MigrationError) -> Bool)

    /// The names FORMATS §4 uses, which `init(name:ask:)` accepts.
    public static let names = ["yesUp", "yesUpDown", "error", "console"]

    /// Parses a mode name; nil for an unknown name, and for `console` without `ask` (nothing could
    /// ask), which `Migrator` reports as `invalidConfirmation`.
    public init?(name: String, ask: ((MigrationError) -> Bool)? = nil) {
        switch name {
        case "yesUp": self = .yesUp
        case "yesUpDown": self = .yesUpDown
        case "error": self = .error
        case "console":
            guard let ask else { return nil }
            self = .console(ask: ask)
        default: return nil
        }
    }

    /// Whether `work` may run.
    func allows(_ work: MigrationError) -> Bool {
        switch (self, work) {
        case (.yesUpDown, _): true
        case (.yesUp, .upgrade): true
        case (.yesUp, _), (.error, _): false
        case (.console(let ask), _): ask(work)
        }
    }
}
