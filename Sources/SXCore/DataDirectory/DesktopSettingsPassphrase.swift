import Foundation

/// Keeping the desktop app's stored passphrase in step with a passphrase change, the way the app does
/// it itself (simplex-chat `DatabaseEncryptionView.kt:270-300,419-480`, `DatabaseUtils.kt:16-40`):
/// on a change, `EncryptedDBPassphrase` and `InitializationVectorDBPassphrase` become base64 of the new
/// passphrase's UTF-8 bytes; when encryption is removed, "not stored" is represented by removing both
/// keys; `InitialRandomDBPassphrase` becomes `false`. Only a file that stored the OLD passphrase is
/// changed: anything else is the user's and is left alone.
///
/// The change is prepared in a staged file beside the settings (`stage`) while the databases are
/// still untouched, and put in place by a rename once they are (`install`): the settings are never
/// half-written, and a run interrupted in between can be finished by whoever finds the staged file.
public struct DesktopSettingsChange: Sendable {
    public enum Kind: String, Sendable, Codable {
        /// The stored passphrase becomes the new one.
        case update
        /// The stored passphrase is removed (the databases are no longer encrypted).
        case remove
    }

    /// The settings file itself (symlinks resolved).
    public let path: String
    public let kind: Kind
    /// The file as it was when the change was prepared, to tell whether someone wrote it since.
    public let identity: FileIdentity
    let contents: SecretBytes
    let mode: mode_t

    /// Where the prepared file waits: beside the settings, so that a rename puts it in place.
    public var stagedPath: String { DesktopSettings.stagedPath(for: path) }
}

/// A file as it was: device, inode, size and modification time. Not its contents (they hold a secret).
public struct FileIdentity: Sendable, Equatable, Codable {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    public var modifiedNanoseconds: Int64

    init(_ st: stat) {
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
        size = Int64(st.st_size)
        modifiedNanoseconds = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    /// The identity of the file at `path` now; nil when there is none.
    public static func of(_ path: String) -> FileIdentity? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return FileIdentity(st)
    }
}

/// What happened to the desktop app's stored passphrase, in one sentence for the user.
public struct DesktopSettingsOutcome: Sendable, Equatable, Codable {
    public enum Action: String, Sendable, Codable {
        /// It held the old passphrase and now holds the new one.
        case updated
        /// It held the old passphrase, which was removed (no encryption any more).
        case removed
        /// It stores no passphrase: nothing to change.
        case notStored
        /// It stores another passphrase (or one that cannot be read): left unchanged.
        case leftUnchanged
        /// Someone wrote the settings after the change was prepared: not replaced; the prepared file is kept.
        case changedMeanwhile
    }

    public var path: String
    public var action: Action
    public var message: String
    /// The prepared file, when it was kept for the user to look at.
    public var staged: String?

    /// Under sxkit's JSON vocabulary what happened to an item is its `status`.
    enum CodingKeys: String, CodingKey {
        case path, message, staged
        case action = "status"
    }

    public init(path: String, action: Action, message: String, staged: String? = nil) {
        self.path = path
        self.action = action
        self.message = message
        self.staged = staged
    }

    /// Whether the user must act (the app will ask for a passphrase, or a file needs a look).
    public var needsAttention: Bool { action == .leftUnchanged || action == .changedMeanwhile }
}

extension DesktopSettings {
    /// The staged settings of an interrupted passphrase change.
    public static func stagedPath(for path: String) -> String { path + DataDirectoryNames.settingsStagedSuffix }

    /// What a change from `old` to `new` (empty: encryption removed) does to the settings at `path`:
    /// `.prepared` with the new file's contents when they stored the old passphrase, else the outcome
    /// (nothing to do, or left alone with the reason). Nil when there is no settings file. Reads only.
    public static func planPassphraseChange(at path: String, old: SecretBytes, new: SecretBytes) throws -> DesktopSettingsPlan? {
        let file = canonical(path)
        var st = stat()
        guard stat(file, &st) == 0 else {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileSystemError("read the status of", path: file)
        }
        var settings = JavaProperties(bytes: try FileBytes.read(file, limit: maxSize))
        guard let stored = settings.value(passphraseKey) else {
            return .outcome(DesktopSettingsOutcome(path: file, action: .notStored,
                message: "the desktop app's settings (\(file)) store no passphrase; nothing to update"))
        }
        guard var decoded = Data(base64Encoded: stored) else {
            return .outcome(DesktopSettingsOutcome(path: file, action: .leftUnchanged,
                message: "the desktop app's settings (\(file)) hold a \(passphraseKey) that is not base64; they were left unchanged, so the app will ask for the passphrase: give it the new one"))
        }
        let matches = SecretBytes(decoded).constantTimeEquals(old)
        decoded.withUnsafeMutableBytes { Wipe.bytes($0) }
        guard matches else {
            return .outcome(DesktopSettingsOutcome(path: file, action: .leftUnchanged,
                message: "the desktop app's settings (\(file)) store a passphrase that is not the old one; they were left unchanged, so the app will ask for the passphrase: give it the new one"))
        }
        let kind: DesktopSettingsChange.Kind = new.isEmpty ? .remove : .update
        switch kind {
        case .update:
            // Kotlin's Base64.Default on desktop: standard alphabet, padded, one line (Utils.desktop.kt:201-205).
            let encoded = new.withUnsafeBytes { Data($0).base64EncodedString() }
            settings.replaceValue(of: passphraseKey, with: encoded)
            settings.replaceValue(of: initializationVectorKey, with: encoded)
        case .remove:
            settings.remove(passphraseKey)
            settings.remove(initializationVectorKey)
        }
        if settings.contains(initialRandomKey) { settings.replaceValue(of: initialRandomKey, with: "false") }
        return .prepared(DesktopSettingsChange(path: file, kind: kind, identity: FileIdentity(st),
                                               contents: SecretBytes(settings.bytes), mode: st.st_mode & 0o7777))
    }

