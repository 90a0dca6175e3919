import CSodium
import SXCore

/// libsodium, initialised once per process before any primitive is used.
public enum SodiumRuntime {
    /// sodium_init picks the fastest implementations for this CPU; it must run before use.
    public static let started: Bool = { sodium_init() >= 0 }()

    /// "1.0.18".
    public static var version: String { String(cString: sodium_version_string()) }

    /// Fills `buffer` from the operating system's CSPRNG.
    public static func randomBytes(_ buffer: UnsafeMutableRawBufferPointer) {
        precondition(started, "libsodium failed to initialise")
        randombytes_buf(buffer.baseAddress!, buffer.count)
    }
}
