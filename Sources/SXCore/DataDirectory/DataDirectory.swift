import Foundation

/// The data-directory layouts seen in the wild (FORMATS §2).
public enum DataDirectoryLayout: String, Sendable, Codable, CaseIterable {
    /// Linux desktop app (also its Flatpak and old `~/.config/simplex` installs).
    case desktop
    /// Terminal CLI (`~/.simplex`): databases only; the files folder is whatever the user set.
    case terminal
    /// iOS container: databases at the top, `Documents/` holding files, temp and assets.
    case ios
}

/// Per-folder overrides (`--files-dir`, `--temp-dir`, `--assets-dir`).
public struct FolderOverrides: Sendable, Equatable {
    public var files: String?
    public var temp: String?
    public var assets: String?
    public init(files: String? = nil, temp: String? = nil, assets: String? = nil) {
        self.files = files
        self.temp = temp
        self.assets = assets
    }
}

/// Where everything of one SimpleX profile lives. The two databases always travel together, each
/// with its `-wal`/`-shm` companions.
public struct DataDirectory: Sendable, Equatable {
    public static let defaultPrefix = "simplex_v1"
    public static let environmentVariable = "SXKIT_DATA_DIR"

    public var root: String
    public var layout: DataDirectoryLayout
    public var prefix: String
    /// Received and sent files; `files.file_path` in the chat DB is relative to it. Nil for a
    /// terminal-CLI layout without `--files-dir`.
    public var filesFolder: String?
    /// Disposable folders: transfers in progress, decrypted copies, migration leftovers.
    public var tempFolders: [String]
    public var assetsFolder: String?
    public var wallpapersFolder: String?

    public var chatDatabase: String { Path.join(root, prefix + "_chat.db") }
    public var agentDatabase: String { Path.join(root, prefix + "_agent.db") }
    public var databases: [String] { [chatDatabase, agentDatabase] }
    /// The temp folder sxkit itself uses (the first of the layout's temp folders).
    public var primaryTempFolder: String { tempFolders[0] }

    public init(root: String, layout: DataDirectoryLayout, prefix: String = DataDirectory.defaultPrefix,
                overrides: FolderOverrides = FolderOverrides(), environment: [String: String] = ProcessInfo.processInfo.environment) {
        self.root = root
        self.layout = layout
        self.prefix = prefix
        func exists(_ p: String) -> Bool { POSIXFile.exists(p) }
        switch layout {
        case .desktop:
            filesFolder = Path.join(root, prefix + "_files")
            assetsFolder = Path.join(root, prefix + "_assets")
            wallpapersFolder = Path.join(root, prefix + "_assets/wallpapers")
            var temps = [Path.join(root, "tmp"), Path.join(root, "migration_temp_files")]
            // The desktop UI also leaves files in /tmp/simplex (shared /tmp: only when it is ours).
            let uiTemp = Path.join(environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp", "simplex")
            if let st = try? POSIXFile.status(uiTemp), st.st_uid == getuid() { temps.append(uiTemp) }
            tempFolders = temps
        case .terminal:
            filesFolder = nil
            assetsFolder = nil
            wallpapersFolder = nil
            tempFolders = [Path.join(root, "tmp")]
        case .ios:
            let docs = Path.join(root, "Documents")
            let older = Path.join(docs, "files")
            filesFolder = !exists(Path.join(docs, "app_files")) && exists(older) ? older : Path.join(docs, "app_files")
            assetsFolder = Path.join(docs, "assets")
            let olderWallpapers = Path.join(docs, "wallpapers")
            wallpapersFolder = !exists(Path.join(docs, "assets/wallpapers")) && exists(olderWallpapers)
                ? olderWallpapers : Path.join(docs, "assets/wallpapers")
            tempFolders = [Path.join(docs, "temp_files")]
        }
        if let files = overrides.files { filesFolder = Path.absolute(files) }
        if let temp = overrides.temp { tempFolders = [Path.absolute(temp)] }
        if let assets = overrides.assets {
            assetsFolder = Path.absolute(assets)
            wallpapersFolder = Path.join(Path.absolute(assets), "wallpapers")
        }
    }

    /// The folder a user means: `--data-dir`, else `SXKIT_DATA_DIR`, else the first existing
    /// well-known location (desktop, Flatpak, old desktop, terminal CLI), else the desktop default.
    public static func resolve(explicit: String?, overrides: FolderOverrides = FolderOverrides(),
                               environment: [String: String] = ProcessInfo.processInfo.environment) -> DataDirectory {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let chosen: String
        if let explicit, !explicit.isEmpty {
            chosen = Path.absolute(Path.expandTilde(explicit, home: home))
        } else if let env = environment[environmentVariable], !env.isEmpty {
            chosen = Path.absolute(Path.expandTilde(env, home: home))
        } else {
            let candidates = wellKnownLocations(environment: environment)
            chosen = candidates.first(where: { containsDatabases($0) }) ?? candidates[0]
        }
        return DataDirectory(root: chosen, layout: detectLayout(chosen), overrides: overrides, environment: environment)
    }

    /// Desktop default first, then Flatpak, old desktop, terminal CLI.
    public static func wellKnownLocations(environment: [String: String]) -> [String] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        func xdg(_ name: String, _ fallback: String) -> String {
            environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? home + fallback
        }
        return [
            xdg("XDG_DATA_HOME", "/.local/share") + "/simplex",
            home + "/.var/app/chat.simplex.simplex/data/simplex",
            xdg("XDG_CONFIG_HOME", "/.config") + "/simplex",
            home + "/.simplex",
        ]
    }

    /// Tells the layouts apart by what is on disk.
    public static func detectLayout(_ root: String) -> DataDirectoryLayout {
        if Folders.isFolder(Path.join(root, "Documents")) { return .ios }
        if POSIXFile.exists(Path.join(root, defaultPrefix + "_files"))
            || POSIXFile.exists(Path.join(root, defaultPrefix + "_assets")) { return .desktop }
        if Path.basename(root) == ".simplex" { return .terminal }
        return .desktop
    }

    static func containsDatabases(_ root: String) -> Bool {
        POSIXFile.exists(Path.join(root, defaultPrefix + "_chat.db"))
    }
}
