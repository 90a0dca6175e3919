#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// The upload password (XFTP's basic auth for FNEW, simplexmq `Server.hs` 470-474), read from a
/// file only its owner can read: a secret never on the command line. A final newline is dropped.
/// The characters are those a server address can carry (`xftp://KEYHASH:PASSWORD@HOST`).
public enum ServerPassword {
    public static func read(_ path: String) throws -> [UInt8] {
        let info = try POSIXFile.status(path)
        guard info.st_mode & 0o077 == 0 else { throw XFTPServerError.passwordFileOpen(path: path) }
        var bytes = try FileBytes.read(path, limit: 1024)
        while let last = bytes.last, last == 0x0A || last == 0x0D { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F && !"@:/".utf8.contains($0) }) else {
            throw XFTPServerError.badPassword(path: path)
        }
        return bytes
    }
}

/// Why the XFTP server could not start.
public enum XFTPServerError: SXError, Equatable {
    case cannotListen(address: String, cause: String)
    case passwordFileOpen(path: String)
    case badPassword(path: String)
    /// The folder of the web page does not exist or is not a folder.
    case webRootMissing(path: String)
    /// The web certificate's key can be read by others.
    case webKeyOpen(path: String)

    public var description: String {
        switch self {
        case .cannotListen(let address, let cause): "cannot listen on \(address): \(cause)"
        case .passwordFileOpen(let path): "the password file '\(path)' can be read by others; make it private (chmod 600)"
        case .badPassword(let path):
            "the password in '\(path)' must be one line of printable ASCII without spaces, '@', ':' or '/'"
        case .webRootMissing(let path): "the web page folder '\(path)' does not exist or is not a folder"
        case .webKeyOpen(let path): "the web certificate's key '\(path)' can be read by others; make it private (chmod 600)"
        }
    }

    public var remedy: Remedy? {
        if case .cannotListen = self { return .chooseListenAddress }
        return nil
    }
}
