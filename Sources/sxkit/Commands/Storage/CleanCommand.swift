import ArgumentParser
import Foundation
import SXStorage
import SXCore
import SXTerminal

/// `sxkit clean`: remove temp files, orphans, leftovers, every file, or everything, from a data directory.
struct CleanCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clean",
        abstract: "Remove temp files, orphaned files, leftovers, every file, or everything from a data directory.",
        discussion: """
        Shows what it will remove and how much, per category, then asks on a terminal; --dry-run only \
        lists; --yes removes without asking (needed when stdin is not a terminal). --everything also \
        removes the databases: it needs --yes and, on a terminal, typing the data directory's name. \
        A file the chat database references is never removed except by --all-files or --everything; \
        symlinks are never followed (only a link inside a temp folder is removed, the link itself); \
        each file is checked again just before it is removed. Refuses a folder that does not look like \
        a SimpleX data directory, a wrong passphrase, databases open in SimpleX Chat, and leftovers an \
        interrupted `db rekey` or `archive import` still needs. `sxkit storage` shows what each \
        target would reclaim. Exit status 3 when some files could not be removed (each is named).
        """
    )

    @Flag(name: .customLong("temp"), help: "Remove everything in the layout's temp folders.")
    var temp = false

    @Option(name: .customLong("older-than"), help: ArgumentHelp(
        "With --temp: only what was last modified longer ago than this (e.g. 30m, 12h, 2d, 1w).", valueName: "age"))
    var olderThan: String?

    @Flag(name: .customLong("orphans"), help: "Remove files in the files folder that the chat database does not reference.")
    var orphans = false

    @Flag(name: .customLong("leftovers"), help: "Remove .bak, .exported, .migration-backup and temp files earlier operations left.")
    var leftovers = false

    @Flag(name: .customLong("all-files"), help: "Remove every file in the files folder; the databases stay (the app's \"delete files\").")
    var allFiles = false

    @Flag(name: .customLong("everything"), help: "Remove the databases, files, temp folders, assets and leftovers (the app's \"delete all\").")
    var everything = false

    @Flag(name: .customLong("dry-run"), help: "Only list what would be removed.")
    var dryRun = false

    @Flag(name: .customLong("yes"), help: "Remove without asking.")
    var yes = false

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if !(temp || orphans || leftovers || allFiles || everything) {
            throw ValidationError("say what to remove: --temp, --orphans, --leftovers, --all-files or --everything (see `sxkit storage`)")
        }
        if olderThan != nil, !temp { throw ValidationError("--older-than applies to --temp") }
        if let olderThan, AgeOption.seconds(olderThan) == nil {
            throw ValidationError("--older-than: '\(olderThan)' is not an age such as 30m, 12h, 2d or 1w")
        }
    }

    var targets: CleanTargets {
        CleanTargets(temp: temp, olderThanSeconds: olderThan.flatMap(AgeOption.seconds), orphans: orphans,
                     leftovers: leftovers, allFiles: allFiles, everything: everything)
    }

    func run() throws {
        let dir = try dataDirectory.resolveExisting(databases: false)
        let care = DataDirectoryCare(directory: dir, passphrase: try ChatPassphrase.required(for: dir, passphrase))
        let plan = try care.plan(targets)
        let nothing = plan.total.count == 0
        if dryRun || nothing {
            if options.json {
                try JSONDocument.print(CleanOutput(plan: plan, dryRun: dryRun, verbose: options.verbose, result: nil))
            } else if !options.quiet {
                if nothing {
                    ConsoleOutput.standardOutput.write("Nothing to remove from \(plan.root).\n" + plan.kept.map { "Kept: \($0)\n" }.joined())
                } else {
                    ConsoleOutput.standardOutput.write(CleanText.plan(plan, verbose: options.verbose, dryRun: dryRun))
                    ConsoleOutput.standardOutput.writeLine("Dry run: nothing was removed.")
                }
            }
            return
        }
        if !options.json, !options.quiet {
            ConsoleOutput.standardOutput.write(CleanText.plan(plan, verbose: options.verbose, dryRun: false))
        }
        try confirm(plan, dir: dir)
        let tracker = ProgressTracker(label: "clean", itemsTotal: plan.total.count, bytesTotal: plan.total.bytes)
        let ticker = options.json ? nil : options.startProgress(tracker)
        let result: CleanResult
        do {
            defer { ticker?.stop() }
            result = try care.execute(plan, progress: tracker)
        }
        if options.json {
            try JSONDocument.print(CleanOutput(plan: plan, dryRun: false, verbose: options.verbose, result: result))
        } else {
            for failure in result.failures { ConsoleOutput.standardError.writeLine("sxkit: \(failure.reason)") }
            if !options.quiet { ConsoleOutput.standardOutput.write(CleanText.result(result, verbose: options.verbose)) }
        }
        let status = ExitRule.items(done: result.total.count, failed: result.failures.count)
        if status != .ok { throw CommandFailure(status: status) }
    }

    /// Asks on a terminal; refuses without --yes when stdin is not one. --everything needs --yes and,
    /// on a terminal, the data directory's name typed back.
    private func confirm(_ plan: CleanPlan, dir: DataDirectory) throws {
        let terminal = isatty(STDIN_FILENO) == 1
        if everything {
            guard yes else {
                throw CommandLineError("--everything removes the databases too: add --yes (and, on a terminal, type the data directory's name); nothing was removed")
            }
            guard terminal else { return }
            let name = Path.basename(dir.root)
            ConsoleOutput.standardError.write("This removes the databases and every file of '\(dir.root)'. Type its name (\(name)) to go on: ")
            guard readLine() == name else { throw NotConfirmed("the name typed does not match '\(name)'; nothing was removed") }
            return
        }
        if yes { return }
        guard terminal else {
            throw NotConfirmed("stdin is not a terminal, so there is no one to ask: add --yes to remove, or --dry-run to list; nothing was removed")
        }
        ConsoleOutput.standardError.write("Remove \(plan.total.count) file(s), \(ByteCount.format(plan.total.bytes))? [y/N] ")
        guard let answer = readLine()?.lowercased(), answer == "y" || answer == "yes" else {
            throw NotConfirmed("not confirmed; nothing was removed")
        }
    }
}

