import Foundation
import SXCore
import SXTestSupport
import Testing

private func text(_ secret: SecretBytes) -> String { String(decoding: secret.copyBytes(), as: UTF8.self) }

/// `--passphrase-command`: what the command prints is the passphrase, as restic's `--password-command`.
@Suite(.ownThreads) struct PassphraseCommandTests {
    @Test func outputIsThePassphraseWithoutOneTrailingNewline() throws {
        #expect(text(try PassphraseCommand.run("printf '%s\\n' 'it'\"'\"'s a pass'")) == "it's a pass")
        #expect(text(try PassphraseCommand.run("printf 'two\\n\\n'")) == "two\n", "only one newline is taken off")
        #expect(text(try PassphraseCommand.run("printf 'crlf\\r\\n'")) == "crlf")
        #expect(text(try PassphraseCommand.run("printf 'no newline'")) == "no newline")
        #expect(text(try PassphraseCommand.run("echo ünïcødé 🔑")) == "ünïcødé 🔑")
    }

    @Test func theCommandSeesTheEnvironmentAndAShell() throws {
        setenv("SXKIT_TEST_PASS_SOURCE", "from the environment", 1)
        defer { unsetenv("SXKIT_TEST_PASS_SOURCE") }
        #expect(text(try PassphraseCommand.run("x=\"$SXKIT_TEST_PASS_SOURCE\"; echo \"$x\" | tr a-z A-Z")) == "FROM THE ENVIRONMENT")
    }

    @Test func aFailingCommandIsAnErrorThatNeverShowsItsOutput() throws {
        let failed = #expect(throws: PassphraseError.self) { try PassphraseCommand.run("echo leaked-secret; exit 3") }
        #expect(failed?.description.contains("exited with status 3") == true, "\(String(describing: failed))")
        #expect(failed?.description.contains("leaked-secret") == false)
        #expect(failed?.neededRole == nil)

        let killed = #expect(throws: PassphraseError.self) { try PassphraseCommand.run("kill -9 $$") }
        #expect(killed?.description.contains("killed by signal 9") == true, "\(String(describing: killed))")

        let missing = #expect(throws: PassphraseError.self) { try PassphraseCommand.run("/nonexistent/pass-tool show db") }
        #expect(missing?.description.contains("exited with status 127") == true)
    }

    @Test func emptyOrHugeOutputIsNotAPassphrase() throws {
        let empty = #expect(throws: PassphraseError.self) { try PassphraseCommand.run("printf '\\n'") }
        #expect(empty?.description.contains("printed no passphrase") == true)
        let huge = #expect(throws: PassphraseError.self) { try PassphraseCommand.run("head -c 200000 /dev/zero | tr '\\0' a") }
        #expect(huge?.description.contains("more than 65536 bytes") == true, "\(String(describing: huge))")
    }

    @Test func theResolverRunsTheCommandAfterTheFileAndBeforeTheEnvironment() throws {
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE": "from env"], desktopSettingsPath: "/nonexistent", terminal: nil)
        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .current, command: "echo from-command"))
        #expect(text(secret) == "from-command")
        #expect(source == .command("echo from-command"))
        let tmp = try TempFolder()
        let file = try tmp.writeText("pass.txt", "from file\n")
        #expect(text(try resolver.resolve(PassphraseRequest(role: .current, file: file, command: "echo from-command")).0) == "from file")
        let new = try resolver.resolve(PassphraseRequest(role: .new, command: "echo new-from-command"))
        #expect(text(new.0) == "new-from-command")
    }

    @Test func nothingGivenAndNoTerminalSaysWhichRoleIsNeeded() throws {
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: "/nonexistent", terminal: nil)
        let current = #expect(throws: PassphraseError.self) { try resolver.resolve(PassphraseRequest(role: .current)) }
        #expect(current?.neededRole == .current)
        let new = #expect(throws: PassphraseError.self) { try resolver.resolve(PassphraseRequest(role: .new)) }
        #expect(new?.neededRole == .new)
        // The library names no option: the command line says how to give one.
        #expect(current?.description.contains("--") == false)
    }
}

/// Where the prompt is shown: the controlling terminal whenever there is one, even when stdin is a pipe.
@Suite(.ownThreads) struct TerminalChoiceTests {
    @Test func theControllingTerminalIsUsedWhenStdinIsAPipe() {
        #expect(TerminalPrompter.choose(hasControllingTerminal: true, stdinTerminal: nil)?.path == "/dev/tty")
        #expect(TerminalPrompter.choose(hasControllingTerminal: true, stdinTerminal: "/dev/pts/3")?.path == "/dev/tty")
    }

    @Test func stdinsTerminalIsUsedWithoutAControllingOne() {
        #expect(TerminalPrompter.choose(hasControllingTerminal: false, stdinTerminal: "/dev/pts/3")?.path == "/dev/pts/3")
    }

    @Test func noTerminalNoPrompt() {
        #expect(TerminalPrompter.choose(hasControllingTerminal: false, stdinTerminal: nil) == nil)
    }
}
