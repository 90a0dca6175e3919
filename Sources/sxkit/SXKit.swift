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
        Exit status: 0 done; 1 not done (failed, nothing to work on, refused, or not confirmed); \
        2 the command line is wrong; 3 done, but some items failed (each is named; only when at \
        least one was done). Secrets are never taken from the command line: use \
        --passphrase-file, --passphrase-command, SXKIT_PASSPHRASE, SXKIT_PASSPHRASE_FILE, or the \
        prompt (on the terminal, even when stdin is a pipe).
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
        // From the raw argv: `CommandLine.arguments` turns bytes that are not UTF-8 (a Latin-1 file
        // name) into U+FFFD, losing the name; `FileNameBytes` keeps them.
        let arguments = (1..<Int(CommandLine.argc)).map { index in
            FileNameBytes.string(UnsafeBufferPointer(start: CommandLine.unsafeArgv[index], count: strlen(CommandLine.unsafeArgv[index]!))
                .map { UInt8(bitPattern: $0) })
        }
        // Before ArgumentParser sees them: it would answer `--passphrase SECRET` with "did you
        // mean '--no-passphrase'?", and `help bogus` with the root help and status 0.
        if let refusal = CommandLineScreen.refusal(for: arguments) {
            ConsoleOutput.standardError.writeLine(refusal)
            exit(ExitStatus.usage.rawValue)
        }
        do {
            var command = try SXKit.parseAsRoot(arguments)
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
        } catch let error as CommandLineError {
            ConsoleOutput.standardError.writeLine("sxkit: \(error)")
            exit(ExitRule.status(for: error).rawValue)
        } catch let error as NotConfirmed {
            ConsoleOutput.standardError.writeLine("sxkit: \(error)")
            exit(ExitRule.status(for: error).rawValue)
        } catch let error as any SXError {
            ConsoleOutput.standardError.writeLine("sxkit: " + ErrorSentence.text(for: error))
            exit(ExitRule.status(for: error).rawValue)
        } catch let error where !isArgumentParserError(error) {
            // Foundation, swift-nio and Codable errors that were not mapped where they arose: still a sentence.
            ConsoleOutput.standardError.writeLine("sxkit: " + ErrorSentence.text(for: error))
            exit(ErrorSentence.exitStatus(for: error).rawValue)
        } catch {
            // ArgumentParser's own errors: help and version are clean exits; usage errors exit 2.
            let code = SXKit.exitCode(for: error)
            if code != .success, let suggestion = CommandSuggestion.message(for: arguments) {
                ConsoleOutput.standardError.writeLine("sxkit: \(suggestion)")
                exit(ExitStatus.usage.rawValue)
            }
            let message = CommandLineScreen.redacted(SXKit.fullMessage(for: error), arguments: arguments)
            if !message.isEmpty {
                (code == .success ? ConsoleOutput.standardOutput : ConsoleOutput.standardError).writeLine(message)
            }
            exit(code == .success ? 0 : code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
        }
    }
}

/// ArgumentParser's own errors (help, version, usage, clean exits, `ExitCode`) and errors thrown
/// from `validate()`, which it renders itself.
private func isArgumentParserError(_ error: any Error) -> Bool {
    error is ValidationError || error is CleanExit || error is ExitCode
        || String(reflecting: type(of: error)).hasPrefix("ArgumentParser.")
}

/// Thrown by a command that already reported its outcome and only needs to set the exit status.
struct CommandFailure: Error {
    let status: ExitStatus
}
