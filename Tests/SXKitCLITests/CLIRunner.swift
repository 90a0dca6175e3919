import Foundation
import SXTestSupport

/// Runs the built `sxkit` binary and captures what it printed.
struct CLIResult {
    var status: Int32
    var stdoutBytes: [UInt8]
    var stdout: String { String(decoding: stdoutBytes, as: UTF8.self) }
    var stderr: String
}

enum CLI {
    /// The binary next to the test bundle (both live in the build's bin folder).
    static let binary: String = {
        if let explicit = ProcessInfo.processInfo.environment["SXKIT_BIN"] { return explicit }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("sxkit").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir.deleteLastPathComponent()
        }
        return VectorFiles.repositoryRoot + "/.build/debug/sxkit"
    }()

    @discardableResult
    static func run(_ arguments: [String], environment: [String: String] = [:], prefix: [String] = [],
                    cwd: String? = nil) throws -> CLIResult {
        let process = Process()
        if prefix.isEmpty {
            process.executableURL = URL(fileURLWithPath: binary)
            process.arguments = arguments
        } else {
            process.executableURL = URL(fileURLWithPath: prefix[0])
            process.arguments = Array(prefix.dropFirst()) + [binary] + arguments
        }
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SXKIT_PASSPHRASE")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
        return try capture(process)
    }

    /// Starts `sxkit` without waiting (for kill tests).
    static func start(_ arguments: [String], environment: [String: String] = [:]) throws -> Process {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }
}

final class Locked<T>: @unchecked Sendable {
    private var value: T
    private let lock = NSLock()
    init(_ value: T) { self.value = value }
    func get() -> T { lock.lock(); defer { lock.unlock() }; return value }
    func set(_ v: T) { lock.lock(); value = v; lock.unlock() }
}

func sha256(_ path: String) throws -> String {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    p.arguments = [path]
    let pipe = Pipe()
    p.standardOutput = pipe
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return String(String(decoding: data, as: UTF8.self).prefix(64))
}

/// Deterministic pseudo-random content for test files.
func testBytes(_ count: Int, seed: Int) -> [UInt8] {
    var x = UInt64(seed) &* 0x9E37_79B9_7F4A_7C15 | 1
    return (0..<count).map { _ in
        x ^= x << 13; x ^= x >> 7; x ^= x << 17
        return UInt8(truncatingIfNeeded: x)
    }
}

/// Runs a shell command as root's helper (mount, setpriv); returns its exit status.
@discardableResult
func shell(_ command: String) -> Int32 {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: "/bin/bash")
    p.arguments = ["-c", command]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    do { try p.run() } catch { return -1 }
    p.waitUntilExit()
    return p.terminationStatus
}

/// Runs `process` with stdin from /dev/null and returns what it printed. Both pipes are drained while
/// it runs, so a large output cannot block it.
func capture(_ process: Process) throws -> CLIResult {
    let out = Pipe(), err = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let outData = Locked<Data>(Data()), errData = Locked<Data>(Data())
    let group = DispatchGroup()
    for (pipe, box) in [(out, outData), (err, errData)] {
        group.enter()
        DispatchQueue.global().async {
            box.set(pipe.fileHandleForReading.readDataToEndOfFile())
            group.leave()
        }
    }
    process.waitUntilExit()
    group.wait()
    return CLIResult(status: process.terminationStatus, stdoutBytes: [UInt8](outData.get()),
                     stderr: String(decoding: errData.get(), as: UTF8.self))
}

extension CLI {
    /// Runs sxkit on a pseudo-terminal (util-linux `script`), typing `answer` once it has had time to
    /// ask. Returns the terminal's output (stdout and stderr together) and sxkit's exit status.
    static func onTerminal(_ arguments: [String], answer: String, environment: [String: String]) throws -> (status: Int32, output: String) {
        let command = ([binary] + arguments).map { "'\($0)'" }.joined(separator: " ")
        return try PeerCommand.run("/bin/bash", ["-c", "(sleep 2; printf '%s\\n' \"$1\") | script -qec \"$0\" /dev/null", command, answer],
                                   environment: environment)
    }
}

extension FileHandle {
    /// One line, without its newline (a process's first line: its address, its port).
    func readLine() -> [UInt8] {
        var line = [UInt8]()
        while true {
            let byte = readData(ofLength: 1)
            if byte.isEmpty || byte.first == 0x0A { return line }
            line.append(byte.first!)
        }
    }
}
