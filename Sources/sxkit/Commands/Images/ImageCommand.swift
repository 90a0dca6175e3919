import ArgumentParser

struct ImageCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "image",
        abstract: "Compress images to SimpleX's inline limit, in bulk.",
        subcommands: [ImageCompressCommand.self]
    )
}
