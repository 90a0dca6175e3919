import ArgumentParser

/// `sxkit chats`: the conversations of a profile, read without changing a byte.
struct ChatsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "chats",
        abstract: "Read the conversations of a data directory's chat database (read-only).",
        subcommands: [ChatsListCommand.self, ChatsExportCommand.self]
    )
}
