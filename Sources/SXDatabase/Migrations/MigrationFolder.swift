import Foundation
import SXCore

/// A migration list kept as files: `NAME.up.sql` and, optionally, `NAME.down.sql`, ordered by NAME
/// (byte order, as SQLite orders the table).
///
/// Rules, chosen so that a typo cannot silently drop a migration:
/// - every `*.sql` file must be `NAME.up.sql` or `NAME.down.sql` with a non-empty NAME, else error;
/// - a `NAME.down.sql` without `NAME.up.sql` is an error;
/// - a folder without any `NAME.up.sql` is an error;
/// - files must be UTF-8 text of at most `maxFileSize` bytes; an empty file is allowed (a no-op step);
/// - hidden entries (leading `.`), subfolders and files not ending in `.sql` (README, notes) are ignored.
public enum MigrationFolder {
    public static let upSuffix = ".up.sql"
    public static let downSuffix = ".down.sql"
    /// A migration is a schema change, not a data dump; anything larger is a wrong file.
    public static let maxFileSize = 16 << 20

    public static func load(_ folder: String) throws -> [Migration] {
        let names = try entries(of: folder)
        // Names are compared as bytes, as the file system and SQLite compare them, never as Swift
        // Strings: "é" precomposed and "e" + U+0301 are two files (and were one migration, the
        // other dropped), and ".\u{301}x.up.sql" is hidden although its first Character is not "."
        // (both found by fuzzing).
        var ups: [[UInt8]: String] = [:]
        var downs: [[UInt8]: String] = [:]
        var unrecognised: [String] = []
        for entry in names {
            let bytes = Array(entry.utf8)
            func ends(with suffix: String) -> Bool { bytes.count >= suffix.utf8.count && bytes.suffix(suffix.utf8.count).elementsEqual(suffix.utf8) }
            guard bytes.first != UInt8(ascii: "."), ends(with: ".sql") else { continue }
            let path = Path.join(folder, entry)
            guard POSIXFile.exists(path), !Folders.isFolder(path) else { continue }
            if bytes.count > upSuffix.utf8.count, ends(with: upSuffix) {
                ups[Array(bytes.dropLast(upSuffix.utf8.count))] = try text(of: path)
            } else if bytes.count > downSuffix.utf8.count, ends(with: downSuffix) {
                downs[Array(bytes.dropLast(downSuffix.utf8.count))] = try text(of: path)
            } else {
                unrecognised.append(entry)
            }
        }
        // The suffixes are ASCII, so a name is its entry's bytes cut at a character boundary.
        func name(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
        if !unrecognised.isEmpty {
            throw MigrationFolderError.unrecognisedFiles(folder: folder, files: unrecognised.sorted(by: MigrationName.precedes))
        }
        let orphans = downs.keys.filter { ups[$0] == nil }.map(name).sorted(by: MigrationName.precedes)
        if !orphans.isEmpty { throw MigrationFolderError.downWithoutUp(folder: folder, names: orphans) }
        if ups.isEmpty { throw MigrationFolderError.noMigrations(folder: folder) }
        return ups.sorted { $0.key.lexicographicallyPrecedes($1.key) }.map { Migration(name: name($0.key), up: $0.value, down: downs[$0.key]) }
    }

    /// `base` with `folder`'s migrations joined in by name: one with a name of `base` gives that
    /// migration its SQL (a migration known by name only becomes one that can run), any other is added
    /// where its name sorts. How a profile's SimpleX migrations get the SQL sxkit does not carry.
    public static func merge(_ folder: [Migration], into base: [Migration]) -> [Migration] {
        var byName: [[UInt8]: Migration] = [:]
        for migration in base + folder { byName[Array(migration.name.utf8)] = migration }
        return byName.values.sorted { MigrationName.precedes($0.name, $1.name) }
    }

    /// For a data directory: `folder/chat` and `folder/agent` hold the two lists; a missing subfolder
    /// means that database keeps SimpleX's list alone. At least one must exist, and the folder itself
    /// must hold no migration files (they would belong to neither database).
    public static func loadPerRole(_ folder: String) throws -> [DatabaseRole: [Migration]] {
        let names = try entries(of: folder)
        if names.contains(where: { $0.hasSuffix(upSuffix) || $0.hasSuffix(downSuffix) }) {
            throw MigrationFolderError.filesBesideRoleFolders(folder: folder)
        }
        var lists: [DatabaseRole: [Migration]] = [:]
        for role in DatabaseRole.allCases {
            let sub = Path.join(folder, role.rawValue)
            if Folders.isFolder(sub) {
                lists[role] = try load(sub)
            }
        }
        if lists.isEmpty { throw MigrationFolderError.noRoleFolders(folder: folder) }
        return lists
    }

    private static func entries(of folder: String) throws -> [String] {
        guard POSIXFile.exists(folder) else {
            throw MigrationFolderError.notAFolder(folder: folder, reason: "it does not exist")
        }
        guard Folders.isFolder(folder) else { throw MigrationFolderError.notAFolder(folder: folder, reason: "it is a file") }
        do {
            return try Folders.names(in: folder)
        } catch let error as FileSystemError {
            let reason = String(cString: strerror(error.code))
            throw MigrationFolderError.notAFolder(folder: folder, reason: "it cannot be listed (\(reason))")
        }
    }

    private static func text(of path: String) throws -> String {
        let bytes: [UInt8]
        do {
            bytes = try FileBytes.read(path, limit: maxFileSize)
        } catch {
            throw MigrationFolderError.unreadable(path: path, reason: "\(error)")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw MigrationFolderError.unreadable(path: path, reason: "it is not UTF-8 text")
        }
        return text
    }
}

/// A migration folder that cannot be used as a list.
public enum MigrationFolderError: SXError, Equatable {
    case notAFolder(folder: String, reason: String)
    case unreadable(path: String, reason: String)
    case noMigrations(folder: String)
    case downWithoutUp(folder: String, names: [String])
    case unrecognisedFiles(folder: String, files: [String])
    case filesBesideRoleFolders(folder: String)
    case noRoleFolders(folder: String)

    public var description: String {
        switch self {
        case .notAFolder(let folder, let reason):
            "the migrations folder '\(folder)' cannot be used: \(reason)"
        case .unreadable(let path, let reason):
            "cannot read the migration file '\(path)': \(reason)"
        case .noMigrations(let folder):
            "the migrations folder '\(folder)' holds no NAME.up.sql file"
        case .downWithoutUp(let folder, let names):
            "in '\(folder)', \(names.map { $0 + ".down.sql" }.joined(separator: ", ")) \(names.count == 1 ? "has" : "have") no matching NAME.up.sql; add it or remove the down file"
        case .unrecognisedFiles(let folder, let files):
            "in '\(folder)', \(files.joined(separator: ", ")) \(files.count == 1 ? "is" : "are") neither NAME.up.sql nor NAME.down.sql; rename or remove \(files.count == 1 ? "it" : "them")"
        case .filesBesideRoleFolders(let folder):
            "with a data directory, the migrations folder '\(folder)' must hold chat/ and/or agent/ subfolders, not migration files (a flat folder is for one database file)"
        case .noRoleFolders(let folder):
            "with a data directory, the migrations folder '\(folder)' must hold a chat/ or agent/ subfolder (a missing one keeps SimpleX's list)"
        }
    }
}
