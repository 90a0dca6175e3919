import ArgumentParser
import SXStorage
import SXCore
import SXTerminal
import SXDatabase

/// `sxkit storage`: where a data directory's space goes, and what each `sxkit clean` target would reclaim.
struct StorageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "storage",
        abstract: "Report where a data directory's space goes and what each clean-up would reclaim.",
        discussion: """
        Lists each database with its -wal/-shm, the files folder split into referenced CryptoFiles, \
        referenced plaintext files, files referenced but missing and orphans (present but not \
        referenced), every temp folder of the layout, assets and wallpapers, files left by earlier \
        operations, and what each `sxkit clean` target would remove. The split needs the chat \
        database's passphrase (--passphrase-file, SXKIT_PASSPHRASE or a prompt); without one the files \
        folder is counted as a whole. Read-only: not a byte nor a timestamp changes. Remove with \
        `sxkit clean`.
        """
    )

    @OptionGroup var dataDirectory: DataDirectoryOptions
    @OptionGroup var passphrase: PassphraseOptions
    @OptionGroup var options: GlobalOptions

    func run() throws {
        let dir = try dataDirectory.resolveExisting(databases: false)
        let care = DataDirectoryCare(directory: dir, passphrase: try ChatPassphrase.optional(for: dir, passphrase))
        let report = try care.storageReport()
        if options.json {
            try JSONDocument.print(report)
        } else if !options.quiet {
            ConsoleOutput.standardOutput.write(StorageText.render(report, verbose: options.verbose))
        }
    }
}

/// The chat database's passphrase, asked for only when the database is encrypted.
enum ChatPassphrase {
    static func isEncrypted(_ dir: DataDirectory) -> Bool {
        ReadAccess.of(dir.chatDatabase).needsPassphrase
    }

    /// The passphrase when one is available; nil when none was given and none can be asked for.
    static func optional(for dir: DataDirectory, _ options: PassphraseOptions) throws -> SecretBytes? {
        guard isEncrypted(dir) else { return nil }
        do {
            return try options.resolve()
        } catch let error as PassphraseError where error.neededRole != nil {
            return nil
        }
    }

    /// The passphrase when the chat database is encrypted; clean cannot go on without it.
    static func required(for dir: DataDirectory, _ options: PassphraseOptions) throws -> SecretBytes? {
        guard isEncrypted(dir) else { return nil }
        return try options.resolve()
    }
}
