import Foundation
import SXCore
import Synchronization
import Testing
import SXTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The pty calls Swift's Glibc module does not export (they sit behind _XOPEN_SOURCE), looked up
/// at run time so they are called with the C calling convention.
private enum PTYCalls {
    typealias IntOfInt = @convention(c) (Int32) -> Int32
    typealias NameOfInt = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?

    static func symbol<T>(_ name: String, as type: T.Type) -> T {
        guard let process = dlopen(nil, RTLD_NOW), let address = dlsym(process, name) else {
            fatalError("libc has no \(name)")
        }
        return unsafeBitCast(address, to: type)
    }

    static func posixOpenpt(_ flags: Int32) -> Int32 { symbol("posix_openpt", as: IntOfInt.self)(flags) }
    static func grantpt(_ fd: Int32) -> Int32 { symbol("grantpt", as: IntOfInt.self)(fd) }
    static func unlockpt(_ fd: Int32) -> Int32 { symbol("unlockpt", as: IntOfInt.self)(fd) }
    static func ptsname(_ fd: Int32) -> String? { symbol("ptsname", as: NameOfInt.self)(fd).map { String(cString: $0) } }
}

/// A pseudo-terminal whose master side the test plays as the user's keyboard and screen.
private final class PseudoTerminal: Sendable {
    let master: Int32
    let slavePath: String
    /// Held open so the terminal never hangs up between two prompts.
    private let slave: Int32
    private let screen = Mutex("")

    init() throws {
        let master = PTYCalls.posixOpenpt(O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard master >= 0 else { throw FileSystemError("open a pseudo-terminal", path: "/dev/ptmx") }
        guard PTYCalls.grantpt(master) == 0, PTYCalls.unlockpt(master) == 0, let name = PTYCalls.ptsname(master) else {
            close(master)
            throw FileSystemError("unlock a pseudo-terminal", path: "/dev/ptmx")
        }
        self.master = master
        slavePath = name
        slave = open(slavePath, O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard slave >= 0 else {
            close(master)
            throw FileSystemError("open", path: slavePath)
        }
    }

    deinit {
        close(slave)
        close(master)
    }

    /// Everything written to the terminal so far.
    var transcript: String { screen.withLock { $0 } }

    /// Reads the terminal's output until `needle` appears after `offset` characters of transcript;
    /// false on timeout.
    func waitFor(_ needle: String, after offset: Int = 0, timeout: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if screen.withLock({ String($0.dropFirst(offset)).contains(needle) }) { return true }
            let left = deadline.timeIntervalSinceNow
            if left <= 0 { return false }
            var pfd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, Int32(min(left, 0.2) * 1000)) > 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 1024)
            let n = read(master, &buffer, buffer.count)
            if n > 0 { screen.withLock { $0 += String(decoding: buffer[0..<n], as: UTF8.self) } }
        }
    }

    /// The terminal's current settings, as any process with the slave open sees them.
    func settings() -> termios {
        var t = termios()
        _ = tcgetattr(slave, &t)
        return t
    }

    /// Stops the terminal from mapping CR to NL on input, so a typed CR reaches the reader.
    func keepCarriageReturns() {
        var t = settings()
        t.c_iflag &= ~tcflag_t(ICRNL)
        _ = tcsetattr(slave, TCSANOW, &t)
    }

    func type(_ text: String) {
        _ = text.withCString { write(master, $0, strlen($0)) }
    }

    /// Plays the user on a background thread: for each step, wait for the prompt, then type the line.
    /// The returned semaphore is signalled when the script has run.
    func play(_ steps: [(prompt: String, line: String)]) -> DispatchSemaphore {
        let finished = DispatchSemaphore(value: 0)
        Thread.detachNewThread { [self] in
            var offset = 0
            for step in steps {
                guard waitFor(step.prompt, after: offset) else { break }
                offset = transcript.count
                type(step.line)
            }
            finished.signal()
        }
        return finished
    }
}

