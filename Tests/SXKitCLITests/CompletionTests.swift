import Foundation
import Testing
import SXTestSupport

/// The committed completion scripts (completions/, generated from the CLI and checked by
/// scripts/docs-check) complete paths wherever a path goes, and `sxkit help <TAB>` command names;
/// a mistyped command name gets "did you mean".
@Suite(.ownThreads) struct CompletionTests {
    /// Options whose value is not a path. Every other option that takes a value must complete paths:
    /// a new option either completes paths or is added here on purpose.
    static let notPaths: Set<String> = [
        "older-than", "confirm", "role", "seed", "chat-db-size", "bulk-files", "chat-items", "jobs", "max-size", "format",
        "max-pixels", "parallel", "listen", "expiry", "max-store", "recipients", "link",
        "passphrase-command", "new-passphrase-command", "server", "public-host", "certificate-algorithm", "socks-proxy",
        "user", "since", "until", "retry",
    ]
    /// Path options whose value is a folder (the rest may be files).
    static let folders: Set<String> = [
        "data-dir", "files-dir", "temp-dir", "assets-dir", "migrations", "store", "relay", "dir", "web-root",
    ]

    struct Command {
        var words: [String]
        var options: [(name: String, takesValue: Bool)]
        var positionals: Int
    }

    /// Every command with its options and positional arguments, from the binary itself.
    static func commands() throws -> [Command] {
        let dump = try CLI.run(["--experimental-dump-help"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(dump.stdoutBytes)) as? [String: Any])
        var found: [Command] = []
        func walk(_ command: [String: Any], _ words: [String]) {
            let name = command["commandName"] as? String ?? ""
            guard name != "help" else { return }
            let path = words + [name]
            let subcommands = command["subcommands"] as? [[String: Any]] ?? []
            if subcommands.isEmpty {
                var options: [(String, Bool)] = []
                var positionals = 0
                for argument in command["arguments"] as? [[String: Any]] ?? [] {
                    if (argument["shouldDisplay"] as? Bool) == false { continue }
                    let kind = argument["kind"] as? String
                    if kind == "positional" { positionals += 1; continue }
                    let names = argument["names"] as? [[String: Any]] ?? []
                    guard let long = names.first(where: { $0["kind"] as? String == "long" })?["name"] as? String else { continue }
                    options.append((long, kind == "option"))
                }
                found.append(Command(words: path, options: options, positionals: positionals))
            }
            for sub in subcommands { walk(sub, path) }
        }
        walk(try #require(json["command"] as? [String: Any]), [])
        return found
    }

    /// Runs the bash completion for each line of `cases` (the words typed, the last one being
    /// completed) in a folder holding `somedir/` and `somefile.txt`; returns the offers per case.
    static func bashOffers(_ cases: [[String]]) throws -> [[String]] {
        let dir = try completionFolder()
        var script = """
        set -u
        source \(VectorFiles.repositoryRoot)/completions/sxkit.bash
        offer() {
          COMP_WORDS=("$@"); COMP_CWORD=$(( $# - 1 )); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}; COMPREPLY=()
          _sxkit sxkit "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
          printf '%s ' "${COMPREPLY[@]}"; printf '\\n'
        }

        """
        for words in cases { script += "offer " + words.map { "'\($0)'" }.joined(separator: " ") + "\n" }
        try script.write(toFile: dir.path + "/complete.sh", atomically: true, encoding: .utf8)
        let r = try runBash("bash complete.sh", cwd: dir.path)
        let lines = r.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map { $0.split(separator: " ").map(String.init) }
        #expect(lines.count == cases.count, "\(r.stderr)")
        return Array(lines)
    }

    @Test func everyPathOptionCompletesPathsInBash() throws {
        let commands = try Self.commands()
        var cases: [[String]] = [], expected: [(String, Bool)] = []
        for command in commands {
            for option in command.options where option.takesValue && !Self.notPaths.contains(option.name) {
                cases.append(command.words + ["--" + option.name, ""])
                // -o is a folder everywhere but in transfer receive (a folder or a new file's path).
                let folderOnly = Self.folders.contains(option.name) || (option.name == "output" && command.words.last != "receive")
                expected.append((command.words.joined(separator: " ") + " --" + option.name, folderOnly))
            }
        }
        #expect(cases.count >= 60, "the options were not found: \(cases.count)")
        for name in ["data-dir", "db", "passphrase-file", "output", "relay", "manifest", "migrations", "args-file", "store"] {
            #expect(expected.contains { $0.0.hasSuffix(" --" + name) }, "no --\(name) found")
        }
        let offers = try Self.bashOffers(cases)
        for (i, (what, folderOnly)) in expected.enumerated() where i < offers.count {
            #expect(offers[i].contains("somedir"), "\(what) does not complete folders: \(offers[i])")
            if !folderOnly { #expect(offers[i].contains("somefile.txt"), "\(what) does not complete files: \(offers[i])") }
        }
    }

    /// Commands whose positional arguments are not paths (`chats export`'s are chat names).
    static let positionalsNotPaths: Set<[String]> = [["sxkit", "chats", "export"]]

    @Test func everyPositionalArgumentCompletesFilesInBash() throws {
        let commands = try Self.commands().filter { $0.positionals > 0 }
        #expect(commands.contains { $0.words == ["sxkit", "archive", "list"] })
        #expect(commands.contains { $0.words == ["sxkit", "archive", "export"] })
        let offers = try Self.bashOffers(commands.map { $0.words + [""] })
        for (command, offer) in zip(commands, offers) {
            if Self.positionalsNotPaths.contains(command.words) {
                #expect(!offer.contains("somefile.txt"), "\(command.words.joined(separator: " ")) <TAB> offers files: \(offer)")
            } else {
                #expect(offer.contains("somefile.txt"), "\(command.words.joined(separator: " ")) <TAB> offers \(offer)")
            }
        }
    }

    @Test func nonPathOptionsDoNotOfferFiles() throws {
        let offers = try Self.bashOffers([["sxkit", "demo", "--seed", ""], ["sxkit", "db", "migrate", "--confirm", ""]])
        #expect(!offers[0].contains("somefile.txt"))
        #expect(offers[1].contains("yesUpDown") && !offers[1].contains("somefile.txt"))
    }

    @Test func helpCompletesCommandNamesInBash() throws {
        let offers = try Self.bashOffers([["sxkit", "help", ""], ["sxkit", "help", "db", ""], ["sxkit", "help", "ar"],
                                          ["sxkit", "help", "files", "en"]])
        #expect(Set(offers[0]) == ["db", "archive", "files", "image", "transfer", "relay", "migrate", "storage", "clean", "check", "chats", "demo"])
        #expect(Set(offers[1]) == ["inspect", "test-key", "rekey", "recover", "status", "migrate"])
        #expect(offers[2] == ["archive"])
        #expect(offers[3] == ["encrypt"])
    }

    /// A folder holding `somedir/` and `somefile.txt`, where the completion cases run.
    static func completionFolder() throws -> TempFolder {
        let dir = try TempFolder()
        try FileManager.default.createDirectory(atPath: dir.path + "/somedir", withIntermediateDirectories: true)
        _ = FileManager.default.createFile(atPath: dir.path + "/somefile.txt", contents: Data("x".utf8))
        return dir
    }

    /// What zsh's completion system offers for each line (the matches of every compadd call),
    /// run by Tests/Fixtures/shell/zsh-offers.zsh in a pseudo-terminal.
    static func zshOffers(_ lines: [String]) throws -> [Set<String>] {
        let dir = try completionFolder(), work = try TempFolder()
        let out = work.path + "/offers.txt"
        let quoted = lines.map { "'\($0)'" }.joined(separator: " ")
        let r = try runBash("zsh -f \(VectorFiles.repositoryRoot)/Tests/Fixtures/shell/zsh-offers.zsh \(VectorFiles.repositoryRoot)/completions \(out) \(quoted)",
                            cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: out, encoding: .utf8)
        let groups = text.components(separatedBy: "---\n").dropLast().map { group in
            Set(group.split(whereSeparator: { $0 == "\n" || $0 == "|" }).map(String.init))
        }
        #expect(groups.count == lines.count, "\(text)")
        return Array(groups)
    }

    /// What fish offers for each line (`complete -C`), without descriptions.
    static func fishOffers(_ lines: [String]) throws -> [Set<String>] {
        let dir = try completionFolder(), work = try TempFolder()
        var script = "source \(VectorFiles.repositoryRoot)/completions/sxkit.fish\n"
        for line in lines { script += "complete -C '\(line)'; echo ---\n" }
        try script.write(toFile: work.path + "/offers.fish", atomically: true, encoding: .utf8)
        let r = try runBash("fish --no-config \(work.path)/offers.fish", cwd: dir.path)
        #expect(r.status == 0, "\(r.stderr)")
        let groups = r.stdout.components(separatedBy: "---\n").dropLast().map { group in
            Set(group.split(separator: "\n").map { String($0.split(separator: "\t", maxSplits: 1)[0]) })
        }
        #expect(groups.count == lines.count, "\(r.stdout)")
        return Array(groups)
    }

    /// The same cases in zsh and fish as in bash: `help` completes command names, --data-dir folders,
    /// --db and positional inputs files, and a command prefix its command.
    @Test(arguments: ["zsh", "fish"])
    func zshAndFishCompleteCommandsAndPaths(shell: String) throws {
        let lines = ["sxkit help ", "sxkit help db ", "sxkit db inspect --data-dir ", "sxkit db inspect --db ",
                     "sxkit archive list ", "sxkit dem"]
        let offers = shell == "zsh" ? try Self.zshOffers(lines) : try Self.fishOffers(lines)
        try #require(offers.count == lines.count)
        #expect(offers[0] == ["db", "archive", "files", "image", "transfer", "relay", "migrate", "storage", "clean", "check", "chats", "demo"])
        #expect(offers[1] == ["inspect", "test-key", "rekey", "recover", "status", "migrate"])
        // zsh adds no slash to folder matches; fish does.
        let folder: Set<String> = shell == "zsh" ? ["somedir"] : ["somedir/"]
        #expect(offers[2] == folder, "--data-dir offers folders only")
        #expect(offers[3] == folder.union(["somefile.txt"]), "--db offers files")
        #expect(offers[4] == folder.union(["somefile.txt"]), "archive list <in> offers files")
        #expect(offers[5] == ["demo"])
    }

    @Test func mistypedCommandsGetDidYouMean() throws {
        let archive = try CLI.run(["archve", "list", "x.zip"])
        #expect(archive.status == 2)
        #expect(archive.stderr.contains("did you mean 'archive'?"), "\(archive.stderr)")
        let inspect = try CLI.run(["db", "inspct"])
        #expect(inspect.status == 2)
        #expect(inspect.stderr.contains("'sxkit db' has no command 'inspct'; did you mean 'inspect'?"), "\(inspect.stderr)")
        let transposed = try CLI.run(["files", "ecnrypt"])
        #expect(transposed.stderr.contains("did you mean 'encrypt'?"), "\(transposed.stderr)")
        let prefix = try CLI.run(["trans", "plan"])
        #expect(prefix.stderr.contains("did you mean 'transfer'?"), "\(prefix.stderr)")
    }

    @Test func aWordFarFromEveryCommandIsNotEchoed() throws {
        // It may be a passphrase typed in the wrong place.
        let r = try CLI.run(["Tr0ub4dor&3"])
        #expect(r.status == 2)
        #expect(!r.stderr.contains("Tr0ub4dor"), "\(r.stderr)")
        #expect(r.stderr.contains("has no such command; its commands are: db, archive, files"), "\(r.stderr)")
    }
}
