import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A locked writer to a file descriptor, so that lines from concurrent workers never interleave.
/// Only the CLI hands these out; library code reports through return values and trackers.
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

/// Human-readable byte counts in binary units ("1.5 GiB").
public enum ByteCount {
    public static func format(_ bytes: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(bytes)
        var unit = 0
        while abs(value) >= 1024, unit < units.count - 1 { value /= 1024; unit += 1 }
        return unit == 0 ? "\(bytes) B" : String(format: value < 10 ? "%.2f" : "%.1f", value) + " " + units[unit]
    }
}

/// Minimal JSON text helpers for hand-assembled lines (event streams), where building a Codable
/// type per line would be noise. Strings are escaped exactly as aeson escapes them (`\\`, `\"`, `\n`,
/// `\r`, `\t`, other control characters as lower-case `\u00xx`, the rest raw), so lines meant to match
/// the chat core's bytes use it too.
public enum JSONText {
    /// `s` as a JSON string. A byte of a name that is not UTF-8 is shown as `\\xE9` (the value reads
    /// `\xE9`); for a file sxkit reads back (a manifest), `keepingRawBytes` writes it as the JSON
    /// escape of its carrying character (`\uEFE9`), which decodes to the same path.
    public static func quote(_ s: String, keepingRawBytes: Bool = false) -> String {
        var out = "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            case _ where FileNameBytes.isEscape(scalar):
                out += keepingRawBytes ? String(format: "\\u%04X", scalar.value) : FileNameBytes.display(String(scalar), prefix: "\\\\x")
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
