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

/// The test vectors and fixtures the repository carries (`Tests/Fixtures/`): the project's own copy
/// of the steering repository's `shared/vectors` and `shared/fixtures`, so that a clone alone passes.
public enum VectorFiles {
    public static var folder: String { repositoryRoot + "/Tests/Fixtures/vectors" }
    public static var descriptionsFolder: String { repositoryRoot + "/Tests/Fixtures/descriptions" }

    public static func path(_ name: String) -> String { folder + "/" + name }
    public static func description(_ name: String) -> String { descriptionsFolder + "/" + name }

    /// The steering repository's `shared/` beside this checkout, when there is one: the copies are
    /// checked against it (an optional cross-check; a clone alone has none).
    public static var sharedFolder: String? {
        let shared = URL(fileURLWithPath: repositoryRoot).deletingLastPathComponent().appendingPathComponent("shared").path
        return FileManager.default.fileExists(atPath: shared + "/vectors") ? shared : nil
    }

    public static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }
}
