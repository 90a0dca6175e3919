import Foundation
import SXCore

/// Prints one JSON document on stdout (`--json`), with stable key order so that output diffs cleanly.
enum JSONDocument {
    static func print<T: Encodable>(_ value: T) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        // A name that is not UTF-8 only occurs inside a string: its value reads `caf\xE9.jpg`.
        ConsoleOutput.standardOutput.writeLine(FileNameBytes.display(String(decoding: data, as: UTF8.self), prefix: "\\\\x"))
    }
}
