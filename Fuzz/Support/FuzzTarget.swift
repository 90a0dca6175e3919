import SXCore

/// One parser under fuzzing (README "Fuzzing"). A target is an executable whose type conforms to this
/// and is marked `@main`; the same file is two tools:
///
/// - built with `-DSXKIT_FUZZ` and `-sanitize=fuzzer,address` (`scripts/fuzz`), libFuzzer drives
///   `fuzz` with generated inputs, keeping those that reach new code;
/// - built normally, it replays files (a corpus, past findings) through `fuzz`, or writes its seeds.
///
/// `fuzz` calls the real parser through its public API. A thrown error is a pass: hostile input must
/// be refused, not crash. A trap (an overflow, an index out of range, a failed `precondition` on a
/// property the parser promises), an AddressSanitizer report, a hang or a leak is a finding.
public protocol FuzzTarget {
    static func fuzz(_ bytes: UnsafeRawBufferPointer)
    /// Named starting inputs, built from the repository's fixtures and the real encoders.
    static func seeds() throws -> [(name: String, bytes: [UInt8])]
}

extension FuzzTarget {
    public static func main() {
        FuzzDriver.run(fuzz, seeds: seeds)
    }

    /// `fuzz` over an array (seeds, tests of the target itself).
    public static func fuzz(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { fuzz($0) }
    }
}
