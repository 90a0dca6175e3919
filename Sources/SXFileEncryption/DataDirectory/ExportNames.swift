import Foundation

/// Names for decrypted copies: `files.file_name` made safe for one folder, with collisions
/// resolved deterministically (in `file_id` order) as `name (2).ext`, `name (3).ext`…
struct ExportNames {
    private(set) var taken: Set<String>

    init(taken: Set<String>) { self.taken = taken }

    /// A name with no `/`, no `..`, no NUL or control characters, no leading dot (so never `.`,
    /// `..` or hidden), at most 200 bytes: the path-like parts of a hostile name are joined with
    /// `_` (`../../evil/.x` → `evil_x`); `file-<id>` when nothing is left.
    static func sanitise(_ name: String?, fileId: Int64) -> String {
        let printable = String(String.UnicodeScalarView((name ?? "").unicodeScalars.map { s in
            s.value < 0x20 || s.value == 0x7F ? "_" : s
        }))
        let parts = printable.split(whereSeparator: { $0 == "/" || $0 == "\\" }).compactMap { part -> Substring? in
            let trimmed = part.drop { $0 == "." }
            return trimmed.isEmpty ? nil : trimmed
        }
        var cleaned = parts.joined(separator: "_")
        while cleaned.contains("..") { cleaned = cleaned.replacingOccurrences(of: "..", with: ".") }
        while cleaned.utf8.count > 200 { cleaned.removeFirst() }
        while cleaned.hasPrefix(".") { cleaned.removeFirst() }
        return cleaned.isEmpty ? "file-\(fileId)" : cleaned
    }

    mutating func claim(_ name: String?, fileId: Int64) -> String {
        let base = Self.sanitise(name, fileId: fileId)
        if taken.insert(base).inserted { return base }
        let (stem, ext) = Self.split(base)
        var n = 2
        while true {
            let candidate = "\(stem) (\(n))\(ext)"
            if taken.insert(candidate).inserted { return candidate }
            n += 1
        }
    }

    /// `report.final.pdf` → (`report.final`, `.pdf`); no extension → (name, "").
    static func split(_ name: String) -> (String, String) {
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return (name, "") }
        return (String(name[..<dot]), String(name[dot...]))
    }
}
