import Foundation
import SXCore
import SXTestSupport

/// Runs a program with arguments; returns its status and output (stdout and stderr together).
@discardableResult
func run(_ program: String, _ arguments: [String], cwd: String? = nil) throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: program)
    process.arguments = arguments
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: data, as: UTF8.self))
}

func bytes(_ path: String) -> Data? { FileManager.default.contents(atPath: path) }

/// Every regular file under `root`, as paths relative to it.
func filesUnder(_ root: String) -> Set<String> {
    var found = Set<String>()
    let enumerator = FileManager.default.enumerator(atPath: root)
    while let item = enumerator?.nextObject() as? String {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: root + "/" + item, isDirectory: &isDir), !isDir.boolValue { found.insert(item) }
    }
    return found
}
