import SXCore

/// The entries of a chat archive (FORMATS §8) and how each maps to a data directory. An entry name is
/// accepted only when it is exactly one of these shapes; everything else is outside the layout.
public enum ChatArchiveEntry: Sendable, Equatable, Hashable {
    /// `simplex_v1_chat.db`
    case chatDatabase
    /// `simplex_v1_agent.db`
    case agentDatabase
    /// `simplex_v1_files/<name>`: a regular file from the top level of the files folder.
    case file(name: String)
    /// `simplex_v1_assets/wallpapers/<name>`
    case wallpaper(name: String)

    public static let prefix = DataDirectory.defaultPrefix
    public static let chatDatabaseName = prefix + "_chat.db"
    public static let agentDatabaseName = prefix + "_agent.db"
    public static let filesFolderName = prefix + "_files"
    public static let wallpapersFolderName = prefix + "_assets/wallpapers"

    /// The name inside the archive.
    public var entryName: String {
        switch self {
        case .chatDatabase: Self.chatDatabaseName
        case .agentDatabase: Self.agentDatabaseName
        case .file(let name): Self.filesFolderName + "/" + name
        case .wallpaper(let name): Self.wallpapersFolderName + "/" + name
        }
    }

    /// The bare file name, as SimpleX names a file in an `ArchiveError` (`AEFileError {file}` is the
    /// name listed in the folder, simplex-chat `Archive.hs` `copyValidArchiveFiles`).
    public var fileName: String {
        switch self {
        case .chatDatabase: Self.chatDatabaseName
        case .agentDatabase: Self.agentDatabaseName
        case .file(let name), .wallpaper(let name): name
        }
    }

    /// Where the entry belongs in `dataDirectory`; nil when the layout has no such folder (a terminal
    /// data directory without `--files-dir`).
    public func destination(in dataDirectory: DataDirectory) -> String? {
        switch self {
        case .chatDatabase: dataDirectory.chatDatabase
        case .agentDatabase: dataDirectory.agentDatabase
        case .file(let name): dataDirectory.filesFolder.map { Path.join($0, name) }
        case .wallpaper(let name): dataDirectory.wallpapersFolder.map { Path.join($0, name) }
        }
    }

    /// Parses an entry name. Nil for anything outside the layout. Callers check names with
    /// `ArchiveEntryName.problem` first; this only matches the layout's shapes.
    public init?(entryName: String) {
        switch entryName {
        case Self.chatDatabaseName: self = .chatDatabase
        case Self.agentDatabaseName: self = .agentDatabase
        default:
            if let name = Self.leaf(of: entryName, under: Self.filesFolderName) {
                self = .file(name: name)
            } else if let name = Self.leaf(of: entryName, under: Self.wallpapersFolderName) {
                self = .wallpaper(name: name)
            } else {
                return nil
            }
        }
    }

    /// `name` when `entryName` is `folder/name` with a single, plain path component.
    private static func leaf(of entryName: String, under folder: String) -> String? {
        guard entryName.hasPrefix(folder + "/") else { return nil }
        let name = String(entryName.dropFirst(folder.count + 1))
        return ArchiveEntryName.isPlainComponent(name) ? name : nil
    }
}

/// Checks an entry name before anything else looks at it: the ways a hostile archive names a file so
/// that extracting it would write outside the destination, or collide with another entry.
public enum ArchiveEntryName {
    /// Why `name` is unsafe, or nil when it is a plain relative path.
    public static func problem(_ name: String) -> String? {
        if name.isEmpty { return "the name is empty" }
        if name.utf8.contains(0) { return "the name contains a NUL byte" }
        if name.hasPrefix("/") { return "the name is an absolute path" }
        if name.contains("\\") { return "the name contains a backslash" }
        if name.count >= 2, name.dropFirst().first == ":", name.first!.isLetter { return "the name starts with a drive letter" }
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains("..") { return "the name climbs out with '..'" }
        if parts.contains(".") { return "the name contains a '.' component" }
        if parts.dropLast().contains("") || (parts.count > 1 && parts.last == "") && !name.hasSuffix("/") {
            return "the name contains an empty component"
        }
        if name.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) { return "the name contains a control character" }
        // What the file system can hold is checked here, so that verify refuses what an import could
        // not write: Linux's NAME_MAX (255 bytes per component, <limits.h>), and a whole name that
        // leaves room for the data directory's own path within PATH_MAX (4,096).
        if parts.contains(where: { $0.utf8.count > maxComponentBytes }) { return "a part of the name is longer than \(maxComponentBytes) bytes, more than a file system holds" }
        if name.utf8.count > maxNameBytes { return "the name is longer than \(maxNameBytes) bytes" }
        return nil
    }

    public static let maxComponentBytes = 255
    public static let maxNameBytes = 3072

    /// A single path component that is safe as a file name: not empty, not `.` or `..`, no slash,
    /// backslash, NUL or control character.
    public static func isPlainComponent(_ name: String) -> Bool {
        !name.isEmpty && name != "." && name != ".." && !name.contains("/") && problem(name) == nil
    }

    /// The key under which two names collide on a case-insensitive or Unicode-normalising file system
    /// (macOS, Windows, a FAT USB stick): NFC, then case-folded.
    public static func collisionKey(_ name: String) -> String {
        name.precomposedStringWithCanonicalMapping.lowercased()
    }
}
