import ArgumentParser
import SXCore

/// What the command line is checked for before ArgumentParser parses it, and what is taken out of
/// ArgumentParser's messages: a secret typed on the command line is never repeated back.
enum CommandLineScreen {
    /// The options that name where a secret is, not the secret.
    static let secretSourceOptions: Set<String> = [
        "--passphrase-file", "--passphrase-command", "--new-passphrase-file", "--new-passphrase-command",
        "--no-passphrase", "--desktop-passphrase", "--password-file",
    ]

    /// The sentence refusing `arguments` before parsing, or nil to parse them.
    static func refusal(for arguments: [String]) -> String? {
        if let role = passphraseOnCommandLine(arguments) { return PassphraseText.notOnCommandLine(role) }
        if arguments.first == "help" { return unknownHelpTopic(Array(arguments.dropFirst())) }
        return nil
    }

    /// The role of the first option that looks like an attempt to give a passphrase or password
    /// itself (`--passphrase foo`, `--password=foo`, `--new-passphrase foo`), or nil.
    static func passphraseOnCommandLine(_ arguments: [String]) -> PassphraseRole? {
        for argument in arguments {
            if argument == "--" { break }
            guard argument.hasPrefix("--") else { continue }
            let name = String(argument.prefix { $0 != "=" }).lowercased()
            if secretSourceOptions.contains(name) { continue }
            let words = ["pass", "secret", "pwd"]
            guard words.contains(where: { name.contains($0) }) || name == "--key" else { continue }
            return name.contains("new") ? .new : .current
        }
        return nil
    }

    /// `sxkit help WORDS…` names a command that does not exist: the sentence saying so, listing
    /// the commands there are at the point where the words stop matching.
    static func unknownHelpTopic(_ words: [String]) -> String? {
        var command: any ParsableCommand.Type = SXKit.self
        var path = ["sxkit"]
        for word in words where !word.hasPrefix("-") {
            let subcommands = command.configuration.subcommands
            guard let next = subcommands.first(where: { $0._commandName == word }) else {
                let names = subcommands.map { $0._commandName }
                let there = names.isEmpty ? "`\(path.joined(separator: " "))` has no subcommands"
                    : "the commands of `\(path.joined(separator: " "))` are: \(names.joined(separator: ", "))"
                return "sxkit: help: there is no command `\((path + [word]).joined(separator: " "))`; \(there)"
            }
            command = next
            path.append(word)
        }
        return nil
    }

    /// ArgumentParser's `message` with every word of `arguments` that is not an option name shown
    /// by its position instead of its text: a stray argument may be a passphrase typed in the
    /// wrong place ("Unexpected argument 'hunter2'" becomes "Unexpected argument #3").
    static func redacted(_ message: String, arguments: [String]) -> String {
        var text = message
        for (index, word) in arguments.enumerated().sorted(by: { $0.element.count > $1.element.count })
        where !word.isEmpty && !word.hasPrefix("-") && !isCommandName(word) {
            let quoted = "'\(word)'"
            guard text.contains(quoted) else { continue }
            text = text.replacing(quoted, with: "#\(index + 1) (not shown: it may be a secret)")
        }
        return text
    }

    private static func isCommandName(_ word: String) -> Bool {
        func visit(_ command: any ParsableCommand.Type) -> Bool {
            command.configuration.subcommands.contains { $0._commandName == word || visit($0) }
        }
        return visit(SXKit.self)
    }
}
