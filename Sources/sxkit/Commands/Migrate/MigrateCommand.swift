import ArgumentParser

struct MigrateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Move a whole SimpleX profile (data directory) to another machine through a relay.",
        discussion: """
        `migrate send` exports a consistent chat archive of the data directory and sends it as one \
        encrypted, chunked relay transfer; `migrate receive` downloads it on the other machine, checks \
        the archive's database passphrase, and imports it with all of `archive import`'s safety. Stop \
        SimpleX Chat on the sending machine first: messages that arrive after the export stay behind.
        """,
        subcommands: [MigrateSendCommand.self, MigrateReceiveCommand.self]
    )
}
