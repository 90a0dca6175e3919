#if canImport(Glibc)
import Glibc
#endif

/// Named instants inside multi-step writes where the crash-safety tests kill the process, so that
/// every interesting instant is tested deterministically rather than by a lucky timer.
///
/// The process kills itself with SIGKILL (exactly what `kill -9` does: no cleanup, no atexit) when
/// the environment variable `SXKIT_CRASH_AT` names the point. Unset, this costs one dictionary lookup.
public enum CrashPoint {
    public static let environmentVariable = "SXKIT_CRASH_AT"

    private static let armed: String? = getenv(environmentVariable).map { String(cString: $0) }

    /// Names the point where the process sends itself SIGINT, as Ctrl-C would, and then waits for
    /// the signal to end it: the work is frozen there, so a test sees exactly what the interrupt
    /// handling leaves (see `LiveTemps`).
    public static let interruptVariable = "SXKIT_INTERRUPT_AT"

    private static let interruptArmed: String? = getenv(interruptVariable).map { String(cString: $0) }

    public static func reach(_ name: String) {
        if let interruptArmed, interruptArmed == name {
            kill(getpid(), SIGINT)
            while true { pause() }
        }
        guard let armed, armed == name else { return }
        raise(SIGKILL)
    }
}
