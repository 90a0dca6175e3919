import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// `db rekey` keeps the desktop app's stored passphrase in step: found for the app's data directory
/// (XDG and Flatpak), changed byte for byte only where it stored the old passphrase, removed on
/// `--decrypt`, left alone (with a warning) when it stores another, and crash safe with the rekey.
@Suite(.ownThreads) struct RekeyDesktopSettingsTests {
    static let old = SampleDataDirectory.defaultPassphrase
    static let oldText = "correct horse battery staple"
    static let newText = "a new one, with = and 'quotes'"
    /// base64 of the UTF-8 passphrases, as `Properties.store` writes them (`=` escaped).
    static let oldStored = "Y29ycmVjdCBob3JzZSBiYXR0ZXJ5IHN0YXBsZQ\\=\\="
    static let newStored = "YSBuZXcgb25lLCB3aXRoID0gYW5kICdxdW90ZXMn"

    /// What the app writes (`Properties.store(Writer, "")` on JDK 17: `#`, a date, unsorted keys).
    static func settings(stored: String) -> String {
        """
        #
        #Tue Nov 24 10:46:02 UTC 2026
        StoreDBPassphrase=true
        EncryptedDBPassphrase=\(stored)
        appLanguage=en
        InitialRandomDBPassphrase=true
        InitializationVectorDBPassphrase=\(stored)
        # a comment someone added
        SocksProxy=localhost\\:9050

        """
    }

    /// A home folder holding the desktop app's data directory and settings, the usual way or as Flatpak.
    struct Home {
        let temp: TempFolder
        let data: String
        let settings: String
        var home: String { temp.path }

        init(flatpak: Bool = false, settings text: String? = RekeyDesktopSettingsTests.settings(stored: RekeyDesktopSettingsTests.oldStored),
             mode: mode_t = 0o640) throws {
            temp = try TempFolder("sxkit-home")
            let app = flatpak ? "/.var/app/chat.simplex.simplex" : ""
            data = temp.path + app + (flatpak ? "/data/simplex" : "/.local/share/simplex")
            settings = temp.path + app + (flatpak ? "/config/simplex" : "/.config/simplex") + "/settings.properties"
            _ = try SampleCopies.create(at: data, options: .init(photos: 0, documents: 1, chatItems: 5))
            try FileManager.default.createDirectory(atPath: Path.parent(settings), withIntermediateDirectories: true)
            if let text {
                try Data(text.utf8).write(to: URL(fileURLWithPath: settings))
                #expect(chmod(settings, mode) == 0)
            }
            try Data(RekeyDesktopSettingsTests.newText.utf8).write(to: URL(fileURLWithPath: temp.file("new")))
        }

        var environment: [String: String] {
            ["HOME": home, "XDG_DATA_HOME": "", "XDG_CONFIG_HOME": "", "SXKIT_PASSPHRASE": RekeyDesktopSettingsTests.oldText]
        }

        func rekey(_ extra: [String] = [], crashAt: String? = nil) throws -> CLIResult {
            var env = environment
            if let crashAt { env["SXKIT_CRASH_AT"] = crashAt }
            let target = extra.contains("--decrypt") ? [] : ["--new-passphrase-file", temp.file("new")]
            return try CLI.run(["db", "rekey", "--data-dir", data] + target + extra, environment: env)
        }

        func text() throws -> String { String(decoding: try FileBytes.read(settings, limit: 1 << 20), as: UTF8.self) }
        var staged: String { settings + ".sxkit-rekey" }
        func opens(_ passphrase: String) throws -> Bool {
            try CLI.run(["db", "test-key", "--data-dir", data, "--quiet"], environment: ["SXKIT_PASSPHRASE": passphrase]).status == 0
        }
    }

    static let updated = settings(stored: newStored).replacingOccurrences(of: "InitialRandomDBPassphrase=true", with: "InitialRandomDBPassphrase=false")

