import Foundation
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
    /// own network settings; sxkit without a proxy connects to public hosts, so that is what it says.
    public static let defaultData = #"{"networkConfig":{"hostMode":"public","requiredHostMode":false}}"#

    /// The link's data for a send made through the SOCKS proxy at `proxy` (`HOST:PORT`, never its
    /// credentials): the receiving app then offers to reach the servers through Tor too (its
    /// `hasOnionConfigured`, below). Host mode `onion`, as the apps name using a server's .onion
    /// address when it has one, which is what sxkit does through a proxy.
    public static func data(socksProxy proxy: String?) -> String {
        guard let proxy else { return defaultData }
        let encoded: Data = (try? JSONEncoder().encode(proxy)) ?? Data("\"\"".utf8)
        let quoted = String(decoding: encoded, as: UTF8.self)
        let head = #"{"networkConfig":{"socksProxy":"#
        let tail = #","hostMode":"onion","requiredHostMode":false}}"#
        return head + quoted + tail
    }

    /// The network settings a link's data carries (simplex-chat's Kotlin `MigrateFromDevice.kt` and
    /// Swift `SimpleXChat/APITypes.swift`, `MigrationFileLinkData.NetworkConfig`; newer iOS apps
    /// give the proxy as `networkProxy` instead of `socksProxy`). Other fields are ignored.
    public struct NetworkConfig: Decodable, Equatable, Sendable {
        public struct Proxy: Decodable, Equatable, Sendable {
            public var host: String?
            public var port: Int?
        }

        public var socksProxy: String?
        public var networkProxy: Proxy?
        public var hostMode: String?
        public var requiredHostMode: Bool?

        /// Whether the sender reaches its servers through Tor: the apps' `hasOnionConfigured`
        /// (`socksProxy != null || hostMode == HostMode.Onion`, Kotlin `MigrateFromDevice.kt`), on
        /// which the Android app's "Migrate from another device" asks to use Tor before downloading
        /// (`MigrateToDevice.kt` `checkUserLink`, `MigrationToState.Onion`); the iOS app makes the
        /// same test of the imported settings. `networkProxy` alone does not count, as it does not
        /// for the apps.
        public var asksForTor: Bool { socksProxy != nil || hostMode == "onion" }

        /// The proxy it names, as `HOST:PORT` (credentials, if any, left out).
        public var proxyAddress: String? {
            if let socksProxy { return String(socksProxy.split(separator: "@", omittingEmptySubsequences: false).last ?? "") }
            guard let networkProxy else { return nil }
            return "\(networkProxy.host ?? "localhost"):\(networkProxy.port.map(String.init) ?? "9050")"
        }
    }

    /// The network settings in a link's `data=` JSON (`{"networkConfig":{…}}`); nil when there are none
    /// or the JSON is not that.
    public static func networkConfig(inData data: String) -> NetworkConfig? {
        struct LinkData: Decodable { var networkConfig: NetworkConfig? }
        return (try? JSONDecoder().decode(LinkData.self, from: Data(data.utf8)))?.networkConfig
    }

    public static func make(_ description: FileDescription, data: String = defaultData) -> String {
        FileDescriptionLink.simplexLink(description, data: data)
    }

    /// Whether the description fits a link as it is (one chunk), or needs a redirect: the chat's rule,
    /// `FileDescriptionLink.needsRedirect`.
    public static func needsRedirect(_ description: FileDescription) -> Bool { FileDescriptionLink.needsRedirect(description) }
}
