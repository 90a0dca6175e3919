import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Which passphrase a command needs: the one a database has now, or the one it should get.
public enum PassphraseRole: Sendable {
    case current
    case new

    /// Environment variable holding the passphrase itself.
    public var environmentVariable: String { self == .current ? "SXKIT_PASSPHRASE" : "SXKIT_NEW_PASSPHRASE" }
    /// Environment variable naming a file that holds it.
    public var environmentFileVariable: String { self == .current ? "SXKIT_PASSPHRASE_FILE" : "SXKIT_NEW_PASSPHRASE_FILE" }
    var promptNoun: String { self == .current ? "passphrase" : "new passphrase" }
}

/// Where a passphrase came from; reported so the user can tell which source won.
public enum PassphraseSource: Sendable, Equatable, CustomStringConvertible {
    case file(String)
    case command(String)
    case environment(String)
    case environmentFile(variable: String, path: String)
    case terminalPrompt
    case desktopSettings(String)

    public var description: String {
        switch self {
        case .file(let p): return "file \(p)"
        case .command(let c): return "the output of `\(c)`"
        case .environment(let v): return "environment variable \(v)"
        case .environmentFile(let v, let p): return "file \(p) (from \(v))"
        case .terminalPrompt: return "terminal prompt"
        case .desktopSettings(let p): return "desktop app settings \(p)"
        }
    }

    /// For a passphrase read from a file that others on the machine may read (group or other
    /// permission bits, as ssh checks its keys): the sentence that says so. The passphrase is still
    /// used; the file is the user's to fix.
    public var exposure: String? {
        let path: String
        switch self {
        case .file(let p), .environmentFile(_, let p): path = p
        default: return nil
        }
        guard let st = try? POSIXFile.status(path), st.st_mode & 0o077 != 0 else { return nil }
        return "the passphrase file \(path) can be read by others on this machine (mode \(String(st.st_mode & 0o777, radix: 8))); "
            + "make it private: chmod 600 \(path)"
    }
}

public struct PassphraseError: SXError {
    public let message: String
    /// Set when no source gave the passphrase of this role (and there was no terminal to ask on):
    /// the command line says how to give one, in its own words.
    public let neededRole: PassphraseRole?

    public init(_ message: String) {
        self.message = message
        neededRole = nil
    }

    /// No source gave a passphrase of `role`.
    public init(needed role: PassphraseRole) {
        message = "a \(role.promptNoun) is needed, none was given, and there is no terminal to ask on"
        neededRole = role
    }

    public var description: String { message }
}

/// What the user asked for on the command line. There is deliberately no way to pass the
/// passphrase itself as an argument: argv is visible to every user of the machine.
public struct PassphraseRequest: Sendable {
    public var role: PassphraseRole
    /// `--passphrase-file` / `--new-passphrase-file`.
    public var file: String?
    /// `--passphrase-command` / `--new-passphrase-command`: a shell command whose output is the passphrase.
    public var command: String?
    /// Opt-in: read the desktop app's stored passphrase from its settings.properties.
    public var fromDesktopSettings: Bool
    /// Ask twice on a terminal (for a passphrase that is being set).
    public var confirmOnPrompt: Bool

    public init(role: PassphraseRole, file: String? = nil, command: String? = nil, fromDesktopSettings: Bool = false,
                confirmOnPrompt: Bool = false) {
        self.role = role
        self.file = file
        self.command = command
        self.fromDesktopSettings = fromDesktopSettings
        self.confirmOnPrompt = confirmOnPrompt
    }
}

/// Resolves a passphrase from, in order: the explicit file, the explicit command, the environment
/// variable, the environment's file variable, the desktop settings (only when asked), and a no-echo prompt when a
/// terminal is attached.
public struct PassphraseResolver: Sendable {
    /// The most a passphrase file may hold; anything bigger is a wrong file, not a passphrase.
    public static let maxFileSize = 64 * 1024

    public var environment: [String: String]
    public var desktopSettingsPath: String
    public var terminal: TerminalPrompter?

    public init(environment: [String: String] = ProcessInfo.processInfo.environment,
                desktopSettingsPath: String? = nil,
                terminal: TerminalPrompter? = TerminalPrompter.controlling()) {
        self.environment = environment
        self.desktopSettingsPath = desktopSettingsPath ?? DesktopSettings.defaultPath(environment: environment)
        self.terminal = terminal
    }

