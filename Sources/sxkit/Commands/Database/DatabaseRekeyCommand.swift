import ArgumentParser
import Foundation
import SXCore
import SXTerminal
import SXDatabase

/// `sxkit db rekey`: set, change or remove the passphrase of the chat and agent databases together,
/// and keep the desktop app's stored passphrase in step.
struct DatabaseRekeyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rekey",
        abstract: "Set, change or remove the passphrase of the chat and agent databases.",
        discussion: """
        Both databases end on the new passphrase, or neither changes. SimpleX Chat must be closed. \
        The new passphrase comes from --new-passphrase-file, --new-passphrase-command, \
        $SXKIT_NEW_PASSPHRASE, $SXKIT_NEW_PASSPHRASE_FILE, or a terminal prompt (asked twice); never \
        from the command line. \
        If the desktop app's settings.properties stored the OLD passphrase (EncryptedDBPassphrase and \
        InitializationVectorDBPassphrase), they are put in step as the app itself does: the new \
        passphrase is stored (with --decrypt both keys are removed) and InitialRandomDBPassphrase, \
        if present, becomes false; every other byte of the file and its permissions stay. The \
        settings are those of the app whose data directory --data-dir is \
        (${XDG_CONFIG_HOME:-~/.config}/simplex, or the Flatpak's \
        ~/.var/app/chat.simplex.simplex/config/simplex), or --desktop-settings. Settings that store \
        another passphrase are left alone, with a warning. An interrupted run is finished or rolled \
        back, settings included, by the next one or by `sxkit db recover`.
        """
    )

    @OptionGroup var selection: DatabaseSelectionOptions
    @OptionGroup var passphrase: PassphraseOptions

    @Option(name: .customLong("new-passphrase-file"), help: ArgumentHelp(
        "Read the new passphrase from this file (one trailing newline is ignored).", valueName: "file"), completion: .file())
    var newPassphraseFile: String?

    @Option(name: .customLong("new-passphrase-command"), help: ArgumentHelp(
        "Run this command with /bin/sh -c and use what it prints as the new passphrase (one trailing newline is ignored); it must exit 0.",
        valueName: "command"))
    var newPassphraseCommand: String?

    @Flag(name: .customLong("decrypt"), help: "Remove the encryption: the databases become plaintext SQLite.")
    var decrypt = false

    @Flag(name: .customLong("keep-backup"), help: "Keep each <db>.bak; it still opens with the OLD passphrase.")
    var keepBackup = false

    @Option(name: .customLong("desktop-settings"), help: ArgumentHelp(
        "The desktop app's settings.properties to keep in step (default: the one of the app whose data directory this is; none with --db).",
        valueName: "file"), completion: .file())
    var desktopSettings: String?

    @OptionGroup var options: GlobalOptions

    func validate() throws {
        if decrypt, newPassphraseFile != nil || newPassphraseCommand != nil {
            throw ValidationError("--decrypt removes the passphrase; it cannot be combined with --new-passphrase-file or --new-passphrase-command")
        }
        if newPassphraseFile != nil, newPassphraseCommand != nil {
            throw ValidationError("give only one of --new-passphrase-file and --new-passphrase-command")
        }
    }

    func run() throws {
        let set = try selection.resolveNoticingLeftovers(writes: true, settlesRekey: true)
        let current = try passphrase.resolve(dataDirectory: set.dataDirectory)
        let new: SecretBytes
        if decrypt {
            new = SecretBytes([])
        } else {
            let (secret, source) = try PassphraseResolver().resolve(PassphraseRequest(role: .new, file: newPassphraseFile, command: newPassphraseCommand,
                                                                                     confirmOnPrompt: true))
            if let exposure = source.exposure { ConsoleOutput.standardError.writeLine("sxkit: warning: \(exposure)") }
            new = secret
            guard !new.isEmpty else {
                throw UsageError("the new passphrase is empty; to remove the encryption, use --decrypt")
            }
        }
        let settings = desktopSettings.map { Path.absolute($0) } ?? set.dataDirectory.flatMap {
            DesktopSettings.path(forDataDirectory: $0.root, environment: ProcessInfo.processInfo.environment)
        }
        let report = try DatabaseRekey.run(set, current: current, new: new,
                                           options: RekeyOptions(keepBackup: keepBackup, desktopSettings: settings))
        var warnings: [String] = []
        let backups = report.databases.compactMap(\.backup)
        if !backups.isEmpty {
            warnings.append("the backups \(backups.joined(separator: ", ")) still open with the OLD passphrase; delete them once you no longer need them")
        }
        for outcome in [report.recovery?.desktopSettings, report.desktopSettings].compactMap({ $0 }) where outcome.needsAttention {
            warnings.append(outcome.message)
        }
        if options.json {
            try JSONDocument.print(RekeyDocument(report, warnings: warnings))
            return
        }
        for warning in warnings { ConsoleOutput.standardError.writeLine("sxkit: warning: \(warning)") }
        if let recovery = report.recovery, !options.quiet {
            ConsoleOutput.standardOutput.writeLine("Found: \(recovery.found). Recovered: \(recovery.done).")
        }
        if !options.quiet {
            let width = report.databases.map { $0.database.label.count }.max() ?? 0
            for d in report.databases {
                let label = d.database.label.padding(toLength: width, withPad: " ", startingAt: 0)
                let seconds = String(format: "%.2f", d.seconds)
                ConsoleOutput.standardOutput.writeLine("\(label)  \(d.oldCipher.rawValue) -> \(d.newCipher.rawValue)  \(seconds) s  \(d.database.path)")
            }
            if let outcome = report.desktopSettings, !outcome.needsAttention {
                ConsoleOutput.standardOutput.writeLine(Self.sentence(outcome.message))
            }
            let one = report.databases.count == 1
            let subject = one ? "the database" : "all \(report.databases.count) databases"
            let outcome = decrypt ? (one ? "is" : "are") + " no longer encrypted" : (one ? "opens" : "open") + " now with the new passphrase"
            ConsoleOutput.standardOutput.writeLine("Done: \(subject) \(outcome).")
        }
    }
}

extension DatabaseRekeyCommand {
    /// A library sentence as a line of its own: capital first letter, full stop.
    static func sentence(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst() + "."
    }
}

/// The `--json` result of `db rekey`.
struct RekeyDocument: Encodable {
    struct Entry: Encodable {
        var path: String
        var role: DatabaseRole?
        var oldCipher: CipherFormat
        var newCipher: CipherFormat
        var seconds: Double
        var backup: String?
    }
    var databases: [Entry]
    var recovery: RekeyRecoveryReport?
    /// What happened to the desktop app's stored passphrase; absent when there is no settings file.
    var desktopSettings: DesktopSettingsOutcome?
    /// What the text mode says on stderr as warnings; absent when there are none.
    var warnings: [String]?

    init(_ report: RekeyReport, warnings: [String]) {
        self.warnings = warnings.isEmpty ? nil : warnings
        databases = report.databases.map {
            Entry(path: $0.database.path, role: $0.database.role, oldCipher: $0.oldCipher, newCipher: $0.newCipher,
                  seconds: JSONTime.seconds($0.seconds), backup: $0.backup)
        }
        recovery = report.recovery
        desktopSettings = report.desktopSettings
    }
}
