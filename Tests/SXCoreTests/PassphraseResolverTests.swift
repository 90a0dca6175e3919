import Foundation
import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A terminal path that cannot be opened: a resolver that reaches the prompt fails loudly with a
/// FileSystemError instead of waiting for input.
private let unreachableTerminal = TerminalPrompter(path: "/nonexistent/sxkit-test-tty")

private func text(_ secret: SecretBytes) -> String { String(decoding: secret.copyBytes(), as: UTF8.self) }

@Suite("PassphraseResolver precedence", .ownThreads)
struct PassphraseResolverPrecedenceTests {
    @Test func explicitFileWinsOverEverything() throws {
        let tmp = try TempFolder()
        let file = try tmp.writeText("pass.txt", "from file\n")
        let envFile = try tmp.writeText("env.txt", "from env file\n")
        let settings = try tmp.writeText("settings.properties", "EncryptedDBPassphrase=c2V0dGluZ3M\\=\n")
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE": "from env", "SXKIT_PASSPHRASE_FILE": envFile],
                                          desktopSettingsPath: settings, terminal: unreachableTerminal)
        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .current, file: file, fromDesktopSettings: true))
        #expect(text(secret) == "from file")
        #expect(source == .file(file))
    }

    /// A passphrase file others can read is used, and said so (as ssh says of its keys).
    @Test func aPassphraseFileOthersCanReadIsNamed() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("pass.txt", "secret\n")
        chmod(path, 0o644)
        let open = PassphraseSource.file(path).exposure
        #expect(open?.contains("\(path) can be read by others on this machine (mode 644)") == true, "\(open ?? "nil")")
        #expect(PassphraseSource.environmentFile(variable: "SXKIT_PASSPHRASE_FILE", path: path).exposure != nil)
        chmod(path, 0o600)
        #expect(PassphraseSource.file(path).exposure == nil)
        #expect(PassphraseSource.environment("SXKIT_PASSPHRASE").exposure == nil)
    }

    @Test func environmentVariableWinsOverEnvironmentFileAndSettings() throws {
        let tmp = try TempFolder()
        let envFile = try tmp.writeText("env.txt", "from env file\n")
        let settings = try tmp.writeText("settings.properties", "EncryptedDBPassphrase=c2V0dGluZ3M\\=\n")
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE": "from env", "SXKIT_PASSPHRASE_FILE": envFile],
                                          desktopSettingsPath: settings, terminal: unreachableTerminal)
        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .current, fromDesktopSettings: true))
        #expect(text(secret) == "from env")
        #expect(source == .environment("SXKIT_PASSPHRASE"))
    }

    @Test func environmentFileWinsOverSettingsAndTerminal() throws {
        let tmp = try TempFolder()
        let envFile = try tmp.writeText("env.txt", "from env file\r\n")
        let settings = try tmp.writeText("settings.properties", "EncryptedDBPassphrase=c2V0dGluZ3M\\=\n")
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE_FILE": envFile],
                                          desktopSettingsPath: settings, terminal: unreachableTerminal)
        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .current, fromDesktopSettings: true))
        #expect(text(secret) == "from env file")
        #expect(source == .environmentFile(variable: "SXKIT_PASSPHRASE_FILE", path: envFile))
    }

    @Test func emptyEnvironmentFileVariableIsIgnored() throws {
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE_FILE": ""], desktopSettingsPath: "/nonexistent", terminal: nil)
        #expect(throws: PassphraseError.self) { try resolver.resolve(PassphraseRequest(role: .current)) }
    }

    @Test func desktopSettingsAreUsedOnlyWhenRequested() throws {
        let tmp = try TempFolder()
        // "secret pass" in base64, with the `=` escaped the way Properties.store writes it.
        let settings = try tmp.writeText("settings.properties", "#Sat Jan 01 00:00:00 UTC 2022\nEncryptedDBPassphrase=c2VjcmV0IHBhc3M\\=\n")
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: settings, terminal: unreachableTerminal)

        let (secret, source) = try resolver.resolve(PassphraseRequest(role: .current, fromDesktopSettings: true))
        #expect(text(secret) == "secret pass")
        #expect(source == .desktopSettings(settings))

        // Not requested: the settings are skipped and the (unreachable) terminal is tried.
        #expect(throws: FileSystemError.self) { try resolver.resolve(PassphraseRequest(role: .current)) }
    }

    @Test func desktopSettingsAreNeverANewPassphrase() throws {
        let tmp = try TempFolder()
        let settings = try tmp.writeText("settings.properties", "EncryptedDBPassphrase=c2VjcmV0IHBhc3M\\=\n")
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: settings, terminal: nil)
        let error = #expect(throws: PassphraseError.self) {
            try resolver.resolve(PassphraseRequest(role: .new, fromDesktopSettings: true))
        }
        #expect(error?.neededRole == .new)
    }

    @Test func requestedDesktopSettingsWithoutAStoredPassphraseIsAnError() throws {
        let tmp = try TempFolder()
        let settings = try tmp.writeText("settings.properties", "SomethingElse=1\n")
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: settings, terminal: unreachableTerminal)
        let error = #expect(throws: PassphraseError.self) {
            try resolver.resolve(PassphraseRequest(role: .current, fromDesktopSettings: true))
        }
        #expect(error?.message.contains(settings) == true)
        #expect(error?.message.contains("no stored passphrase") == true)
    }

    @Test func terminalIsAskedWhenNothingElseIsAvailable() throws {
        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: "/nonexistent", terminal: unreachableTerminal)
        let error = #expect(throws: FileSystemError.self) { try resolver.resolve(PassphraseRequest(role: .current)) }
        #expect(error?.path == unreachableTerminal.path)
    }

    // The options and variables to use are the command line's sentence (PassphraseCommandLineTests);
    // the library says which role was needed.
    @Test func nothingAvailableSaysACurrentPassphraseIsNeeded() throws {
        let resolver = PassphraseResolver(environment: ["SXKIT_NEW_PASSPHRASE": "not for current"],
                                          desktopSettingsPath: "/nonexistent", terminal: nil)
        let error = #expect(throws: PassphraseError.self) { try resolver.resolve(PassphraseRequest(role: .current)) }
        #expect(error?.neededRole == .current)
        #expect(error?.description.contains("passphrase is needed") == true)
    }

    @Test func nothingAvailableSaysANewPassphraseIsNeeded() throws {
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE": "not for new"], desktopSettingsPath: "/nonexistent", terminal: nil)
        let error = #expect(throws: PassphraseError.self) { try resolver.resolve(PassphraseRequest(role: .new)) }
        #expect(error?.neededRole == .new)
        #expect(error?.description.contains("new passphrase") == true)
    }

    @Test func newRoleUsesItsOwnVariables() throws {
        let tmp = try TempFolder()
        let newFile = try tmp.writeText("new.txt", "new from file\n")
        let env = ["SXKIT_PASSPHRASE": "old", "SXKIT_PASSPHRASE_FILE": "/nonexistent", "SXKIT_NEW_PASSPHRASE_FILE": newFile]
        let resolver = PassphraseResolver(environment: env, desktopSettingsPath: "/nonexistent", terminal: nil)
        let (fromFile, fileSource) = try resolver.resolve(PassphraseRequest(role: .new))
        #expect(text(fromFile) == "new from file")
        #expect(fileSource == .environmentFile(variable: "SXKIT_NEW_PASSPHRASE_FILE", path: newFile))

        var withValue = env
        withValue["SXKIT_NEW_PASSPHRASE"] = "new from env"
        let (fromEnv, envSource) = try PassphraseResolver(environment: withValue, desktopSettingsPath: "/nonexistent", terminal: nil)
            .resolve(PassphraseRequest(role: .new))
        #expect(text(fromEnv) == "new from env")
        #expect(envSource == .environment("SXKIT_NEW_PASSPHRASE"))

        // The current role is unaffected by the new-passphrase variables.
        let (current, _) = try resolver.resolve(PassphraseRequest(role: .current))
        #expect(text(current) == "old")
    }

    @Test func roleVariableNames() {
        #expect(PassphraseRole.current.environmentVariable == "SXKIT_PASSPHRASE")
        #expect(PassphraseRole.current.environmentFileVariable == "SXKIT_PASSPHRASE_FILE")
        #expect(PassphraseRole.new.environmentVariable == "SXKIT_NEW_PASSPHRASE")
        #expect(PassphraseRole.new.environmentFileVariable == "SXKIT_NEW_PASSPHRASE_FILE")
    }

    @Test func defaultSettingsPathFollowsXDGConfigHome() {
        #expect(PassphraseResolver(environment: ["HOME": "/h"], terminal: nil).desktopSettingsPath
            == "/h/.config/simplex/settings.properties")
        #expect(PassphraseResolver(environment: ["HOME": "/h", "XDG_CONFIG_HOME": "/cfg"], terminal: nil).desktopSettingsPath
            == "/cfg/simplex/settings.properties")
        #expect(DesktopSettings.defaultPath(environment: ["HOME": "/h", "XDG_CONFIG_HOME": ""]) == "/h/.config/simplex/settings.properties")
    }

    @Test func sourcesDescribeThemselves() {
        #expect(PassphraseSource.file("/p").description == "file /p")
        #expect(PassphraseSource.environment("SXKIT_PASSPHRASE").description == "environment variable SXKIT_PASSPHRASE")
        #expect(PassphraseSource.environmentFile(variable: "V", path: "/p").description == "file /p (from V)")
        #expect(PassphraseSource.terminalPrompt.description == "terminal prompt")
        #expect(PassphraseSource.desktopSettings("/s").description == "desktop app settings /s")
    }
}