    @Test func theStoredOldPassphraseBecomesTheNewOneByteForByteAndTheModeStays() throws {
        let h = try Home()
        let r = try h.rekey()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.text() == Self.updated)
        #expect(try POSIXFile.status(h.settings).st_mode & 0o7777 == 0o640)
        #expect(r.stdout.contains("The desktop app's settings (\(h.settings)) stored the old passphrase; they now store the new one.\n"), "\(r.stdout)")
        #expect(!FileManager.default.fileExists(atPath: h.staged))
        #expect(try h.opens(Self.newText))
    }

    @Test func flatpakSettingsAreFoundAndTheJSONSaysWhatHappened() throws {
        let h = try Home(flatpak: true, mode: 0o600)
        #expect(h.settings.hasSuffix("/.var/app/chat.simplex.simplex/config/simplex/settings.properties"))
        let r = try h.rekey(["--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let document = try #require(try JSONSerialization.jsonObject(with: Data(r.stdoutBytes)) as? [String: Any])
        let settings = try #require(document["desktopSettings"] as? [String: Any])
        #expect(settings["status"] as? String == "updated")
        #expect(settings["path"] as? String == h.settings)
        #expect(try h.text() == Self.updated)
        #expect(try POSIXFile.status(h.settings).st_mode & 0o7777 == 0o600)
    }

    @Test func decryptRemovesBothKeysAsTheAppDoes() throws {
        let h = try Home()
        let r = try h.rekey(["--decrypt"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.text() == """
            #
            #Tue Nov 24 10:46:02 UTC 2026
            StoreDBPassphrase=true
            appLanguage=en
            InitialRandomDBPassphrase=false
            # a comment someone added
            SocksProxy=localhost\\:9050

            """)
        #expect(r.stdout.contains("it was removed, as the app does when it no longer stores one"))
    }

    @Test func settingsStoringAnotherPassphraseAreLeftAloneWithAWarning() throws {
        let other = Self.settings(stored: "c29tZXRoaW5nIGVsc2U\\=")
        let h = try Home(settings: other)
        let r = try h.rekey()
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try h.text() == other)
        #expect(r.stderr.contains("sxkit: warning: the desktop app's settings (\(h.settings)) store a passphrase that is not the old one; they were left unchanged, so the app will ask for the passphrase: give it the new one"), "\(r.stderr)")
        #expect(try h.opens(Self.newText))
    }

    @Test func aDataDirectoryNoAppUsesLeavesTheSettingsAloneUnlessTheyAreNamed() throws {
        let h = try Home()
        let copy = h.temp.file("copy")
        try FileManager.default.copyItem(atPath: h.data, toPath: copy)
        let r = try CLI.run(["db", "rekey", "--data-dir", copy, "--new-passphrase-file", h.temp.file("new")], environment: h.environment)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!r.stdout.contains("desktop app"))
        #expect(try h.text() == Self.settings(stored: Self.oldStored))
        // Given explicitly, they are the copy's.
        let again = try CLI.run(["db", "rekey", "--data-dir", copy, "--desktop-settings", h.settings, "--passphrase-file", h.temp.file("new"),
                                 "--decrypt"], environment: h.environment)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("store a passphrase that is not the old one"), "the settings still hold the first passphrase")
    }

    @Test func killedWithTheSettingsStagedTheyAreRolledBackWithTheDatabases() throws {
        let h = try Home()
        let killed = try h.rekey(crashAt: "rekey.settings-staged")
        #expect(killed.status == 9 || killed.status == 137, "\(killed.stderr)")
        #expect(FileManager.default.fileExists(atPath: h.staged))
        let recover = try CLI.run(["db", "recover", "--data-dir", h.data], environment: h.environment)
        #expect(recover.status == 0, "\(recover.stderr)")
        #expect(!FileManager.default.fileExists(atPath: h.staged))
        #expect(try h.text() == Self.settings(stored: Self.oldStored))
        #expect(try h.opens(Self.oldText))
    }

    @Test func killedAfterTheSwapTheSettingsAreFinishedByRecover() throws {
        let h = try Home()
        let killed = try h.rekey(crashAt: "rekey.before-settings")
        #expect(killed.status == 9 || killed.status == 137, "\(killed.stderr)")
        #expect(try h.opens(Self.newText))
        #expect(try h.text() == Self.settings(stored: Self.oldStored), "not yet")
        let recover = try CLI.run(["db", "recover", "--data-dir", h.data], environment: h.environment)
        #expect(recover.status == 0, "\(recover.stderr)")
        #expect(recover.stdout.contains("The desktop app's settings (\(h.settings)) stored the old passphrase; they now store the new one."), "\(recover.stdout)")
        #expect(try h.text() == Self.updated)
        #expect(try POSIXFile.status(h.settings).st_mode & 0o7777 == 0o640)
    }

    @Test func settingsWrittenAfterTheKillAreNotOverwrittenAndTheUserIsToldWhatToDo() throws {
        let h = try Home()
        _ = try h.rekey(crashAt: "rekey.before-settings")
        let rewritten = Self.settings(stored: Self.oldStored) + "NewDatabaseInitialized=true\n"
        try Data(rewritten.utf8).write(to: URL(fileURLWithPath: h.settings))
        let recover = try CLI.run(["db", "recover", "--data-dir", h.data, "--json"], environment: h.environment)
        #expect(recover.status == 0, "\(recover.stderr)")
        #expect(try h.text() == rewritten)
        #expect(FileManager.default.fileExists(atPath: h.staged), "kept for the user")
        // Under --json the warning the text mode writes on stderr is in the document.
        let document = try #require(try JSONSerialization.jsonObject(with: Data(recover.stdoutBytes)) as? [String: Any])
        let warning = (document["warnings"] as? [String])?.first ?? ""
        #expect(warning.contains("were written after the passphrase change began") && warning.contains("move that file over it"), "\(recover.stdout)")
        let settings = try #require(document["desktopSettings"] as? [String: Any])
        #expect(settings["status"] as? String == "changedMeanwhile" && settings["staged"] as? String == h.staged)
        #expect(String(decoding: try FileBytes.read(h.staged, limit: 1 << 20), as: UTF8.self) == Self.updated)
    }
}
