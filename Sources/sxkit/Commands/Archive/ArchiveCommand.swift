import ArgumentParser

/// `sxkit archive …`: chat archives (FORMATS §8), the ZIP the apps export and import.
struct ArchiveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive",
        abstract: "Export, import, list and verify chat archives (ZIP).",
        subcommands: [
            ArchiveExportCommand.self, ArchiveImportCommand.self, ArchiveListCommand.self, ArchiveVerifyCommand.self,
            ArchiveRecoverCommand.self,
        ]
    )
}
