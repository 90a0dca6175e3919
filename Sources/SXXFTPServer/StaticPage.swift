#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// The files of a web root, found as simplexmq's server finds them (`src/Simplex/Messaging/Server/Web.hs`
/// 179-236, `resolveStaticFile`, `rewriteWellKnown`, `staticMimeType`): the request path below the
/// root, `index.html` for the root and for a folder, `/.well-known/` read from `well-known/`, and
/// nothing that resolves (through `..` or a link) outside the root.
struct StaticPage: Sendable {
    /// The root, resolved (no links, no `..`).
    let root: String

    /// Nil when `folder` is not a folder that can be resolved.
    init?(folder: String) {
        guard let resolved = Self.resolved(folder), let st = POSIXFile.linkStatus(resolved), (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
        root = resolved
    }

    /// The file a request path names and its content type, or nil (answered 404). The query and
    /// fragment are not part of the file's name.
    func file(forPath requestPath: String) -> (path: String, contentType: String)? {
        var path = Substring(requestPath)
        if let end = path.firstIndex(where: { $0 == "?" || $0 == "#" }) { path = path[..<end] }
        guard !path.contains("\0") else { return nil }
        if path.hasPrefix("/.well-known/") {
            path = "/well-known/" + path.dropFirst("/.well-known/".count)
        } else if path == "/.well-known" {
            path = "/well-known"
        }
        let relative = path.drop { $0 == "/" }
        let requested = relative.isEmpty ? Path.join(root, "index.html") : Path.join(root, String(relative))
        return resolve(requested) ?? resolve(Path.join(requested, "index.html"))
    }

    private func resolve(_ candidate: String) -> (path: String, contentType: String)? {
        guard let resolved = Self.resolved(candidate), resolved.hasPrefix(root + "/") || resolved == root,
              let st = try? POSIXFile.status(resolved), (st.st_mode & S_IFMT) == S_IFREG else { return nil }
        return (resolved, Self.contentType(of: resolved))
    }

    private static func resolved(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// simplexmq's `staticMimeType`, by the name's ending.
    static func contentType(of path: String) -> String {
        let types: [(String, String)] = [
            (".html", "text/html"), (".css", "text/css"), (".js", "application/javascript"), (".svg", "image/svg+xml"),
            (".png", "image/png"), (".ico", "image/x-icon"), (".json", "application/json"),
            ("apple-app-site-association", "application/json"), (".woff", "font/woff"), (".woff2", "font/woff2"), (".ttf", "font/ttf"),
        ]
        return types.first { path.hasSuffix($0.0) }?.1 ?? "application/octet-stream"
    }
}
