import Foundation
import Testing
import SXTestSupport

/// Library modules never name a CLI flag or command in what they say (errors, notes, findings): the
/// CLI words a `Remedy` with its own flags, so renaming a flag cannot leave a stale name behind.
@Suite("Library wording", .ownThreads)
struct LibraryWordingTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources").path

    /// String-literal lines of library modules (comments skipped) that name a flag or a command.
    static func offendingLines() throws -> [String] {
        let flag = try Regex(#""[^"]*[^-]--[a-z][a-z-]*"#)
        let command = try Regex(#"sxkit (db|archive|files|image|clean|storage|transfer|relay|migrate|demo) "#)
        return try codeLines(ofModules: { $0 != "SXSample" }) { $0.contains(flag) || $0.contains(command) }
    }

    /// Code lines of domain modules (every SX module but SXTerminal, the CLI's own support) that
    /// import the terminal support or ArgumentParser, or write to stdout/stderr themselves.
    static func printingLines() throws -> [String] {
        let printing = try Regex(#"^import (SXTerminal|ArgumentParser)$|\bConsoleOutput\b|(^|[^.\w])print\(|FileHandle\.standard(Output|Error)|\bputs\("#)
        return try codeLines(ofModules: { $0 != "SXTerminal" }) { $0.contains(printing) }
    }

    /// `module/file:line: code` for every line (comments skipped) of the chosen SX modules' sources that `matches`.
    static func codeLines(ofModules included: (String) -> Bool, where matches: (String) -> Bool) throws -> [String] {
        var found: [String] = []
        let modules = try FileManager.default.contentsOfDirectory(atPath: sources).filter { $0.hasPrefix("SX") && included($0) }
        for module in modules {
            let root = Path(sources, module)
            guard let walk = FileManager.default.enumerator(atPath: root) else { continue }
            for case let file as String in walk where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: Path(root, file), encoding: .utf8)
                for (n, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    if code.hasPrefix("//") { continue }
                    if matches(code) { found.append("\(module)/\(file):\(n + 1): \(code)") }
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

    /// Only the CLI prints (issue 15): the console writer and the progress renderers live in
    /// SXTerminal, which no domain module imports.
    @Test func noLibraryModulePrintsOrImportsTheTerminal() throws {
        let found = try Self.printingLines()
        #expect(found.isEmpty, "library modules print or import the terminal support:\n\(found.joined(separator: "\n"))")
    }
}
