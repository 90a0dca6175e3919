import SXCore
import SXTransfer

/// The link the SimpleX apps' "Migrate from another device" takes, by QR code or pasted:
/// `simplex:/file#/?desc=<recipient description>&data=<MigrationFileLinkData JSON>` (simplexmq
/// `Description.hs` 243-266 `FileDescriptionURI`; simplex-chat's Kotlin `MigrateFromDevice.kt`
/// `MigrationFileLinkData(networkConfig)` and its `addToLink`, read by the core's `/_download info`
/// into `fileMeta`). A description of more than one chunk goes through a redirect, as the core
/// sends the apps' migrations (`Subscriber.hs`, `SFDONE`).
public enum MigrationLink {
    /// `{"networkConfig":{…}}`: how the receiving app should reach the servers. The apps send their
    /// own host mode; sxkit connects to public hosts, so that is what it says.
    public static let defaultData = #"{"networkConfig":{"hostMode":"public","requiredHostMode":false}}"#

    public static func make(_ description: FileDescription, data: String = defaultData) -> String {
        FileDescriptionLink.simplexLink(description, data: data)
    }

    /// Whether the description fits a link as it is (one chunk), or needs a redirect: the chat's rule,
    /// `FileDescriptionLink.needsRedirect`.
    public static func needsRedirect(_ description: FileDescription) -> Bool { FileDescriptionLink.needsRedirect(description) }
}
