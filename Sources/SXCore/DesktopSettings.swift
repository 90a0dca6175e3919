import Foundation

/// The SimpleX desktop app's `settings.properties` (a Java properties file). When the app
/// "stores the passphrase" it keeps it under `EncryptedDBPassphrase` as plain base64 — not
/// encrypted on desktop — which is worth both using (on request) and reporting as a finding.
public enum DesktopSettings {
    public static let passphraseKey = "EncryptedDBPassphrase"

    public static func defaultPath(environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let config = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        return config + "/simplex/settings.properties"
    }

    /// The stored passphrase, or nil when the file or the key is absent.
    public static func storedPassphrase(at path: String) throws -> SecretBytes? {
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let text = String(decoding: try FileBytes.read(path, limit: 1 << 20), as: UTF8.self)
        guard let encoded = properties(text)[passphraseKey], !encoded.isEmpty else { return nil }
        guard var decoded = Data(base64Encoded: encoded) else {
            throw PassphraseError("\(passphraseKey) in \(path) is not valid base64")
        }
        defer { decoded.withUnsafeMutableBytes { Wipe.bytes($0) } }
        return SecretBytes(decoded)
    }

    /// Parses the subset of the Java properties format that `Properties.store` writes: `key=value`
    /// lines, `#`/`!` comments, and backslash escapes (`store` writes `=` in values as `\=`).
    public static func properties(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        var logical = ""
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        for raw in lines {
            var line = Substring(raw)
            // Leading white space is dropped on every line, continuation lines included (as Java does).
            line = line.drop(while: { $0 == " " || $0 == "\t" })
            if logical.isEmpty, line.first == "#" || line.first == "!" || line.isEmpty { continue }
            // A line ending in an odd number of backslashes continues on the next line.
            let trailing = line.reversed().prefix(while: { $0 == "\\" }).count
            if trailing % 2 == 1 {
                logical += line.dropLast()
                continue
            }
            logical += line
            if let (k, v) = splitProperty(logical) { result[k] = v }
            logical = ""
        }
        return result
    }

    private static func splitProperty(_ line: String) -> (String, String)? {
        var key = ""
        var index = line.startIndex
        var escaped = false
        while index < line.endIndex {
            let c = line[index]
            if escaped { key.append(unescape(c)); escaped = false }
            else if c == "\\" { escaped = true }
            else if c == "=" || c == ":" || c == " " || c == "\t" { break }
            else { key.append(c) }
            index = line.index(after: index)
        }
        var rest = line[index...].drop(while: { $0 == " " || $0 == "\t" })
        if let first = rest.first, first == "=" || first == ":" { rest = rest.dropFirst() }
        rest = rest.drop(while: { $0 == " " || $0 == "\t" })
        var value = ""
        escaped = false
        for c in rest {
            if escaped { value.append(unescape(c)); escaped = false }
            else if c == "\\" { escaped = true }
            else { value.append(c) }
        }
        return key.isEmpty ? nil : (key, value)
    }

    private static func unescape(_ c: Character) -> Character {
        switch c {
        case "t": return "\t"
        case "n": return "\n"
        case "r": return "\r"
        case "f": return "\u{0C}"
        default: return c
        }
    }
}
