import Foundation
import Synchronization
import SXCore
import SXTransfer
import SXXFTP

/// SimpleX's preset XFTP servers, the default for sending (simplexmq
/// `src/Simplex/FileTransfer/Client/Presets.hs` `defaultXFTPServers`).
public enum XFTPPresets {
    public static let servers: [String] = [
        "xftp://da1aH3nOT-9G8lV7bWamhxpDYdJ1xmW7j3JpGaDR5Ug=@xftp1.simplex.im,blisztokwh6alt5oem45f2eksm2xdowxszmhjesntcyolmhutoon7sid.onion",
        "xftp://5vog2Imy1ExJB_7zDZrkV1KDWi96jYFyy9CL6fndBVw=@xftp2.simplex.im,jk6jybnel5hin2am5omd7g3hyvb4tfkyl7ea4vx5ldi7gpvz5ogqtcqd.onion",
        "xftp://PYa32DdYNFWi0uZZOprWQoQpIk5qyjRJ3EF7bVpbsn8=@xftp3.simplex.im,pqhchr4bpkzef5wra4hnmzvppn5j5mjrpzkh5ixx6mhylnxxd6lmwnad.onion",
        "xftp://k_GgQl40UZVV0Y4BX9ZTyMVqX5ZewcLW0waQIl7AYDE=@xftp4.simplex.im,q2lrjgiyo2efyweksavwxh3dlsrxetaxjztde2x5nateugrtrwzvmdid.onion",
        "xftp://-bIo6o8wuVc4wpZkZD3tH-rCeYaeER_0lz1ffQcSJDs=@xftp5.simplex.im,2kikdbdhlrluburwt6q6rnoxvezcm2ifx2hj463jlunkeftlzm7hf3qd.onion",
        "xftp://6nSvtY9pJn6PXWTAIMNl95E1Kk1vD7FM2TeOA64CFLg=@xftp6.simplex.im,tg3fmu6houq7vfqlsipm2qqzhtpgxesnuydqozx3khojxydhs53sbbyd.onion",
    ]
}

/// Where a relay is, as a user or a description names it: an XFTP server, or a folder on a mounted
/// disk or share (sxkit's offline relay).
public enum RelayLocation: Sendable, Equatable {
    case xftp(XFTPServerAddress)
    /// An absolute path.
    case folder(path: String)

    /// `xftp://…` is an XFTP server; anything else a folder (made absolute). sxkit's former HTTP relay
    /// URLs are refused by name.
    public static func parse(_ text: String) throws -> RelayLocation {
        if text.hasPrefix("http://") || text.hasPrefix("https://") { throw RelayLocationError.httpRelayRemoved(url: text) }
        if text.hasPrefix(XFTPServerAddress.scheme + "://") {
            switch XFTPServerAddress.parse(text) {
            case .success(let server): return .xftp(server)
            case .failure(let problem): throw RelayLocationError.badServer(problem)
            }
        }
        return .folder(path: Path.absolute(text))
    }

    /// The relay at this location. A folder must exist already: a transfer never creates the
    /// folder it was pointed at (a missing mount would fill the local disk instead).
    public func open(proxy: SOCKSProxy? = nil) throws -> any ChunkRelay {
        switch self {
        case .xftp(let server):
            return XFTPChunkRelay(server: server, proxy: proxy)
        case .folder(let path):
            guard Folders.isFolder(path) else { throw RelayLocationError.folderMissing(path: path) }
            return FolderRelay(root: path)
        }
    }

    public var isFolder: Bool {
        if case .folder = self { return true }
        return false
    }
}

/// Why a relay location cannot be used.
public enum RelayLocationError: SXError, Equatable {
    case folderMissing(path: String)
    case httpRelayRemoved(url: String)
    case badServer(AddressProblem)
    case noServers(source: String)
    case passwordOnCommandLine
    case passwordFileOpen(path: String)

