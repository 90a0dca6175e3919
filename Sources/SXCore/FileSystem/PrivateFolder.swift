import Foundation

/// A 0700 folder under $TMPDIR (or `root`) for private copies of a user's data — a database and its
/// WAL read without touching the originals, an archive's databases under test — removed with
/// everything in it when the work is done.
///
/// The folder is locked while this object lives (see `TempOwnership`): creating one first removes
/// the stale folders of the same label that killed runs left in the same place, never a live run's.
public final class PrivateFolder: @unchecked Sendable {
    public let path: String
    private var lockFD: Int32 = -1
    private var liveToken: Int?

    /// `$TMPDIR`, else `/tmp`.
    public static var systemTemp: String {
        ProcessInfo.processInfo.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
    }

    public convenience init(label: String, root: String? = nil) throws {
        try self.init(label: label, root: root, beforeLocking: { _ in })
    }

    /// `beforeLocking` runs between creating the folder and locking it: the instant in which another
    /// run's sweep can take the new, still unlocked folder for stale and remove it (tests use it to
    /// be that sweep).
    init(label: String, root: String?, beforeLocking: (String) -> Void) throws {
        let base = root ?? Self.systemTemp
        Self.removeStale(label: label, in: base)
        var attempt = 0
        while true {
            attempt += 1
            var template = FileNameBytes.template(Path.join(base, "sxkit-\(label)-XXXXXX"))
            guard let made = mkdtemp(&template) else { throw FileSystemError("create a private folder in", path: base) }
            let folder = FileNameBytes.string(cString: made)
            beforeLocking(folder)
            // A sweep that removed it before it could be opened (fd < 0), or before the lock (claim
            // false), leaves a name that is not ours: make another. Never go on with one, which a
            // concurrent check once did (its probe then found no folder to write in).
            let fd = open(folder, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            if fd >= 0, TempOwnership.claim(fd, path: folder) {
                path = folder
                lockFD = fd
                break
            }
            if fd >= 0 { close(fd) }
            guard attempt < 8 else { throw FileSystemError("create a private folder in", path: base, code: EAGAIN) }
        }
        liveToken = LiveTemps.add(path)
    }

    /// The name `PrivateFolder(label:)` gives its folders: `sxkit-<label>-` and six characters.
    public static func isName(_ name: String, label: String? = nil) -> Bool {
        let prefix = "sxkit-" + (label.map { $0 + "-" } ?? "")
        guard name.hasPrefix(prefix), let dash = name.lastIndex(of: "-") else { return false }
        return name[name.index(after: dash)...].utf8.count == 6 && (label != nil || name.utf8.count > prefix.utf8.count + 7)
    }

    /// Removes the folders of `label` in `base` that killed runs left; returns how many.
    @discardableResult
    public static func removeStale(label: String, in base: String) -> Int {
        TempOwnership.sweep(folder: base, prefix: "sxkit-\(label)-") { isName($0, label: label) }
    }

    public func remove() {
        try? Folders.remove(path)
        if let liveToken { LiveTemps.remove(liveToken) }
        liveToken = nil
        TempOwnership.release(lockFD)
        lockFD = -1
    }

    deinit { remove() }
}
