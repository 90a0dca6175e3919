import Foundation
import SXTestSupport

/// `sxkit relay serve` running for one test: its address is the first line it prints; it is
/// stopped when the value goes.
final class RelayProcess {
    let process = Process()
    let address: String
    var port: String { address.split(separator: ":").last.map(String.init) ?? "?" }

    /// `environment`: variables set (or, when nil, removed) on top of this process's own.
    init(_ arguments: [String], environment: [String: String?] = [:]) throws {
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["relay", "serve"] + arguments
        if !environment.isEmpty {
            var merged = ProcessInfo.processInfo.environment
            for (name, value) in environment { merged[name] = value }
            process.environment = merged
        }
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        address = String(decoding: out.fileHandleForReading.readLine(), as: UTF8.self)
    }

    deinit {
        process.terminate()
        process.waitUntilExit()
    }
}
