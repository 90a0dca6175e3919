import Foundation
import SXCore

/// Prints one JSON document on stdout (`--json`), with stable key order so that output diffs cleanly.
enum JSONDocument {
    static func print<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        ConsoleOutput.standardOutput.writeLine(String(decoding: data, as: UTF8.self))
    }
}
