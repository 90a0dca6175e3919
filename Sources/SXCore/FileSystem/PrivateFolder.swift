import Foundation

/// A 0700 folder under $TMPDIR (or `root`) for private copies of a user's data — a database and its
/// WAL read without touching the originals, an archive's databases under test — removed with
/// everything in it when the work is done.
public final class PrivateFolder: @unchecked Sendable {
    public let path: String

    /// `$TMPDIR`, else `/tmp`.
    public static var systemTemp: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    public init(label: String, root: String? = nil) throws {
        let base = root ?? Self.systemTemp
        var template = Array(Path.join(base, "sxkit-\(label)-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else { throw FileSystemError("create a private folder in", path: base) }
        path = String(cString: made)
    }

    public func remove() { try? FileManager.default.removeItem(atPath: path) }

    deinit { remove() }
}