    public func resolve(_ request: PassphraseRequest) throws -> (SecretBytes, PassphraseSource) {
        if let path = request.file {
            return (try Self.readFile(path), .file(path))
        }
        if let command = request.command {
            return (try PassphraseCommand.run(command), .command(command))
        }
        if let value = environment[request.role.environmentVariable] {
            return (SecretBytes(Array(value.utf8)), .environment(request.role.environmentVariable))
        }
        if let path = environment[request.role.environmentFileVariable], !path.isEmpty {
            return (try Self.readFile(path), .environmentFile(variable: request.role.environmentFileVariable, path: path))
        }
        if request.fromDesktopSettings, request.role == .current {
            guard let secret = try DesktopSettings.storedPassphrase(at: desktopSettingsPath) else {
                throw PassphraseError("the desktop app's settings (\(desktopSettingsPath)) hold no stored passphrase")
            }
            return (secret, .desktopSettings(desktopSettingsPath))
        }
        if let terminal {
            let first = try terminal.readSecret(prompt: "Enter \(request.role.promptNoun): ")
            if request.confirmOnPrompt {
                let second = try terminal.readSecret(prompt: "Repeat \(request.role.promptNoun): ")
                guard first.constantTimeEquals(second) else {
                    throw PassphraseError("the two passphrases you typed differ; nothing was changed")
                }
            }
            return (first, .terminalPrompt)
        }
        throw PassphraseError(needed: request.role)
    }

    /// Reads a passphrase file; one trailing newline (as editors add) is not part of the passphrase.
    public static func readFile(_ path: String) throws -> SecretBytes {
        var bytes = try FileBytes.read(path, limit: maxFileSize)
        defer { Wipe.array(&bytes) }
        return SecretBytes(bytes[0..<lengthWithoutTrailingNewline(bytes[...])])
    }

    /// The length of `bytes` without one trailing newline (`\n` or `\r\n`).
    static func lengthWithoutTrailingNewline(_ bytes: ArraySlice<UInt8>) -> Int {
        var end = bytes.count
        if end > 0, bytes[bytes.startIndex + end - 1] == 0x0A {
            end -= 1
            if end > 0, bytes[bytes.startIndex + end - 1] == 0x0D { end -= 1 }
        }
        return end
    }
}

/// Reads a secret from a terminal with echo turned off, restoring the terminal afterwards.
public struct TerminalPrompter: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The terminal to ask on: the process's controlling terminal whenever it has one, even when
    /// stdin is a pipe (`producer | sxkit …`), as ssh and gpg do; none in CI and under cron.
    public static func controlling() -> TerminalPrompter? {
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        if fd >= 0 { close(fd) }
        return choose(hasControllingTerminal: fd >= 0, stdinTerminal: isatty(STDIN_FILENO) == 1 ? ttyname(STDIN_FILENO).map { String(cString: $0) } : nil)
    }

    /// The decision of `controlling()`: `/dev/tty` when it opens, whatever stdin is; else the
    /// terminal stdin is (one that is not this session's controlling terminal); else none.
    public static func choose(hasControllingTerminal: Bool, stdinTerminal: String?) -> TerminalPrompter? {
        if hasControllingTerminal { return TerminalPrompter(path: "/dev/tty") }
        return stdinTerminal.map { TerminalPrompter(path: $0) }
    }

    public func readSecret(prompt: String) throws -> SecretBytes {
        let fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw FileSystemError("open terminal", path: path) }
        defer { close(fd) }
        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else { throw FileSystemError("read terminal settings of", path: path) }
        var silent = saved
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ICANON)
        guard tcsetattr(fd, TCSAFLUSH, &silent) == 0 else { throw FileSystemError("turn off echo on", path: path) }
        defer {
            _ = tcsetattr(fd, TCSAFLUSH, &saved)
            _ = "\n".withCString { write(fd, $0, 1) }
        }
        _ = prompt.withCString { write(fd, $0, strlen($0)) }

        var line = [UInt8](repeating: 0, count: 4096)
        defer { Wipe.array(&line) }
        var used = 0
        while used < line.count {
            let n = line.withUnsafeMutableBytes { read(fd, $0.baseAddress! + used, 1) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            if line[used] == 0x0A { break }
            used += 1
        }
        if used > 0, line[used - 1] == 0x0D { used -= 1 }
        return SecretBytes(line[0..<used])
    }
}
