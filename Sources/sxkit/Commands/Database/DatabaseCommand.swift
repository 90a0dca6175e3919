import ArgumentParser

/// `sxkit db …`: the chat and agent databases of a data directory, or one `--db` file.
struct DatabaseCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "db",
        abstract: "Inspect the chat and agent databases, test or change their passphrase, and run migrations.",
        subcommands: [
            DatabaseInspectCommand.self, DatabaseTestKeyCommand.self, DatabaseRekeyCommand.self, DatabaseRecoverCommand.self,
            DatabaseStatusCommand.self, DatabaseMigrateCommand.self,
        ]
    )
}
