import ArgumentParser

/// "Did you mean …?" for a mistyped command name (`sxkit archve`, `sxkit db inspct`).
///
/// ArgumentParser reports such a word as an unexpected argument; this finds the word that stands
/// where a command name belongs and names none, and says which command was probably meant. The word
/// itself is repeated only when it is close to a command name (a stray word that might be a secret,
/// such as a passphrase typed in the wrong place, is never echoed).
enum CommandSuggestion {
    /// The sentence for `arguments` (argv without the program name), or nil when every word where a
    /// command name belongs is one (the parse failed for another reason).
    static func message(for arguments: [String]) -> String? {
        var subcommands: [any ParsableCommand.Type] = SXKit.configuration.subcommands
        var path = ["sxkit"]
        for word in arguments {
            // A leaf command takes arguments, not command names; options are ArgumentParser's to judge.
            guard !subcommands.isEmpty, !word.hasPrefix("-") else { return nil }
            var names: [String] = []
            var next: (any ParsableCommand.Type)?
            for command in subcommands {
                let configuration = command.configuration
                let name = configuration.commandName ?? command._commandName
                if name == word || configuration.aliases.contains(word) { next = command }
                if configuration.shouldDisplay { names.append(name) }
            }
            if let next {
                subcommands = next.configuration.subcommands
                path.append(word)
                continue
            }
            if word == "help" { return nil }
            let list = names.joined(separator: ", ")
            let joined = path.joined(separator: " ")
            guard let best = closest(to: word, among: names) else {
                return "'\(joined)' has no such command; its commands are: \(list) (see '\(joined) --help')"
            }
            return "'\(joined)' has no command '\(word)'; did you mean '\(best)'? (its commands: \(list))"
        }
        return nil
    }

    /// The name nearest to `word`: within an edit distance that grows with the name's length (one
    /// edit up to 4 letters, two beyond; a swap of neighbours counts once), or a name `word` begins.
    static func closest(to word: String, among names: [String]) -> String? {
        let typed = Array(word.lowercased())
        var best: (name: String, distance: Int)?
        for name in names {
            let d = distance(typed, Array(name))
            let allowed = name.count <= 4 ? 1 : 2
            let prefix = typed.count >= 3 && name.hasPrefix(String(typed))
            guard d <= allowed || prefix else { continue }
            let score = prefix ? min(d, 1) : d
            if best == nil || score < best!.distance { best = (name, score) }
        }
        return best?.name
    }

    /// Optimal string alignment distance (Levenshtein plus transpositions of neighbours).
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
            }
        }
        return d[a.count][b.count]
    }
}
