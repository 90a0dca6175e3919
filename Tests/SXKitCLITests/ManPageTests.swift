import Foundation
import Testing
import SXTestSupport

private let root = VectorFiles.repositoryRoot
private let mandocPresent = FileManager.default.isExecutableFile(atPath: "/usr/bin/mandoc")

/// The committed manual pages (man/, generated from the CLI plus scripts/man-sections and checked
/// by scripts/docs-check) say sxkit's exit statuses, its environment and real examples, lint
/// clean; `make install` puts them, the binary and the completions where they belong.
@Suite(.ownThreads) struct ManPageTests {
    static func pages() throws -> [String: String] {
        var pages: [String: String] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: root + "/man") where name.hasSuffix(".1") {
            pages[name] = try String(contentsOfFile: root + "/man/" + name, encoding: .utf8)
        }
        return pages
    }

    /// The text of one section (from its .Sh to the next).
    static func section(_ name: String, of page: String) -> String? {
        let lines = page.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0 == ".Sh \(name)" || $0 == ".Sh \"\(name)\"" }) else { return nil }
        let end = lines[(start + 1)...].firstIndex { $0.hasPrefix(".Sh ") } ?? lines.count
        return lines[start..<end].joined(separator: "\n")
    }

    @Test func everyPageListsTheFourExitStatuses() throws {
        let pages = try Self.pages()
        #expect(pages.count >= 30)
        for (name, page) in pages {
            let exit = try #require(Self.section("EXIT STATUS", of: page), "\(name) has no EXIT STATUS")
            #expect(!exit.contains(".Ex -std"), "\(name) still has the generic exit status")
            for status in ["0\nDone.", "1\nFailed.", "2\nUsage error", "3\nDone, with non-fatal errors"] {
                #expect(exit.contains(".It " + status), "\(name): no \(status)")
            }
        }
    }

    /// Every SXKIT_* variable the code reads, found by reading Sources/.
    static func variablesInSources() throws -> Set<String> {
        var names: Set<String> = []
        let regex = try NSRegularExpression(pattern: "SXKIT_[A-Z_]+[A-Z]")
        let sources = root + "/Sources"
        let walker = try #require(FileManager.default.enumerator(atPath: sources))
        for case let file as String in walker where file.hasSuffix(".swift") || file.hasSuffix(".c") || file.hasSuffix(".h") {
            let text = try String(contentsOfFile: sources + "/" + file, encoding: .utf8)
            for match in regex.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert(String(text[Range(match.range, in: text)!]))
            }
        }
        return names
    }

    @Test func everyPageListsEverySXKITVariable() throws {
        let variables = try Self.variablesInSources()
        #expect(variables.isSuperset(of: ["SXKIT_DATA_DIR", "SXKIT_PASSPHRASE", "SXKIT_PASSPHRASE_FILE", "SXKIT_NEW_PASSPHRASE",
                                          "SXKIT_NEW_PASSPHRASE_FILE", "SXKIT_CRASH_AT"]))
        for (name, page) in try Self.pages() {
            let environment = try #require(Self.section("ENVIRONMENT", of: page), "\(name) has no ENVIRONMENT")
            for variable in variables {
                #expect(environment.contains(".It Ev \(variable)\n"), "\(name): \(variable) is not in ENVIRONMENT (scripts/man-sections/ENVIRONMENT.mdoc)")
            }
        }
    }

    @Test func everyCommandPageHasExamplesThatRunSxkit() throws {
        let pages = try Self.pages()
        // A command page is one no other page's name extends (sxkit.db.inspect, not sxkit.db).
        let leaves = pages.keys.filter { name in
            let stem = name.dropLast(2)
            return !pages.keys.contains { $0 != name && $0.hasPrefix(stem + ".") }
        }
        #expect(leaves.contains("sxkit.files.encrypt.1") && leaves.contains("sxkit.demo.1") && !leaves.contains("sxkit.db.1"))
        for name in leaves + ["sxkit.1"] {
            let examples = try #require(Self.section("EXAMPLES", of: pages[name]!), "\(name) has no EXAMPLES")
            #expect(examples.contains(".Bd -literal"), "\(name)")
            // The page's own command, e.g. `sxkit files encrypt` on sxkit.files.encrypt.1.
            let command = name.dropLast(2).replacingOccurrences(of: ".", with: " ")
            #expect(examples.contains(command), "\(name): no example runs \(command)")
        }
    }

    @Test func sectionsComeInTheConventionalOrder() throws {
        for (name, page) in try Self.pages() {
            let order = page.components(separatedBy: "\n").filter { $0.hasPrefix(".Sh ") }
            let expected = [".Sh NAME", ".Sh SYNOPSIS", ".Sh DESCRIPTION", ".Sh ENVIRONMENT", ".Sh EXIT STATUS", ".Sh EXAMPLES", ".Sh \"SEE ALSO\""]
            #expect(order == expected.filter { order.contains($0) }, "\(name): \(order)")
        }
    }

    @Test(.enabled(if: mandocPresent, "mandoc is not installed (scripts/bootstrap installs it): the mdoc lint is skipped"))
    func pagesAreLintCleanUnderMandoc() throws {
        let r = try runBash("mandoc -T lint -W warning man/*.1", cwd: root)
        #expect(r.status == 0 && r.stdout.isEmpty && r.stderr.isEmpty, "\(r.stdout)\(r.stderr)")
    }

    @Test func makeInstallPutsBinaryPagesAndCompletionsUnderDestdirAndPrefix() throws {
        let dest = try TempFolder()
        let make = "make -s -C \(root) BINARY=\(CLI.binary) DESTDIR=\(dest.path) PREFIX=/opt/sx"
        let install = try runBash(make + " install")
        #expect(install.status == 0, "\(install.stdout)\(install.stderr)")
        let installed = Set(try FileManager.default.subpathsOfDirectory(atPath: dest.path).filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: dest.path + "/" + $0, isDirectory: &folder) && !folder.boolValue
        })
        let pages = try Self.pages().keys.map { "opt/sx/share/man/man1/" + $0 }
        let expected = Set(["opt/sx/bin/sxkit", "opt/sx/share/bash-completion/completions/sxkit",
                            "opt/sx/share/zsh/site-functions/_sxkit", "opt/sx/share/fish/vendor_completions.d/sxkit.fish"] + pages)
        #expect(installed == expected, "extra: \(installed.subtracting(expected)); missing: \(expected.subtracting(installed))")
        #expect(FileManager.default.isExecutableFile(atPath: dest.path + "/opt/sx/bin/sxkit"))
        let version = try runBash(dest.path + "/opt/sx/bin/sxkit --version")
        #expect(version.stdout.hasPrefix("sxkit "))
        let uninstall = try runBash(make + " uninstall")
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        let left = try FileManager.default.subpathsOfDirectory(atPath: dest.path).filter {
            var folder: ObjCBool = false
            return FileManager.default.fileExists(atPath: dest.path + "/" + $0, isDirectory: &folder) && !folder.boolValue
        }
        #expect(left.isEmpty, "left after uninstall: \(left)")
    }

    @Test func readmeSaysHowToInstall() throws {
        let readme = try String(contentsOfFile: root + "/README.md", encoding: .utf8)
        #expect(readme.contains("make install"))
        #expect(readme.contains("PREFIX") && readme.contains("DESTDIR") && readme.contains("make uninstall"))
    }
}
