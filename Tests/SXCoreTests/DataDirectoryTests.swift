import Foundation
import SXCore
import SXTestSupport
import Testing

/// A fake home with its own XDG folders, so resolution never looks at the real machine.
private struct FakeHome {
    let folder: TempFolder
    var home: String { folder.root + "/home" }
    var xdgData: String { folder.root + "/xdg-data" }
    var xdgConfig: String { folder.root + "/xdg-config" }

    init() throws {
        folder = try TempFolder("sxkit-datadir")
        try folder.makeFolder("home")
        try folder.makeFolder("tmpdir")
    }

    /// An environment with the fake HOME and XDG folders and a private TMPDIR.
    func environment(_ extra: [String: String] = [:], xdg: Bool = true) -> [String: String] {
        var env = ["HOME": home, "TMPDIR": folder.root + "/tmpdir"]
        if xdg {
            env["XDG_DATA_HOME"] = xdgData
            env["XDG_CONFIG_HOME"] = xdgConfig
        }
        return env.merging(extra) { _, new in new }
    }

    /// Puts a chat database at `folder` (which may not exist yet).
    func placeDatabase(in path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data("db".utf8).write(to: URL(fileURLWithPath: path + "/simplex_v1_chat.db"))
    }
}

@Suite("DataDirectory.resolve", .ownThreads)
struct DataDirectoryResolveTests {
    @Test func explicitFolderWinsOverEnvironmentAndWellKnownLocations() throws {
        let fake = try FakeHome()
        try fake.placeDatabase(in: fake.xdgData + "/simplex")
        let explicit = fake.folder.root + "/chosen"
        let dir = DataDirectory.resolve(explicit: explicit + "/sub/..",
                                        environment: fake.environment(["SXKIT_DATA_DIR": fake.folder.root + "/from-env"]))
        #expect(dir.root == explicit)
    }

    @Test func explicitTildeExpandsToHome() throws {
        let fake = try FakeHome()
        let dir = DataDirectory.resolve(explicit: "~/data", environment: fake.environment())
        #expect(dir.root == fake.home + "/data")
    }

    @Test func emptyExplicitFallsThroughToEnvironmentVariable() throws {
        let fake = try FakeHome()
        let fromEnv = fake.folder.root + "/from-env"
        let dir = DataDirectory.resolve(explicit: "", environment: fake.environment(["SXKIT_DATA_DIR": fromEnv]))
        #expect(dir.root == fromEnv)
    }

    @Test func environmentVariableWinsOverWellKnownLocations() throws {
        let fake = try FakeHome()
        try fake.placeDatabase(in: fake.xdgData + "/simplex")
        let dir = DataDirectory.resolve(explicit: nil, environment: fake.environment(["SXKIT_DATA_DIR": "~/env-data"]))
        #expect(dir.root == fake.home + "/env-data")
    }

    @Test func emptyEnvironmentVariableIsIgnored() throws {
        let fake = try FakeHome()
        let dir = DataDirectory.resolve(explicit: nil, environment: fake.environment(["SXKIT_DATA_DIR": ""]))
        #expect(dir.root == fake.xdgData + "/simplex")
    }

    @Test func firstWellKnownLocationHoldingTheChatDatabaseWins() throws {
        let fake = try FakeHome()
        // Terminal CLI and old desktop both have databases; old desktop comes first in the order.
        try fake.placeDatabase(in: fake.home + "/.simplex")
        try fake.placeDatabase(in: fake.xdgConfig + "/simplex")
        // The desktop default exists but holds no database: it must be skipped.
        try FileManager.default.createDirectory(atPath: fake.xdgData + "/simplex", withIntermediateDirectories: true)
        let dir = DataDirectory.resolve(explicit: nil, environment: fake.environment())
        #expect(dir.root == fake.xdgConfig + "/simplex")
        #expect(dir.layout == .desktop)
    }

    @Test func flatpakLocationComesBeforeOldDesktopAndTerminal() throws {
        let fake = try FakeHome()
        let flatpak = fake.home + "/.var/app/chat.simplex.simplex/data/simplex"
        try fake.placeDatabase(in: flatpak)
        try fake.placeDatabase(in: fake.xdgConfig + "/simplex")
        try fake.placeDatabase(in: fake.home + "/.simplex")
        #expect(DataDirectory.resolve(explicit: nil, environment: fake.environment()).root == flatpak)
    }

    @Test func terminalLocationIsFoundAndDetectedAsTerminal() throws {
        let fake = try FakeHome()
        try fake.placeDatabase(in: fake.home + "/.simplex")
        let dir = DataDirectory.resolve(explicit: nil, environment: fake.environment())
        #expect(dir.root == fake.home + "/.simplex")
        #expect(dir.layout == .terminal)
        #expect(dir.filesFolder == nil)
    }

    @Test func nothingFoundGivesTheXDGDesktopDefault() throws {
        let fake = try FakeHome()
        let dir = DataDirectory.resolve(explicit: nil, environment: fake.environment())
        #expect(dir.root == fake.xdgData + "/simplex")
        #expect(dir.layout == .desktop)
    }

