import Foundation
import SXCore

/// The one printer of `--json` output (README, "JSON output"): every object is one compact line, keys
/// sorted, slashes unescaped. A one-shot command prints exactly one document, an object; a streaming
/// command prints one `"type"`-tagged object a line (NDJSON) and nothing else.
public enum JSONDocument {
    /// The one document of a one-shot command, on stdout. Its top level is an object, never an array:
    /// a script can always add a key without breaking readers.
    public static func print<T: Encodable>(_ value: T) throws {
        ConsoleOutput.standardOutput.writeLine(try line(value))
    }

    /// One event of a stream, on stdout; `value` encodes its own `"type"`.
    public static func event<T: Encodable>(_ value: T) {
        // Our event types encode plain strings and numbers only, so encoding cannot fail.
        if let text = try? line(value) { ConsoleOutput.standardOutput.writeLine(text) }
    }

    /// `{"type":"warning","warning":…}`: a non-fatal problem in a stream (SimpleX's own
    /// `sndFileWarning`/`rcvFileWarning` events keep their names).
    public static func warning(_ text: String) {
        event(Warning(warning: text))
    }

    /// `value` as one line of our JSON: compact, keys sorted, slashes unescaped; the encoding every
    /// `--json` line goes through (documents, events, progress lines).
    public static func line<T: Encodable>(_ value: T) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // A name that is not UTF-8 only occurs inside a string: its value reads `caf\xE9.jpg`.
        return FileNameBytes.display(String(decoding: try encoder.encode(value), as: UTF8.self), prefix: "\\\\x")
    }

    private struct Warning: Encodable {
        let type = "warning"
        var warning: String
    }
}

/// Times and durations under `--json`: timestamps are ISO 8601 in UTC with `Z`, durations are seconds
/// as a number (milliseconds kept as a fraction).
public enum JSONTime {
    /// `2026-11-26T17:03:00Z`; `fraction` adds milliseconds where they matter.
    public static func iso8601(_ date: Date, fraction: Bool = false) -> String {
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: fraction, timeZone: TimeZone(identifier: "UTC")!)
        return date.formatted(style)
    }

    /// Seconds since the epoch (a ZIP entry's time, a file's mtime).
    public static func iso8601(epochSeconds seconds: Int64) -> String {
        iso8601(Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    /// A timestamp as SQLite's `datetime('now')` writes it — UTC without a zone, `YYYY-MM-DD HH:MM:SS[.SSS…]`,
    /// as SimpleX's `migrations.ts` holds it — as ISO 8601 UTC, its fraction kept. Anything else is kept as it is.
    public static func iso8601(sqlite text: String) -> String {
        let parts = text.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].count == 10, parts[1].count >= 8,
              parts[0].allSatisfy({ $0.isNumber || $0 == "-" }), parts[1].allSatisfy({ $0.isNumber || $0 == ":" || $0 == "." })
        else { return text }
        return "\(parts[0])T\(parts[1])Z"
    }

    /// A duration in seconds, rounded to the millisecond.
    public static func seconds(_ value: Double) -> Double {
        (value * 1000).rounded() / 1000
    }
}

/// A one-shot document with the `warnings` the text mode writes on stderr: `document`'s own keys,
/// plus `warnings` when there are any.
public struct WithWarnings<Document: Encodable>: Encodable {
    public var document: Document
    public var warnings: [String]

    public init(document: Document, warnings: [String]) {
        self.document = document
        self.warnings = warnings
    }

    private enum CodingKeys: String, CodingKey { case warnings }

    public func encode(to encoder: any Encoder) throws {
        try document.encode(to: encoder)
        if !warnings.isEmpty {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(warnings, forKey: .warnings)
        }
    }
}
