import Foundation
import Synchronization
import SXCore
import SXTransfer

/// Where a relay is, as a user or a description names it: an HTTP relay's URL, or a folder on a
/// mounted disk or share. Lives here, beside the HTTP client, because this is the one module that
/// sees both kinds of relay.
public enum RelayLocation: Sendable, Equatable {
    case http(url: String)
    /// An absolute path.
    case folder(path: String)

    /// `http://` and `https://` name an HTTP relay; anything else is a folder (made absolute).
    public init(_ text: String) {
        if text.hasPrefix("http://") || text.hasPrefix("https://") {
            self = .http(url: text)
        } else {
            self = .folder(path: Path.absolute(text))
        }
    }

    public var isHTTP: Bool {
        if case .http = self { return true }
        return false
    }

    /// The relay at this location. A folder must exist already: a transfer never creates the
    /// folder it was pointed at (a missing mount would fill the local disk instead).
    public func open() throws -> any ChunkRelay {
        switch self {
        case .http(let url):
            return try HTTPChunkRelay(url: url)
        case .folder(let path):
            guard Folders.isFolder(path) else {
                throw RelayLocationError.folderMissing(path: path)
            }
            return FolderRelay(root: path)
        }
    }
}

/// Why a relay location cannot be opened.
public enum RelayLocationError: SXError, Equatable {
    case folderMissing(path: String)

    public var description: String {
        switch self {
        case .folderMissing(let path): "relay folder '\(path)' does not exist; mount the disk or share, or create the folder"
        }
    }
}

/// Opens the relays a receive or cancel needs: each replica's relay as its description names it,
/// or one location given for every replica (the same disk is often mounted at another path on the
/// other machine). One relay per location for the whole run: an HTTP relay keeps its connection
/// pool across chunks.
public final class RelayFactory: Sendable {
    private let override: String?
    private let opened = Mutex<[String: any ChunkRelay]>([:])

    public init(override: String?) {
        self.override = override
    }

    /// The relay for a replica at `address`, opened once per location.
    public func relay(for address: RelayAddress) throws -> any ChunkRelay {
        let key: String
        switch (override, address) {
        case (let given?, _):
            key = given
        case (nil, .sxkit(let location)):
            key = location
        case (nil, .xftp(let server)):
            throw RelayError.protocolError(relay: server.hosts.first.map(\.description) ?? server.description,
                                           reason: "it is an XFTP server; this version of sxkit reads and writes descriptions for SimpleX's XFTP servers but does not connect to them yet")
        }
        if let relay = opened.withLock({ $0[key] }) { return relay }
        // Opened outside the lock (an HTTP client starts threads); a race keeps the first one.
        let relay = try RelayLocation(key).open()
        return opened.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = relay
            return relay
        }
    }

    /// `relay(for:)` as the closure the transfer engine takes.
    public var resolver: @Sendable (RelayAddress) throws -> any ChunkRelay { { [self] in try self.relay(for: $0) } }
}