@Suite("Passphrase files", .ownThreads)
struct PassphraseFileTests {
    private func read(_ bytes: [UInt8]) throws -> [UInt8] {
        let tmp = try TempFolder()
        return try PassphraseResolver.readFile(tmp.write("p", bytes)).copyBytes()
    }

    private func read(_ text: String) throws -> String {
        String(decoding: try read(Array(text.utf8)), as: UTF8.self)
    }

    @Test func exactlyOneTrailingNewlineIsStripped() throws {
        #expect(try read("pass") == "pass")
        #expect(try read("pass\n") == "pass")
        #expect(try read("pass\r\n") == "pass")
        #expect(try read("pass\n\n") == "pass\n")
        #expect(try read("pass\r\n\r\n") == "pass\r\n")
        #expect(try read("pass\n\r\n") == "pass\n")
        #expect(try read("\n") == "")
        #expect(try read("\r\n") == "")
        #expect(try read("") == "")
    }

    @Test func aCarriageReturnThatEndsNoLineIsKept() throws {
        #expect(try read("pass\r") == "pass\r")
        #expect(try read("\r") == "\r")
    }

    @Test func quotesSpacesAndInnerNewlinesAreKept() throws {
        #expect(try read("  \"quoted pass\" \t\n") == "  \"quoted pass\" \t")
        #expect(try read("'single'\n") == "'single'")
        #expect(try read("two\nlines\n") == "two\nlines")
    }