    /// Writes the prepared file beside the settings, durably, with the settings' own permissions.
    public static func stage(_ change: DesktopSettingsChange) throws {
        let writer = try AtomicFileWriter(destination: change.stagedPath, mode: 0o600)
        do {
            // Exactly the settings' mode, whatever the umask.
            guard fchmod(writer.descriptor, change.mode) == 0 else { throw FileSystemError("set permissions on", path: writer.tempPath) }
            try change.contents.withUnsafeBytes { try writer.write($0) }
            try writer.commit()
        } catch {
            writer.abort()
            throw error
        }
    }

    /// Puts the staged file in place, if the settings are still as they were when it was prepared
    /// (`identity`). Returns false, and leaves both files, when someone wrote the settings since.
    /// A staged file that is gone was already put in place: true.
    public static func install(stagedFor path: String, expecting identity: FileIdentity) throws -> Bool {
        let staged = stagedPath(for: path)
        guard FileIdentity.of(staged) != nil else { return true }
        guard FileIdentity.of(path) == identity else { return false }
        guard rename(staged, path) == 0 else { throw FileSystemError("replace", path: path) }
        try POSIXFile.fsyncDirectory(Path.parent(path))
        return true
    }

    /// Deletes a staged file (the change it belonged to was rolled back).
    public static func discardStaged(for path: String) throws {
        let staged = stagedPath(for: path)
        guard unlink(staged) == 0 || errno == ENOENT else { throw FileSystemError("delete", path: staged) }
    }

    /// The sentence for a change that was put in place.
    public static func doneOutcome(_ path: String, _ kind: DesktopSettingsChange.Kind) -> DesktopSettingsOutcome {
        switch kind {
        case .update:
            DesktopSettingsOutcome(path: path, action: .updated,
                message: "the desktop app's settings (\(path)) stored the old passphrase; they now store the new one")
        case .remove:
            DesktopSettingsOutcome(path: path, action: .removed,
                message: "the desktop app's settings (\(path)) stored the old passphrase; it was removed, as the app does when it no longer stores one")
        }
    }

    /// The sentence for a change whose staged file could not be renamed into place.
    public static func notInstalledOutcome(_ path: String, reason: String) -> DesktopSettingsOutcome {
        let staged = stagedPath(for: path)
        return DesktopSettingsOutcome(path: path, action: .changedMeanwhile,
            message: "the desktop app's settings (\(path)) could not be replaced (\(reason)); the settings sxkit prepared are in \(staged): move that file over \(path), or give the app the new passphrase when it asks",
            staged: staged)
    }

    /// The sentence for a change that could not be put in place because the settings changed.
    public static func changedMeanwhileOutcome(_ path: String, _ kind: DesktopSettingsChange.Kind) -> DesktopSettingsOutcome {
        let staged = stagedPath(for: path)
        let what = kind == .update ? "the new passphrase stored" : "the stored passphrase removed"
        return DesktopSettingsOutcome(path: path, action: .changedMeanwhile,
            message: "the desktop app's settings (\(path)) were written after the passphrase change began (was the app running?), so sxkit did not replace them; it left the settings it had prepared, with \(what), in \(staged): if \(path) still stores the old passphrase, move that file over it, else delete it and give the app the new passphrase when it asks",
            staged: staged)
    }
}

/// `DesktopSettings.planPassphraseChange`'s answer.
public enum DesktopSettingsPlan: Sendable {
    /// The settings stored the old passphrase: this change keeps them in step.
    case prepared(DesktopSettingsChange)
    /// Nothing to change, or left alone; the outcome says which.
    case outcome(DesktopSettingsOutcome)
}
