import SXCore
import SXDatabase

/// The human report of `db inspect`: aligned label/value lines per database.
enum InspectionText {
    static func render(_ report: DataDirectoryInspection, verbose: Bool) -> String {
        var out = ""
        if let root = report.root {
            out += "data directory  \(root) (\(report.layout?.rawValue ?? "?") layout)\n"
        }
        for db in report.databases {
            out += "\n" + render(db, verbose: verbose)
        }
        if !report.findings.isEmpty {
            out += "\nfindings\n" + report.findings.map { "  - \(PassphraseText.withHints($0))\n" }.joined()
        }
        return out
    }

    /// Only the findings, one a line, each with the database it is about (`--quiet`).
    static func findings(_ report: DataDirectoryInspection) -> String {
        var out = ""
        for db in report.databases {
            for finding in db.findings { out += "\(db.database.label): \(PassphraseText.withHints(finding))\n" }
        }
        return out + report.findings.map { "\($0)\n" }.joined()
    }

    static func render(_ r: DatabaseInspection, verbose: Bool) -> String {
        var lines: [(String, String)] = []
        func add(_ label: String, _ value: String) { lines.append((label, value)) }
        add("path", r.database.path)
        add("classification", r.classification.phrase)
        if let size = r.size { add("size", ByteCount.format(size) + " (\(size) bytes)") }
        if let wal = r.wal {
            var text = "\(ByteCount.format(wal.size)), \(wal.committedFrames) committed frame(s), \(wal.uncheckpointedFrames) un-checkpointed"
            if wal.ignoredFrames > 0 { text += ", \(wal.ignoredFrames) ignored" }
            add("-wal", text)
        }
        if let shm = r.shm { add("-shm", ByteCount.format(shm.size)) }
        if let journal = r.journal { add("-journal", ByteCount.format(journal.size)) }
        if let d = r.details {
            add("pages", "\(d.pageCount) × \(d.pageSize) bytes, \(d.freelistPages) free")
            add("encoding", "\(d.textEncoding), user_version \(d.userVersion)")
            add("journal mode", "\(d.journalMode), auto_vacuum \(d.autoVacuum)")
            if let c = d.cipher {
                var parts: [String] = []
                if let p = c.cipherPageSize { parts.append("page \(p)") }
                if let k = c.kdfAlgorithm, let i = c.kdfIterations { parts.append("\(k) × \(i)") }
                if let h = c.hmacAlgorithm { parts.append(c.useHMAC == false ? "no HMAC" : h) }
                add("cipher", parts.joined(separator: ", "))
            }
            if let m = d.migrations {
                add("migrations", m.count == 0 ? "none" : "\(m.count): \(m.first ?? "?") … \(m.last ?? "?") (last applied \(m.lastTimestamp ?? "?"))")
            }
            add("tables", "\(d.tables.count), indexes \(d.indexCount)")
            let width = d.tables.map(\.name.count).max() ?? 0
            for t in d.tables {
                lines.append(("", t.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + (t.rows.map(String.init) ?? "unreadable").leftPadded(to: 12)))
            }
        }
        if let c = r.chat {
            let parts = [("users", c.users), ("contacts", c.contacts), ("groups", c.groups), ("chat items", c.chatItems), ("files", c.files)]
                .compactMap { name, n in n.map { "\(name) \($0)" } }
            add("chat", parts.joined(separator: ", "))
            if let f = c.filesCheck {
                add("files folder", f.filesFolder + (f.folderExists ? "" : " (missing)"))
                add("", "referenced and present    \(f.referencedPresent)")
                add("", "referenced but missing    \(f.referencedMissing)" + examples(f.missingExamples, verbose))
                add("", "encrypted (key in DB)     \(f.encrypted)")
                add("", "plaintext                 \(f.plaintext)")
                add("", "present, not referenced   \(f.unreferenced) (\(ByteCount.format(f.unreferencedBytes)))" + examples(f.unreferencedExamples, verbose))
                if f.unsafePaths > 0 { add("", "unsafe paths (not followed) \(f.unsafePaths)" + examples(f.unsafePathExamples, verbose)) }
            }
        }
        if let i = r.integrity {
            add("integrity_check", i.integrityCheck == ["ok"] ? "ok" : "\(i.integrityCheck.count) problem(s)")
            if let c = i.cipherIntegrityCheck { add("cipher_integrity", c.isEmpty ? "ok (every page's HMAC verifies)" : "\(c.count) bad page(s)") }
        }
        let width = lines.map(\.0.count).max() ?? 0
        var out = "\(r.database.label)\n"
        for (label, value) in lines {
            out += "  " + label.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + value + "\n"
        }
        for finding in r.findings { out += "  ! \(PassphraseText.withHints(finding))\n" }
        return out
    }

    private static func examples(_ names: [String], _ verbose: Bool) -> String {
        guard verbose, !names.isEmpty else { return "" }
        return ": " + names.joined(separator: ", ")
    }
}
