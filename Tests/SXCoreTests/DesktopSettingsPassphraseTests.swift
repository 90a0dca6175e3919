import Foundation
import SXCore
import SXTestSupport
import Testing

/// Finding the desktop app's settings for a data directory, and keeping its stored passphrase in
/// step with a passphrase change as the app does.
@Suite("DesktopSettingsPassphrase", .ownThreads)
struct DesktopSettingsPassphraseTests {
    static let old = SecretBytes(Array("old pass=word".utf8))
    static let new = SecretBytes(Array("new ünïcode passphrase".utf8))
    /// base64 of the UTF-8 passphrases, `=` escaped as the app's `Properties.store` writes it.
    static let oldStored = "b2xkIHBhc3M9d29yZA\\=\\="
    static let newStored = "bmV3IMO8bsOvY29kZSBwYXNzcGhyYXNl"

    static let settings = """
        #
        #Tue Nov 24 10:46:02 UTC 2026
        StoreDBPassphrase=true
        EncryptedDBPassphrase=\(oldStored)
        appLanguage=en
        InitialRandomDBPassphrase=true
        InitializationVectorDBPassphrase=\(oldStored)
        SocksProxy=localhost\\:9050

        """

    @Test func theSettingsOfAnAppDataDirectoryAreFoundFlatpakIncluded() {
        let env = ["HOME": "/home/u"]
        #expect(DesktopSettings.path(forDataDirectory: "/home/u/.local/share/simplex", environment: env) == "/home/u/.config/simplex/settings.properties")
        #expect(DesktopSettings.path(forDataDirectory: "/home/u/.local/share/simplex/", environment: env) == "/home/u/.config/simplex/settings.properties")
        #expect(DesktopSettings.path(forDataDirectory: "/home/u/.config/simplex", environment: env) == "/home/u/.config/simplex/settings.properties",
                "old installs keep their data beside the settings")
        #expect(DesktopSettings.path(forDataDirectory: "/home/u/.var/app/chat.simplex.simplex/data/simplex", environment: env)
                == "/home/u/.var/app/chat.simplex.simplex/config/simplex/settings.properties")
        #expect(DesktopSettings.path(forDataDirectory: "/tmp/copy-of-a-profile", environment: env) == nil, "no app uses that folder")
        #expect(DesktopSettings.path(forDataDirectory: "/home/u/.simplex", environment: env) == nil, "the terminal CLI keeps no settings.properties")
        let xdg = ["HOME": "/home/u", "XDG_DATA_HOME": "/data", "XDG_CONFIG_HOME": "/conf"]
        #expect(DesktopSettings.path(forDataDirectory: "/data/simplex", environment: xdg) == "/conf/simplex/settings.properties")
        #expect(DesktopSettings.path(forDataDirectory: "/home/u/.local/share/simplex", environment: xdg) == nil)
    }

    /// The folder is returned too: it is deleted when the last reference goes.
    func plan(_ text: String, new: SecretBytes = Self.new) throws -> (DesktopSettingsPlan?, String, TempFolder) {
        let tmp = try TempFolder()
        let path = try tmp.writeText("settings.properties", text)
        return (try DesktopSettings.planPassphraseChange(at: path, old: Self.old, new: new), path, tmp)
    }

    @Test func theOldPassphraseBecomesTheNewOneAndNothingElseChanges() throws {
        let (planned, path, folder) = try plan(Self.settings)
        guard case .prepared(let change)? = planned else { Issue.record("\(String(describing: planned))"); return }
        defer { withExtendedLifetime(folder) {} }
        #expect(change.kind == .update && change.path == path)
        try DesktopSettings.stage(change)
        #expect(String(decoding: try FileBytes.read(change.stagedPath, limit: 1 << 20), as: UTF8.self) == """
            #
            #Tue Nov 24 10:46:02 UTC 2026
            StoreDBPassphrase=true
            EncryptedDBPassphrase=\(Self.newStored)
            appLanguage=en
            InitialRandomDBPassphrase=false
            InitializationVectorDBPassphrase=\(Self.newStored)
            SocksProxy=localhost\\:9050

            """)
        #expect(String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self) == Self.settings, "staged only")
        #expect(try DesktopSettings.install(stagedFor: change.path, expecting: change.identity))
        #expect(try DesktopSettings.storedPassphrase(at: path)?.copyBytes() == Self.new.copyBytes())
        #expect(!FileManager.default.fileExists(atPath: change.stagedPath))
    }

    @Test func removingEncryptionRemovesBothKeys() throws {
        let (planned, path, folder) = try plan(Self.settings, new: SecretBytes([]))
        guard case .prepared(let change)? = planned else { Issue.record("\(String(describing: planned))"); return }
        defer { withExtendedLifetime(folder) {} }
        #expect(change.kind == .remove)
        try DesktopSettings.stage(change)
        #expect(try DesktopSettings.install(stagedFor: change.path, expecting: change.identity))
        #expect(String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self)
                == "#\n#Tue Nov 24 10:46:02 UTC 2026\nStoreDBPassphrase=true\nappLanguage=en\nInitialRandomDBPassphrase=false\nSocksProxy=localhost\\:9050\n")
    }

    @Test func onlyAFileThatStoredTheOldPassphraseIsChanged() throws {
        let other = Self.settings.replacingOccurrences(of: Self.oldStored, with: "c29tZXRoaW5nIGVsc2U\\=")
        guard case .outcome(let outcome)? = try plan(other).0 else { Issue.record("prepared a change for another passphrase"); return }
        #expect(outcome.action == .leftUnchanged && outcome.needsAttention)
        #expect(outcome.message.contains("store a passphrase that is not the old one; they were left unchanged"))
        guard case .outcome(let garbled)? = try plan("EncryptedDBPassphrase=*not base64*\n").0 else { Issue.record("garbled"); return }
        #expect(garbled.action == .leftUnchanged)
        guard case .outcome(let none)? = try plan("appLanguage=en\n").0 else { Issue.record("none"); return }
        #expect(none.action == .notStored && !none.needsAttention)
        let tmp = try TempFolder()
        #expect(try DesktopSettings.planPassphraseChange(at: tmp.root + "/missing.properties", old: Self.old, new: Self.new) == nil)
    }

    @Test func theStagedFileHasTheSettingsModeAndIsNotInstalledOverAChangedFile() throws {
        let (planned, path, folder) = try plan(Self.settings)
        guard case .prepared(let change)? = planned else { Issue.record("not prepared"); return }
        defer { withExtendedLifetime(folder) {} }
        #expect(chmod(path, 0o640) == 0)
        // The mode is read when planning: plan again now that it is 0640.
        guard case .prepared(let again)? = try DesktopSettings.planPassphraseChange(at: path, old: Self.old, new: Self.new) else { return }
        try DesktopSettings.stage(again)
        #expect(try permissionBits(again.stagedPath) == 0o640)
        // The app wrote its settings meanwhile: not replaced, and the staged file stays for the user.
        try Data((Self.settings + "NewDatabaseInitialized=true\n").utf8).write(to: URL(fileURLWithPath: path))
        #expect(try DesktopSettings.install(stagedFor: change.path, expecting: again.identity) == false)
        #expect(FileManager.default.fileExists(atPath: again.stagedPath))
        #expect(String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self).hasSuffix("NewDatabaseInitialized=true\n"))
        let sentence = DesktopSettings.changedMeanwhileOutcome(path, .update)
        #expect(sentence.staged == again.stagedPath && sentence.message.contains("move that file over it"))
    }

    @Test func aSymlinkedSettingsFileIsChangedAtItsTarget() throws {
        let tmp = try TempFolder()
        let target = try tmp.writeText("real.properties", "EncryptedDBPassphrase=\(Self.oldStored)\n")
        let link = tmp.root + "/settings.properties"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        guard case .prepared(let change)? = try DesktopSettings.planPassphraseChange(at: link, old: Self.old, new: Self.new) else { return }
        try DesktopSettings.stage(change)
        #expect(try DesktopSettings.install(stagedFor: change.path, expecting: change.identity))
        #expect(try FileManager.default.destinationOfSymbolicLink(atPath: link) == target, "the link stays a link")
        #expect(try DesktopSettings.storedPassphrase(at: link)?.copyBytes() == Self.new.copyBytes())
    }
}
