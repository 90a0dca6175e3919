import Foundation

/// Runs a bash script (for the completion scripts, make and mandoc) and captures what it printed.
func runBash(_ script: String, cwd: String? = nil, environment: [String: String] = [:]) throws -> CLIResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = ["-c", script]
    var env = ProcessInfo.processInfo.environment
    // A `make test` above must not hand its jobserver to a make run here.
    for key in ["MAKEFLAGS", "MAKELEVEL", "MFLAGS"] { env.removeValue(forKey: key) }
    for (k, v) in environment { env[k] = v }
    process.environment = env
    if let cwd { process.currentDirectoryURL = URL(fileURLWithPath: cwd) }
    return try capture(process)
}
