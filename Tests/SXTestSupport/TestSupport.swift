import Foundation

/// A fresh folder under the system temp folder (or under `base`), removed when the value is released.
public final class TempFolder: @unchecked Sendable {
    public let path: String

    public init(_ label: String = "sxkit-test", in base: String? = nil) throws {
        let parent = base ?? (NSTemporaryDirectory() as NSString).standardizingPath
        var template = Array((parent + "/" + label + ".XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        path = String(cString: made)
    }

    deinit {
        // Tests may leave read-only folders behind; make them writable so cleanup succeeds.
        _ = try? Process.run(URL(fileURLWithPath: "/bin/chmod"), arguments: ["-R", "u+rwx", path]).waitUntilExit()
        try? FileManager.default.removeItem(atPath: path)
    }

    public func file(_ name: String) -> String { path + "/" + name }

    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let p = file(name)
        try FileManager.default.createDirectory(atPath: (p as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: p))
        return p
    }

    public func read(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: file(name))))
    }
}

/// The shared test vectors: `SXKIT_VECTORS`, else `../shared/vectors` beside the repository.
public enum VectorFiles {
    public static func path(_ name: String) -> String {
        if let dir = ProcessInfo.processInfo.environment["SXKIT_VECTORS"] { return dir + "/" + name }
        return repositoryRoot + "/../shared/vectors/" + name
    }

    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }
}