    @Test func withoutXDGVariablesTheHomeFallbacksAreUsed() throws {
        let fake = try FakeHome()
        let env = fake.environment(xdg: false)
        #expect(DataDirectory.resolve(explicit: nil, environment: env).root == fake.home + "/.local/share/simplex")
        #expect(DataDirectory.wellKnownLocations(environment: env) == [
            fake.home + "/.local/share/simplex",
            fake.home + "/.var/app/chat.simplex.simplex/data/simplex",
            fake.home + "/.config/simplex",
            fake.home + "/.simplex",
        ])
        try fake.placeDatabase(in: fake.home + "/.config/simplex")
        #expect(DataDirectory.resolve(explicit: nil, environment: env).root == fake.home + "/.config/simplex")
    }

    @Test func emptyXDGVariablesCountAsUnset() throws {
        let fake = try FakeHome()
        let env = fake.environment(["XDG_DATA_HOME": "", "XDG_CONFIG_HOME": ""])
        let locations = DataDirectory.wellKnownLocations(environment: env)
        #expect(locations.first == fake.home + "/.local/share/simplex")
        #expect(locations[2] == fake.home + "/.config/simplex")
    }

    @Test func overridesArePassedThrough() throws {
        let fake = try FakeHome()
        let files = fake.folder.root + "/my-files"
        let dir = DataDirectory.resolve(explicit: fake.folder.root + "/d", overrides: FolderOverrides(files: files),
                                        environment: fake.environment())
        #expect(dir.filesFolder == files)
    }
}

@Suite("DataDirectory layouts", .ownThreads)
struct DataDirectoryLayoutTests {
    @Test func desktopIsDetectedByItsFilesOrAssetsFolder() throws {
        let tmp = try TempFolder()
        let withFiles = try tmp.makeFolder("a/simplex_v1_files")
        let withAssets = try tmp.makeFolder("b/simplex_v1_assets")
        #expect(DataDirectory.detectLayout(Path.parent(withFiles)) == .desktop)
        #expect(DataDirectory.detectLayout(Path.parent(withAssets)) == .desktop)
    }

    @Test func desktopFilesFolderWinsEvenInAFolderNamedDotSimplex() throws {
        let tmp = try TempFolder()
        let root = try tmp.makeFolder(".simplex")
        #expect(DataDirectory.detectLayout(root) == .terminal)
        try tmp.makeFolder(".simplex/simplex_v1_files")
        #expect(DataDirectory.detectLayout(root) == .desktop)
    }

    @Test func iosIsDetectedByADocumentsFolderButNotADocumentsFile() throws {
        let tmp = try TempFolder()
        let root = try tmp.makeFolder("container")
        try tmp.writeText("container/Documents", "not a folder")
        #expect(DataDirectory.detectLayout(root) == .desktop)
        try FileManager.default.removeItem(atPath: root + "/Documents")
        try tmp.makeFolder("container/Documents")
        try tmp.makeFolder("container/simplex_v1_files")
        #expect(DataDirectory.detectLayout(root) == .ios)
    }

    @Test func emptyOrMissingFolderIsDesktop() throws {
        let tmp = try TempFolder()
        #expect(DataDirectory.detectLayout(tmp.root) == .desktop)
        #expect(DataDirectory.detectLayout(tmp.root + "/missing") == .desktop)
    }

    @Test func desktopFolders() throws {
        let tmp = try TempFolder()
        let root = tmp.root + "/simplex"
        let dir = DataDirectory(root: root, layout: .desktop, environment: ["TMPDIR": tmp.root + "/no-such-tmp"])
        #expect(dir.chatDatabase == root + "/simplex_v1_chat.db")
        #expect(dir.agentDatabase == root + "/simplex_v1_agent.db")
        #expect(dir.databases == [dir.chatDatabase, dir.agentDatabase])
        #expect(dir.filesFolder == root + "/simplex_v1_files")
        #expect(dir.assetsFolder == root + "/simplex_v1_assets")
        #expect(dir.wallpapersFolder == root + "/simplex_v1_assets/wallpapers")
        #expect(dir.tempFolders == [root + "/tmp", root + "/migration_temp_files"])
        #expect(dir.primaryTempFolder == root + "/tmp")
    }

