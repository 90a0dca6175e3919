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
    case environment(String)
    case environmentFile(variable: String, path: String)
    case terminalPrompt
    case desktopSettings(String)

    public var description: String {
        switch self {
        case .file(let p): return "file \(p)"
        case .environment(let v): return "environment variable \(v)"
        case .environmentFile(let v, let p): return "file \(p) (from \(v))"
        case .terminalPrompt: return "terminal prompt"
        case .desktopSettings(let p): return "desktop app settings \(p)"
        }
    }
}

public struct PassphraseError: SXError {
    public let message: String
    public let remedy: Remedy?
    public init(_ message: String, remedy: Remedy? = nil) {
        self.message = message
        self.remedy = remedy
    }
    public var description: String { message }
}

/// What the user asked for on the command line. There is deliberately no way to pass the
/// passphrase itself as an argument: argv is visible to every user of the machine.
public struct PassphraseRequest: Sendable {
    public var role: PassphraseRole
    /// `--passphrase-file` / `--new-passphrase-file`.
    public var file: String?
    /// Opt-in: read the desktop app's stored passphrase from its settings.properties.
    public var fromDesktopSettings: Bool
    /// Ask twice on a terminal (for a passphrase that is being set).
    public var confirmOnPrompt: Bool

    public init(role: PassphraseRole, file: String? = nil, fromDesktopSettings: Bool = false, confirmOnPrompt: Bool = false) {
        self.role = role
        self.file = file
        self.fromDesktopSettings = fromDesktopSettings
        self.confirmOnPrompt = confirmOnPrompt
    }
}

/// Resolves a passphrase from, in order: the explicit file, the environment variable, the
/// environment's file variable, the desktop settings (only when asked), and a no-echo prompt when a
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
        throw PassphraseError("a \(request.role.promptNoun) is needed, and there is no terminal to ask it on",
                              remedy: request.role == .current ? .givePassphrase : .giveNewPassphrase)
    }

    /// Reads a passphrase file; one trailing newline (as editors add) is not part of the passphrase.
    public static func readFile(_ path: String) throws -> SecretBytes {
        var bytes = try FileBytes.read(path, limit: maxFileSize)
        defer { Wipe.array(&bytes) }
        var end = bytes.count
        if end > 0, bytes[end - 1] == 0x0A {
            end -= 1
            if end > 0, bytes[end - 1] == 0x0D { end -= 1 }
        }
        return SecretBytes(bytes[0..<end])
    }
}

/// Reads a secret from a terminal with echo turned off, restoring the terminal afterwards.
public struct TerminalPrompter: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The process's controlling terminal, if stdin is one (no prompt in pipelines and CI).
    public static func controlling() -> TerminalPrompter? {
        isatty(STDIN_FILENO) == 1 ? TerminalPrompter(path: "/dev/tty") : nil
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
