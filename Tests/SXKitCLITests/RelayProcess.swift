import Foundation
import SXTestSupport

/// `sxkit relay serve` running for one test: its address is the first line it prints; it is
/// stopped when the value goes.
final class RelayProcess {
    let process = Process()
    let address: String
    var port: String { address.split(separator: ":").last.map(String.init) ?? "?" }

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: CLI.binary)
        process.arguments = ["relay", "serve"] + arguments
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