    public var description: String {
        switch self {
        case .folderMissing(let path): "relay folder '\(path)' does not exist; mount the disk or share, or create the folder"
        case .httpRelayRemoved(let url):
            "'\(url)' is an HTTP relay, which sxkit no longer has: transfers go through XFTP servers (xftp://…), SimpleX's or your own, or through a folder"
        case .badServer(let problem): problem.description
        case .noServers(let source): "\(source) names no XFTP server"
        case .passwordOnCommandLine:
            "a server password is never taken on the command line (every user of this machine can read it there); put the address in SXKIT_XFTP_SERVERS or the servers file (mode 0600)"
        case .passwordFileOpen(let path): "'\(path)' holds a server password and can be read by others; make it private (chmod 600)"
        }
    }
}

/// Which relays a send uses: the servers given, else a folder given, else the servers listed in
/// `SXKIT_XFTP_SERVERS` (separated by spaces or newlines), else those in the config
/// file (one per line, `#` comments), else SimpleX's presets.
public enum SendRelays {
    public static func choose(servers: [String], folder: String?, environment: String?, configFile: String?,
                              proxy: SOCKSProxy? = nil) throws -> [any ChunkRelay] {
        if !servers.isEmpty {
            return try servers.map { text in
                let server = try parseServer(text)
                // A password on the command line is readable by every user of the machine.
                guard server.basicAuth == nil else { throw RelayLocationError.passwordOnCommandLine }
                return XFTPChunkRelay(server: server, proxy: proxy)
            }
        }
        if let folder { return [try RelayLocation.parse(folder).open()] }
        if let environment, !environment.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            let listed = environment.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "\t" }).map(String.init)
            return try listed.map { try XFTPChunkRelay(server: parseServer($0), proxy: proxy) }
        }
        if let configFile, POSIXFile.exists(configFile) {
            let mode = try POSIXFile.status(configFile).st_mode
            let text = String(decoding: try FileBytes.read(configFile, limit: 1 << 20), as: UTF8.self)
            let listed = text.split(separator: "\n").map { $0.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? "" }
                .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !listed.isEmpty else { throw RelayLocationError.noServers(source: "'\(configFile)'") }
            let servers = try listed.map(parseServer)
            if servers.contains(where: { $0.basicAuth != nil }), mode & 0o077 != 0 { throw RelayLocationError.passwordFileOpen(path: configFile) }
            return servers.map { XFTPChunkRelay(server: $0, proxy: proxy) }
        }
        return try XFTPPresets.servers.map { try XFTPChunkRelay(server: parseServer($0), proxy: proxy) }
    }

    static func parseServer(_ text: String) throws -> XFTPServerAddress {
        guard case .xftp(let server) = try RelayLocation.parse(text) else {
            throw RelayLocationError.badServer(.notXFTP(text))
        }
        return server
    }
}

/// Opens the relays a receive or cancel needs: each replica's relay as its description names it,
/// or, for folder relays, one folder given for all (the same disk is often mounted at another path
/// on the other machine). One relay per location for the whole run: an XFTP relay keeps its
/// connection across chunks.
public final class RelayFactory: Sendable {
    private let folderOverride: String?
    private let proxy: SOCKSProxy?
    private let opened = Mutex<[String: any ChunkRelay]>([:])

    public init(override: String?, proxy: SOCKSProxy? = nil) {
        self.folderOverride = override
        self.proxy = proxy
    }

    public func relay(for address: RelayAddress) throws -> any ChunkRelay {
        let location: RelayLocation
        switch address {
        case .xftp(let server): location = .xftp(server)
        case .sxkit(let text): location = try RelayLocation.parse(folderOverride ?? text)
        }
        let key: String
        switch location {
        case .xftp(let server): key = server.description
        case .folder(let path): key = path
        }
        if let relay = opened.withLock({ $0[key] }) { return relay }
        let relay = try location.open(proxy: proxy)
        return opened.withLock { cache in
            if let existing = cache[key] { return existing }
            cache[key] = relay
            return relay
        }
    }

    /// `relay(for:)` as the closure the transfer engine takes.
    public var resolver: @Sendable (RelayAddress) throws -> any ChunkRelay { { [self] in try self.relay(for: $0) } }
}
