import Foundation
import Testing

/// Library modules never name a CLI flag or command in what they say (errors, notes, findings): the
/// CLI words a `Remedy` with its own flags, so renaming a flag cannot leave a stale name behind.
@Suite("Library wording")
struct LibraryWordingTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources").path

    /// String-literal lines of library modules (comments skipped) that name a flag or a command.
    static func offendingLines() throws -> [String] {
        let flag = try Regex(#""[^"]*[^-]--[a-z][a-z-]*"#)
        let command = try Regex(#"sxkit (db|archive|files|image|clean|storage|transfer|relay|migrate|demo) "#)
        var found: [String] = []
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources)
            .filter { $0.hasPrefix("SX") && $0 != "SXSample" }
        for module in modules {
            let root = Path(sources, module)
            guard let walk = FileManager.default.enumerator(atPath: root) else { continue }
            for case let file as String in walk where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: Path(root, file), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("//") { continue }
                    if code.contains(flag) || code.contains(command) { found.append("\(module)/\(file):\(n + 1): \(code)") }
                }
            }
        }
        return found
    }

    static func Path(_ a: String, _ b: String) -> String { a + "/" + b }

    @Test func noLibraryModuleNamesAFlagOrACommand() throws {
        let found = try Self.offendingLines()
        #expect(found.isEmpty, "library modules name CLI flags or commands:\n\(found.joined(separator: "\n"))")
    }
}