    @Test func nonASCIIAndInvalidUTF8BytesAreKept() throws {
        let bytes: [UInt8] = [0x70, 0xC3, 0xA9, 0xFF, 0x00, 0xFE, 0x0A]
        #expect(try read(bytes) == Array(bytes.dropLast()))
        #expect(try read("пароль 🔑\n") == "пароль 🔑")
    }

    @Test func fileUpToTheLimitIsAccepted() throws {
        let bytes = [UInt8](repeating: 0x61, count: PassphraseResolver.maxFileSize)
        #expect(PassphraseResolver.maxFileSize == 64 * 1024)
        #expect(try read(bytes).count == PassphraseResolver.maxFileSize)
    }

    @Test func fileLargerThan64KiBIsRefused() throws {
        let tmp = try TempFolder()
        let path = try tmp.write("big", [UInt8](repeating: 0x61, count: 64 * 1024 + 1))
        let error = #expect(throws: UsageError.self) { try PassphraseResolver.readFile(path) }
        #expect(error?.description.contains(path) == true)
        #expect(error?.exitStatus == .failed)

        let resolver = PassphraseResolver(environment: [:], desktopSettingsPath: "/nonexistent", terminal: nil)
        #expect(throws: UsageError.self) { try resolver.resolve(PassphraseRequest(role: .current, file: path)) }
    }

    @Test func missingFileIsAFileSystemErrorNamingThePath() throws {
        let error = #expect(throws: FileSystemError.self) { try PassphraseResolver.readFile("/nonexistent/pass.txt") }
        #expect(error?.path == "/nonexistent/pass.txt")
        #expect(error?.code == ENOENT)
    }

    @Test func missingEnvironmentFileIsAnErrorNotAFallThrough() throws {
        let resolver = PassphraseResolver(environment: ["SXKIT_PASSPHRASE_FILE": "/nonexistent/pass.txt"],
                                          desktopSettingsPath: "/nonexistent", terminal: nil)
        #expect(throws: FileSystemError.self) { try resolver.resolve(PassphraseRequest(role: .current)) }
    }
}
