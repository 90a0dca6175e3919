import Foundation

/// The SimpleX desktop app's `settings.properties` (a Java properties file). When the app "stores the
/// passphrase" it keeps it under `EncryptedDBPassphrase` (and `InitializationVectorDBPassphrase`) as
/// base64 of its UTF-8 bytes — not encrypted on desktop (simplex-chat `Cryptor.desktop.kt:3-15` is a
/// no-op; `DatabaseUtils.kt:16-40` `KeyStoreItem`) — which is worth both using (on request) and
/// reporting as a finding.
public enum DesktopSettings {
    public static let passphraseKey = "EncryptedDBPassphrase"
    /// Written with the same value as `passphraseKey` on desktop; the app reads the passphrase only
    /// when both keys are present (`KeyStoreItem.get`).
    public static let initializationVectorKey = "InitializationVectorDBPassphrase"
    /// Set to false by the app after any passphrase change (`DatabaseEncryptionView.kt` `resetFormAfterEncryption`).
    public static let initialRandomKey = "InitialRandomDBPassphrase"
    /// The desktop app's Flatpak id (simplex-chat `scripts/flatpak/chat.simplex.simplex.metainfo.xml:3`).
    public static let flatpakID = "chat.simplex.simplex"

    /// `${XDG_CONFIG_HOME:-~/.config}/simplex/settings.properties`: the app's config path
    /// (`Resources.desktop.kt:39-42`).
    public static func defaultPath(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return config + "/simplex/settings.properties"
    }

    /// The settings file of the desktop app whose data directory is `root`, or nil when no desktop
    /// app keeps its profile there. The app puts its data in `${XDG_DATA_HOME:-~/.local/share}/simplex`
    /// (some old installs: the config folder itself) and its settings in
    /// `${XDG_CONFIG_HOME:-~/.config}/simplex`; under Flatpak, XDG_DATA_HOME and XDG_CONFIG_HOME are
    /// `~/.var/app/chat.simplex.simplex/data` and `…/config`.
    public static func path(forDataDirectory root: String, environment: [String: String]) -> String? {
        let home = environment["HOME"] ?? NSHomeDirectory()
        func xdg(_ name: String, _ fallback: String) -> String {
            environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? home + fallback
        }
        let flatpak = home + "/.var/app/" + flatpakID
        let candidates: [(data: String, settings: String)] = [
            (flatpak + "/data/simplex", flatpak + "/config/simplex/settings.properties"),
            (xdg("XDG_DATA_HOME", "/.local/share") + "/simplex", defaultPath(environment: environment)),
            (xdg("XDG_CONFIG_HOME", "/.config") + "/simplex", defaultPath(environment: environment)),
        ]
        let given = canonical(root)
        return candidates.first { canonical($0.data) == given }?.settings
    }

    /// The stored passphrase, or nil when the file or the key is absent.
    public static func storedPassphrase(at path: String) throws -> SecretBytes? {
        guard POSIXFile.exists(path) else { return nil }
        let file = JavaProperties(bytes: try FileBytes.read(path, limit: maxSize))
        guard let encoded = file.value(passphraseKey), !encoded.isEmpty else { return nil }
        guard var decoded = Data(base64Encoded: encoded) else {
            throw PassphraseError("\(passphraseKey) in \(path) is not valid base64")
        }
        defer { decoded.withUnsafeMutableBytes { Wipe.bytes($0) } }
        return SecretBytes(decoded)
    }

    /// Every key with its value, as `Properties.load` reads `text` (the last definition wins).
    public static func properties(_ text: String) -> [String: String] {
        JavaProperties(bytes: Array(text.utf8)).values
    }

    /// A settings file is a few KB; anything this big is a wrong file.
    static let maxSize = 1 << 20

    /// The absolute path with `.`/`..` and symlinks resolved as far as the path exists.
    static func canonical(_ path: String) -> String {
        let absolute = Path.absolute(path)
        return Path.resolved(absolute) ?? absolute
    }
}
