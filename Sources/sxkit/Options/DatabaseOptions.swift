import Foundation
import ArgumentParser
import SXArchive
import SXCore
import SXTerminal
import SXDatabase

/// `--data-dir` and the per-folder overrides of FORMATS §2.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: ArgumentHelp(
        "The SimpleX data directory (default: $SXKIT_DATA_DIR, else the desktop app's).", valueName: "dir"), completion: .directory)
    var dataDir: String?

    @Option(name: .customLong("files-dir"), help: ArgumentHelp("Override the files folder.", valueName: "dir"), completion: .directory)
    var filesDir: String?

    @Option(name: .customLong("temp-dir"), help: ArgumentHelp("Override the temp folder.", valueName: "dir"), completion: .directory)
    var tempDir: String?

    @Option(name: .customLong("assets-dir"), help: ArgumentHelp("Override the assets folder.", valueName: "dir"), completion: .directory)
    var assetsDir: String?

    func resolve() -> DataDirectory {
        DataDirectory.resolve(explicit: dataDir, overrides: FolderOverrides(files: filesDir, temp: tempDir, assets: assetsDir))
    }
}

/// Which databases a `db` command works on: a data directory's two, or one `--db` file.
struct DatabaseSelectionOptions: ParsableArguments {
    @OptionGroup var dataDirectory: DataDirectoryOptions

    @Option(name: .customLong("db"), help: ArgumentHelp(
        "Work on this one database file instead of a data directory's chat and agent databases.", valueName: "file"), completion: .file())
    var databaseFile: String?

    func validate() throws {
        if databaseFile != nil, dataDirectory.dataDir != nil {
            throw ValidationError("give either --data-dir or --db, not both")
        }
    }

    func resolve(role: DatabaseRole? = nil) -> DatabaseSet {
        if let databaseFile { return DatabaseSet(file: databaseFile, role: role) }
        return DatabaseSet(dataDirectory: dataDirectory.resolve())
    }

    /// The set, after saying so on stderr when an interrupted passphrase change left files behind
    /// (every `db` command notices). A command that writes refuses instead: its changes would be
    /// lost when the change is rolled forward.
    func resolveNoticingLeftovers(role: DatabaseRole? = nil, writes: Bool = false, settlesRekey: Bool = false) throws -> DatabaseSet {
        try Self.noticingLeftovers(resolve(role: role), writes: writes, settlesRekey: settlesRekey)
    }

    /// `set`, after noticing leftovers of an interrupted rekey or archive import (see above; the
    /// decision is `LeftoverPolicy`'s, the wording this CLI's).
    static func noticingLeftovers(_ set: DatabaseSet, writes: Bool, settlesRekey: Bool = false) throws -> DatabaseSet {
        try DataDirectoryCheck.require(set)
        // `db rekey` settles an interrupted rekey itself (and `db recover` is that settling). An
        // interrupted archive import replaces these databases when it is settled.
        let root = set.dataDirectory?.root ?? Path.parent(set.targets[0].path)
        for pending in [RekeyRecovery.pending(for: set),
                        ImportRecovery.pending(root: root, prefix: set.dataDirectory?.prefix ?? DataDirectory.defaultPrefix)] {
            let settles = pending?.operation == .passphraseChange && settlesRekey
            if let warning = try LeftoverPolicy.check(pending, writes: writes, settles: settles) {
                ConsoleOutput.standardError.writeLine("sxkit: warning: \(warning.summary) — \(ErrorText.words(.recover(warning.operation)))")
            }
        }
        return set
    }
}

/// Where the current passphrase comes from. There is no option that takes the passphrase itself.
struct PassphraseOptions: ParsableArguments {
    @Option(name: .customLong("passphrase-file"), help: ArgumentHelp(
        "Read the passphrase from this file (one trailing newline is ignored). Also: --passphrase-command, $SXKIT_PASSPHRASE, $SXKIT_PASSPHRASE_FILE, or a prompt on the terminal.",
        valueName: "file"), completion: .file())
    var file: String?

    @Option(name: .customLong("passphrase-command"), help: ArgumentHelp(
        "Run this command with /bin/sh -c and use what it prints as the passphrase (one trailing newline is ignored); it must exit 0.",
        valueName: "command"))
    var command: String?

    @Flag(name: .customLong("desktop-passphrase"), help: "Use the passphrase the desktop app stored in its settings.properties.")
    var fromDesktopSettings = false

    @Flag(name: .customLong("no-passphrase"), help: "The databases are not encrypted: use no passphrase.")
    var none = false

    func validate() throws {
        if [file != nil, command != nil, fromDesktopSettings, none].filter({ $0 }).count > 1 {
            throw ValidationError("give only one of --passphrase-file, --passphrase-command, --desktop-passphrase and --no-passphrase")
        }
    }

    /// The passphrase. `--desktop-passphrase` reads the settings of the desktop app whose data
    /// directory `dataDirectory` is (the Flatpak's included), else `${XDG_CONFIG_HOME:-~/.config}/simplex`'s.
    func resolve(dataDirectory: DataDirectory? = nil) throws -> SecretBytes {
        if none { return SecretBytes([]) }
        let environment = ProcessInfo.processInfo.environment
        let settings = dataDirectory.flatMap { DesktopSettings.path(forDataDirectory: $0.root, environment: environment) }
        let (secret, source) = try PassphraseResolver(desktopSettingsPath: settings)
            .resolve(PassphraseRequest(role: .current, file: file, command: command, fromDesktopSettings: fromDesktopSettings))
        if let exposure = source.exposure { ConsoleOutput.standardError.writeLine("sxkit: warning: \(exposure)") }
        return secret
    }
}
