import ArgumentParser

struct RelayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "relay",
        abstract: "Run an XFTP server: SimpleX's file relay, which holds encrypted transfer chunks.",
        subcommands: [RelayServeCommand.self]
    )
}
