import ArgumentParser
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// The root command. `sxkit --version` is handled here rather than through ArgumentParser's static
/// version string, because it reports the libraries actually loaded at run time.
struct SXKit: ParsableCommand {
    static let version = "0.2.0"

    static let configuration = CommandConfiguration(
        commandName: "sxkit",
        abstract: "Back up, inspect, encrypt and move SimpleX Chat data.",
        discussion: """
        Exit status: 0 done; 1 failed; 2 usage error; 3 done, but some items failed (each is named). \
        Secrets are never taken from the command line: use --passphrase-file, SXKIT_PASSPHRASE, \
        SXKIT_PASSPHRASE_FILE, or a terminal prompt.
        """,
        subcommands: [DatabaseCommand.self, ArchiveCommand.self, FilesCommand.self, ImageCommand.self, TransferCommand.self, RelayCommand.self, MigrateCommand.self, StorageCommand.self, CleanCommand.self, DemoCommand.self]
    )

    @Flag(name: .long, help: "Show sxkit's version and the versions of the libraries it loaded.")
    var version = false

    func run() throws {
        guard version else { throw CleanExit.helpRequest(self) }
        ConsoleOutput.standardOutput.write(RuntimeReport.text())
    }
}

@main
enum Main {
    static func main() async {
        do {
            var command = try SXKit.parseAsRoot()
            // `relay serve` stops gracefully on these signals itself.
            if !(command is RelayServeCommand) { InterruptCleanup.install() }
            // Most commands are synchronous; the few that serve or wait on the network are async.
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let error as CommandFailure {
            exit(error.status.rawValue)
        } catch let error as any SXError {
            ConsoleOutput.standardError.writeLine("sxkit: \(error)")
            exit(error.exitStatus.rawValue)
        } catch {
            // ArgumentParser's own errors: help and version are clean exits; usage errors exit 2.
            let code = SXKit.exitCode(for: error)
            let message = SXKit.fullMessage(for: error)
            if !message.isEmpty {
                (code == .success ? ConsoleOutput.standardOutput : ConsoleOutput.standardError).writeLine(message)
            }
            exit(code == .success ? 0 : code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
        }
    }
}

/// Thrown by a command that already reported its outcome and only needs to set the exit status.
struct CommandFailure: Error {
    let status: ExitStatus
}
