import Foundation
import SXCore

/// A way to read a database that changes nothing on disk (DESIGN: read-only means read-only).
///
/// Without a WAL (or with an empty one) the file itself is opened `immutable=1`: SQLite takes no
/// locks and creates no `-wal`/`-shm`. With a non-empty WAL, immutable mode would silently ignore the
/// un-checkpointed frames, so the database and its WAL are copied into a private 0700 folder and the
/// copy is opened there; the originals are only read.
public final class ReadOnlySnapshot: @unchecked Sendable {
    /// The file to open.
    public let databasePath: String
    /// The mode to open it with.
    public let mode: DatabaseConnection.Mode
    /// True when `databasePath` is a private copy (the original had WAL frames).
    public let isCopy: Bool
    private let folder: PrivateFolder?

    public init(of path: String, tempRoot: String? = nil) throws {
        let wal = DataDirectoryNames.wal(of: path)
        let walSize = POSIXFile.linkStatus(wal).map { Int64($0.st_size) } ?? 0
        guard walSize > 0 else {
            databasePath = path
            mode = .immutable
            isCopy = false
            folder = nil
            return
        }
        let privateFolder = try PrivateFolder(label: "snapshot", root: tempRoot)
        let copy = Path.join(privateFolder.path, Path.basename(path))
        try Self.copyFile(path, to: copy)
        try Self.copyFile(wal, to: DataDirectoryNames.wal(of: copy))
        databasePath = copy
        // The copy is private, so SQLite may build its -shm there; read-only all the same.
        mode = .readOnly
        isCopy = true
        folder = privateFolder
    }

    /// Deletes the private copy (a no-op when the original was opened directly).
    public func remove() {
        folder?.remove()
    }

    /// Linux's O_NOATIME (Glibc exports it only under _GNU_SOURCE).
    static let noAccessTimeFlag: Int32 = 0o1000000

    /// Copies bytes with plain reads (O_NOATIME where permitted, so even the access time of
    /// evidence stays as it was).
    static func copyFile(_ source: String, to destination: String) throws {
        let input = try WALFile.openForReading(source)
        defer { close(input) }
        let output = try POSIXFile.open(destination, flags: O_WRONLY | O_CREAT | O_EXCL, mode: 0o600)
        defer { close(output) }
        try POSIXFile.copyAll(from: input, path: source, to: output, path: destination)
    }
}