@Suite("TerminalPrompter on a pseudo-terminal", .ownThreads)
struct TerminalPrompterTests {
    @Test func readsALineWithoutEchoAndShowsThePrompt() throws {
        let tty = try PseudoTerminal()
        let done = tty.play([(prompt: "Secret please: ", line: "secret pass\n")])
        let secret = try TerminalPrompter(path: tty.slavePath).readSecret(prompt: "Secret please: ")
        done.wait()
        #expect(String(decoding: secret.copyBytes(), as: UTF8.self) == "secret pass")
        // The prompter ends the line it took over with a newline of its own.
        #expect(tty.waitFor("Secret please: \r\n", timeout: 5))
        #expect(tty.transcript.contains("Secret please: "))
        #expect(!tty.transcript.contains("secret pass"), "echo must be off while typing")
    }

    @Test func restoresEchoAfterReading() throws {
        let tty = try PseudoTerminal()
        #expect(tty.settings().c_lflag & tcflag_t(ECHO) != 0, "a fresh pseudo-terminal echoes")
        let done = tty.play([(prompt: "P: ", line: "x\n")])
        _ = try TerminalPrompter(path: tty.slavePath).readSecret(prompt: "P: ")
        done.wait()
        #expect(tty.settings().c_lflag & tcflag_t(ECHO) != 0)
    }

    @Test func carriageReturnBeforeTheNewlineIsNotPartOfTheSecret() throws {
        let tty = try PseudoTerminal()
        tty.keepCarriageReturns()
        let done = tty.play([(prompt: "P: ", line: "abc\r\n")])
        let secret = try TerminalPrompter(path: tty.slavePath).readSecret(prompt: "P: ")
        done.wait()
        #expect(secret.copyBytes() == Array("abc".utf8))
        #expect(tty.settings().c_iflag & tcflag_t(ICRNL) == 0, "the prompter restores the settings it found")
    }

    @Test func resolverAsksOnceWithoutConfirmation() throws {
        let tty = try PseudoTerminal()
        let done = tty.play([(prompt: "Enter passphrase: ", line: "typed\n")])
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: "/nonexistent", terminal: TerminalPrompter(path: tty.slavePath))
        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .current))
        done.wait()
        #expect(secret.copyBytes() == Array("typed".utf8))
        #expect(source == .terminalPrompt)
        #expect(!tty.transcript.contains("Repeat"))
    }

    @Test func confirmedNewPassphraseMustMatch() throws {
        let tty = try PseudoTerminal()
        let done = tty.play([(prompt: "Enter new passphrase: ", line: "same one\n"),
                             (prompt: "Repeat new passphrase: ", line: "same one\n")])
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: "/nonexistent", terminal: TerminalPrompter(path: tty.slavePath))
        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .new, confirmOnPrompt: true))
        done.wait()
        #expect(secret.copyBytes() == Array("same one".utf8))
        #expect(source == .terminalPrompt)
    }

    @Test func confirmationMismatchIsAPassphraseError() throws {
        let tty = try PseudoTerminal()
        let done = tty.play([(prompt: "Enter new passphrase: ", line: "first one\n"),
                             (prompt: "Repeat new passphrase: ", line: "second one\n")])
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: "/nonexistent", terminal: TerminalPrompter(path: tty.slavePath))
        let error = #expect(throws: PassphraseError.self) {
            try resolver.resolve(PassphraseRequest(role: .new, confirmOnPrompt: true))
        }
        done.wait()
        #expect(error?.message.contains("differ") == true)
        #expect(tty.transcript.contains("Repeat new passphrase: "))
    }

    @Test func notATerminalIsAFileSystemError() throws {
        let error = #expect(throws: FileSystemError.self) {
            try TerminalPrompter(path: "/dev/null").readSecret(prompt: "P: ")
        }
        #expect(error?.path == "/dev/null")
    }
}
