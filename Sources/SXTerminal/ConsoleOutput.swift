import Foundation
import SXCore
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A locked writer to a file descriptor, so that lines from concurrent workers never interleave.
/// Only the CLI hands these out; library code reports through return values and trackers, and never
/// imports this module.
public final class ConsoleOutput: Sendable {
    public let descriptor: Int32
    private let lock = Mutex(())

    public init(descriptor: Int32) { self.descriptor = descriptor }

    public static let standardOutput = ConsoleOutput(descriptor: STDOUT_FILENO)
    public static let standardError = ConsoleOutput(descriptor: STDERR_FILENO)

    public var isTerminal: Bool { isatty(descriptor) == 1 }

    public func write(_ text: String) {
        lock.withLock { _ in
            // A name that is not UTF-8 is shown escaped (`caf\xE9.jpg`), never as private-use characters.
            var bytes = Array(FileNameBytes.display(text).utf8)
            bytes.withUnsafeMutableBytes { buf in
                // A closed pipe (e.g. `| head`) is not an error worth reporting.
                try? POSIXFile.writeAll(descriptor, UnsafeRawBufferPointer(buf), path: "<output>")
            }
        }
    }

    public func writeLine(_ text: String) { write(text + "\n") }

    /// Columns of the terminal, or 80 when unknown.
    public func terminalWidth() -> Int {
        var size = winsize()
        if ioctl(descriptor, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 { return Int(size.ws_col) }
        return 80
    }
}
