import ArgumentParser
import SXCore
import SXCrypto
import SXTerminal
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
        subcommands: [DatabaseCommand.self, ArchiveCommand.self, FilesCommand.self, ImageCommand.self, TransferCommand.self, RelayCommand.self, MigrateCommand.self, StorageCommand.self, CleanCommand.self, CheckCommand.self, ChatsCommand.self, DemoCommand.self]
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
        // Before anything uses OpenSSL: its state is not freed at exit under threads still using it.
        OpenSSLRuntime.keepStateUntilExit()
        // A write past the file-size limit (`ulimit -f`) must fail with EFBIG and be reported like a
        // full disk, not end the process by SIGXFSZ's default action and leave partial files behind.
        signal(SIGXFSZ, SIG_IGN)
        // From the raw argv: `CommandLine.arguments` turns bytes that are not UTF-8 (a Latin-1 file
        // name) into U+FFFD, losing the name; `FileNameBytes` keeps them.
        let arguments = (1..<Int(CommandLine.argc)).map { index in
            FileNameBytes.string(UnsafeBufferPointer(start: CommandLine.unsafeArgv[index], count: strlen(CommandLine.unsafeArgv[index]!))
                .map { UInt8(bitPattern: $0) })
        }
        // Before ArgumentParser sees them: it would answer `--passphrase SECRET` with "did you
        // mean '--no-passphrase'?", and `help bogus` with the root help and status 0.
        let report = FatalReport(json: FatalReport.asksForJSON(arguments))
        if let refusal = CommandLineScreen.refusal(for: arguments) {
            report.exit(refusal.hasPrefix("sxkit: ") ? String(refusal.dropFirst(7)) : refusal, status: .usage)
        }
        do {
            var command = try SXKit.parseAsRoot(arguments)
            GlibcTuning.restartIfNeeded(for: command)
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
            report.exit("\(error)", status: ExitRule.status(for: error))
        } catch let error as NotConfirmed {
            report.exit("\(error)", status: ExitRule.status(for: error))
        } catch let error as any SXError {
            report.exit(ErrorSentence.text(for: error), remedy: ErrorSentence.remedy(for: error), status: ExitRule.status(for: error))
        } catch let error where !isArgumentParserError(error) {
            // Foundation, swift-nio and Codable errors that were not mapped where they arose: still a sentence.
            report.exit(ErrorSentence.text(for: error), status: ErrorSentence.exitStatus(for: error))
        } catch {
            // ArgumentParser's own errors: help and version are clean exits; usage errors exit 2.
            let code = SXKit.exitCode(for: error)
            if code != .success, let suggestion = CommandSuggestion.message(for: arguments) {
                report.exit(suggestion, status: .usage)
            }
            if code != .success, report.json {
                // One sentence, without the usage lines the text mode adds.
                let message = CommandLineScreen.redacted(SXKit.message(for: error), arguments: arguments)
                report.exit(message, status: code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
            }
            let message = CommandLineScreen.redacted(SXKit.fullMessage(for: error), arguments: arguments)
            if !message.isEmpty {
                (code == .success ? ConsoleOutput.standardOutput : ConsoleOutput.standardError).writeLine(message)
            }
            exit(code == .success ? 0 : code == .validationFailure ? ExitStatus.usage.rawValue : code.rawValue)
        }
    }
}

/// How an error that stops a command is reported, once for every command: `sxkit: <sentence>` on
/// stderr, or under `--json` one compact object on stderr (as restic's `exit_error`):
/// `{"type":"error","error":"<the same sentence>","remedy":"<hint>","exitStatus":N}`. Then the exit status.
struct FatalReport {
    var json: Bool

    /// `--json` among the options (not after `--`, where it would be an argument).
    static func asksForJSON(_ arguments: [String]) -> Bool {
        arguments.prefix { $0 != "--" }.contains("--json")
    }

    struct ErrorObject: Encodable {
        let type = "error"
        var error: String
        var remedy: String?
        var exitStatus: Int32
    }

    func exit(_ sentence: String, remedy: String? = nil, status: ExitStatus) -> Never {
        exit(sentence, remedy: remedy, status: status.rawValue)
    }

    func exit(_ sentence: String, remedy: String? = nil, status: Int32) -> Never {
        if json, let line = try? JSONDocument.line(ErrorObject(error: sentence, remedy: remedy, exitStatus: status)) {
            ConsoleOutput.standardError.writeLine(line)
        } else {
            ConsoleOutput.standardError.writeLine("sxkit: " + sentence)
        }
        Glibc.exit(status)
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
