import Foundation

/// Runs the Debian `sqlcipher` shell on `path` with `script` on stdin.
public func sqlcipherShell(_ path: String, _ script: String) throws -> (status: Int32, output: String, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: sqlcipherShellPath)
    process.arguments = [path]
    let input = Pipe(), output = Pipe(), error = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = error
    try process.run()
    input.fileHandleForWriting.write(Data(script.utf8))
    try input.fileHandleForWriting.close()
    let out = output.fileHandleForReading.readDataToEndOfFile()
    let err = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}

public let sqlcipherShellPath = "/usr/bin/sqlcipher"
public let sqlcipherShellInstalled = FileManager.default.isExecutableFile(atPath: sqlcipherShellPath)