/// Ages such as `30m`, `12h`, `2d`, `1w` (a bare number is seconds).
enum AgeOption {
    static func seconds(_ text: String) -> Int64? {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604_800]
        var digits = Substring(text.trimmingCharacters(in: .whitespaces))
        var unit: Int64 = 1
        if let last = digits.last, let u = units[last] {
            unit = u
            digits = digits.dropLast()
        }
        guard let n = Int64(digits), n >= 0, n <= Int64.max / unit else { return nil }
        return n * unit
    }
}

/// `sxkit clean --json`: the plan's totals, and what was removed when it ran.
struct CleanOutput: Encodable {
    var root: String
    var dryRun: Bool
    var planned: [CategoryUsage]
    var plannedTotal: Usage
    var kept: [String]
    /// Every planned path, with --verbose.
    var items: [String]?
    var removed: [CategoryUsage]?
    var removedTotal: Usage?
    var skipped: [CleanResult.Problem]?
    var failures: [CleanResult.Problem]?

    init(plan: CleanPlan, dryRun: Bool, verbose: Bool, result: CleanResult?) {
        root = plan.root
        self.dryRun = dryRun
        planned = plan.totals
        plannedTotal = plan.total
        kept = plan.kept
        items = verbose ? plan.items.filter { $0.kind != .directory }.map(\.path) : nil
        removed = result?.removed
        removedTotal = result?.total
        skipped = result?.skipped
        failures = result?.failures
    }
}

/// The human text of `sxkit clean`.
enum CleanText {
    static let labels: [CleanCategory: String] = [
        .temp: "temp files", .orphans: "orphans (not referenced)", .leftovers: "leftovers",
        .encryptedFiles: "referenced CryptoFiles", .plaintextFiles: "referenced plaintext files",
        .assets: "assets and wallpapers", .databases: "databases and companions",
    ]

    static func plan(_ plan: CleanPlan, verbose: Bool, dryRun: Bool) -> String {
        var table = Table()
        table.section(dryRun ? "Would remove from \(plan.root)" : "To remove from \(plan.root)", "files", "size", "")
        for t in plan.totals { table.row(labels[t.category] ?? t.category.rawValue, "\(t.usage.count)", ByteCount.format(t.usage.bytes), "") }
        table.row("total", "\(plan.total.count)", ByteCount.format(plan.total.bytes), "")
        var out = String(table.text().dropFirst())
        if verbose { out += plan.items.filter { $0.kind != .directory }.map { "  \($0.path)\n" }.joined() }
        out += plan.kept.map { "Kept: \($0)\n" }.joined()
        return out
    }

    static func result(_ result: CleanResult, verbose: Bool) -> String {
        var table = Table()
        table.section("Removed", "files", "size", "")
        for r in result.removed { table.row(labels[r.category] ?? r.category.rawValue, "\(r.usage.count)", ByteCount.format(r.usage.bytes), "") }
        table.row("total", "\(result.total.count)", ByteCount.format(result.total.bytes), "")
        var out = table.text()
        for s in result.skipped { out += "Kept '\(s.path)': \(s.reason)\n" }
        if !result.failures.isEmpty { out += "\(result.failures.count) file(s) could not be removed (named above)\n" }
        return out
    }
}