    @Test func desktopIncludesTheUITempFolderOnlyWhenItExistsAndIsOurs() throws {
        let tmp = try TempFolder()
        let root = tmp.root + "/data"
        let env = ["TMPDIR": tmp.root]
        #expect(DataDirectory(root: root, layout: .desktop, environment: env).tempFolders
            == [root + "/tmp", root + "/migration_temp_files"])
        let uiTemp = try tmp.makeFolder("simplex")
        #expect(DataDirectory(root: root, layout: .desktop, environment: env).tempFolders
            == [root + "/tmp", root + "/migration_temp_files", uiTemp])
        // A shared /tmp/simplex that belongs to someone else is not ours to clean.
        let otherUser: uid_t = getuid() == 0 ? 65534 : 0
        guard chown(uiTemp, otherUser, gid_t(otherUser)) == 0 else { return }   // only root can give a folder away
        #expect(DataDirectory(root: root, layout: .desktop, environment: env).tempFolders.count == 2)
    }

    @Test func customPrefixNamesDatabasesAndFolders() {
        let dir = DataDirectory(root: "/data", layout: .desktop, prefix: "other", environment: ["TMPDIR": "/nonexistent"])
        #expect(dir.chatDatabase == "/data/other_chat.db")
        #expect(dir.agentDatabase == "/data/other_agent.db")
        #expect(dir.filesFolder == "/data/other_files")
        #expect(dir.wallpapersFolder == "/data/other_assets/wallpapers")
    }

    @Test func terminalFolders() {
        let dir = DataDirectory(root: "/home/u/.simplex", layout: .terminal, environment: [:])
        #expect(dir.filesFolder == nil)
        #expect(dir.assetsFolder == nil)
        #expect(dir.wallpapersFolder == nil)
        #expect(dir.tempFolders == ["/home/u/.simplex/tmp"])
        #expect(dir.chatDatabase == "/home/u/.simplex/simplex_v1_chat.db")
    }

    @Test func iosCurrentFolders() throws {
        let tmp = try TempFolder()
        let root = tmp.root
        try tmp.makeFolder("Documents/app_files")
        try tmp.makeFolder("Documents/files")             // an older leftover: the current name wins
        try tmp.makeFolder("Documents/assets/wallpapers")
        try tmp.makeFolder("Documents/wallpapers")
        let dir = DataDirectory(root: root, layout: .ios, environment: [:])
        #expect(dir.filesFolder == root + "/Documents/app_files")
        #expect(dir.assetsFolder == root + "/Documents/assets")
        #expect(dir.wallpapersFolder == root + "/Documents/assets/wallpapers")
        #expect(dir.tempFolders == [root + "/Documents/temp_files"])
        #expect(dir.chatDatabase == root + "/simplex_v1_chat.db")
    }

    @Test func iosOlderFoldersAreUsedWhenOnlyTheyExist() throws {
        let tmp = try TempFolder()
        try tmp.makeFolder("Documents/files")
        try tmp.makeFolder("Documents/wallpapers")
        let dir = DataDirectory(root: tmp.root, layout: .ios, environment: [:])
        #expect(dir.filesFolder == tmp.root + "/Documents/files")
        #expect(dir.wallpapersFolder == tmp.root + "/Documents/wallpapers")
        #expect(dir.assetsFolder == tmp.root + "/Documents/assets")
    }

    @Test func iosDefaultsToCurrentNamesWhenNothingExists() throws {
        let tmp = try TempFolder()
        try tmp.makeFolder("Documents")
        let dir = DataDirectory(root: tmp.root, layout: .ios, environment: [:])
        #expect(dir.filesFolder == tmp.root + "/Documents/app_files")
        #expect(dir.wallpapersFolder == tmp.root + "/Documents/assets/wallpapers")
    }

    @Test func folderOverridesReplaceLayoutFoldersAndAreNormalised() {
        let overrides = FolderOverrides(files: "/x/files/../f", temp: "/x/./t/", assets: "/x/a")
        for layout in DataDirectoryLayout.allCases {
            let dir = DataDirectory(root: "/data", layout: layout, overrides: overrides, environment: ["TMPDIR": "/nonexistent"])
            #expect(dir.filesFolder == "/x/f", "layout \(layout)")
            #expect(dir.tempFolders == ["/x/t"], "layout \(layout)")
            #expect(dir.assetsFolder == "/x/a", "layout \(layout)")
            #expect(dir.wallpapersFolder == "/x/a/wallpapers", "layout \(layout)")
        }
    }

    @Test func relativeOverrideIsMadeAbsoluteAgainstTheWorkingFolder() {
        let dir = DataDirectory(root: "/data", layout: .terminal, overrides: FolderOverrides(files: "some/files"), environment: [:])
        #expect(dir.filesFolder == Path.absolute(FileManager.default.currentDirectoryPath + "/some/files"))
        #expect(dir.filesFolder?.hasPrefix("/") == true)
    }

    @Test func partialOverridesLeaveOtherFoldersAlone() {
        let dir = DataDirectory(root: "/data", layout: .desktop, overrides: FolderOverrides(temp: "/t"),
                                environment: ["TMPDIR": "/nonexistent"])
        #expect(dir.tempFolders == ["/t"])
        #expect(dir.filesFolder == "/data/simplex_v1_files")
        #expect(dir.wallpapersFolder == "/data/simplex_v1_assets/wallpapers")
        #expect(FolderOverrides() == FolderOverrides(files: nil, temp: nil, assets: nil))
        #expect(FolderOverrides(files: "/a") != FolderOverrides(files: "/b"))
    }

    @Test func companionsAreWalAndShm() {
        #expect(DataDirectoryNames.walCompanions(of: "/d/simplex_v1_chat.db") == ["/d/simplex_v1_chat.db-wal", "/d/simplex_v1_chat.db-shm"])
        #expect(DataDirectoryNames.walCompanions(of: "x.db") == ["x.db-wal", "x.db-shm"])
    }
}
