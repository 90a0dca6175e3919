import ArgumentParser

struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run an HTTP relay that holds encrypted transfer chunks.",
        subcommands: [RelayServeCommand.self]
    )
}
