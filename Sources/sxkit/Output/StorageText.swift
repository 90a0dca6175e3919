import SXStorage
import SXCore

/// The human table of `sxkit storage`.
enum StorageText {
    static func render(_ r: StorageReport, verbose: Bool) -> String {
        var out = "Data directory  \(r.root) (\(r.layout.rawValue))\n"
        var table = Table()
        table.section("Databases", "files", "size", "")
        for db in r.databases {
            guard db.exists else {
                table.row(Path.basename(db.path), "absent", "", "")
                continue
            }
            // The -wal and -shm travel with their database: one row, the parts in the note.
            let parts = [("-wal", db.wal), ("-shm", db.shm)].compactMap { name, size in size.map { "\(name) \(ByteCount.format($0))" } }
            let note = parts.isEmpty ? "no -wal/-shm" : "database \(ByteCount.format(db.bytes)), " + parts.joined(separator: ", ")
            table.row(Path.basename(db.path), "\(1 + parts.count)", ByteCount.format(db.total), note)
        }
        if let f = r.files {
            table.section("Files folder  \(f.folder)", "files", "size", "")
            if !f.exists {
                table.row("absent", "", "", "")
            } else {
                func usage(_ label: String, _ u: Usage?, note: String = "") {
                    guard let u else { return table.row(label, "?", "", "") }
                    table.row(label, "\(u.count)", ByteCount.format(u.bytes), note)
                }
                usage("referenced, encrypted", f.referencedEncrypted)
                usage("referenced, plaintext", f.referencedPlaintext)
                if let missing = f.referencedMissing {
                    table.row("referenced but missing", "\(missing.count)", "", missing.count > 0 ? "(\(ByteCount.format(missing.bytes)) in the DB)" : "")
                } else {
                    table.row("referenced but missing", "?", "", "")
                }
                usage("orphans (not referenced)", f.orphans)
                if f.interruptedWrites.count > 0 { usage("interrupted writes (.sxkit-tmp-*)", f.interruptedWrites) }
                if f.referencedSymlinks + f.otherSymlinks > 0 {
                    table.row("symlinks (not followed)", "\(f.referencedSymlinks + f.otherSymlinks)", "", "")
                }
                if f.unsafePaths > 0 { table.row("DB paths outside the folder", "\(f.unsafePaths)", "", "never followed") }
                usage("total", f.total)
            }
        }
        table.section("Temp folders", "files", "size", "")
        for t in r.tempFolders { folder(&table, t.path, t) }
        if let assets = r.assets {
            table.section("Assets", "files", "size", "")
            folder(&table, assets.path, assets)
            if let w = r.wallpapers { folder(&table, "  of which wallpapers", w) }
        }
        table.section("Leftovers", "files", "size", "")
        if r.leftovers.isEmpty { table.row("none", "", "", "") }
        for l in r.leftovers {
            table.row(Path.basename(l.path), "\(l.count)", ByteCount.format(l.bytes), l.neededForRecovery ? "needed by a recovery" : l.kind)
        }
        table.section("Clean-up would reclaim", "files", "size", "")
        for c in r.reclaimable {
            if let blocked = c.blockedBy {
                table.row("sxkit clean --\(c.target)", "-", "", PassphraseText.withHints(blocked))
            } else {
                table.row("sxkit clean --\(c.target)", "\(c.usage.count)", ByteCount.format(c.usage.bytes), "")
            }
        }
        table.section("Total", "files", "size", "")
        table.row("everything above", "\(r.total.count)", ByteCount.format(r.total.bytes), "")
        out += table.text()
        if let f = r.files, verbose {
            if !f.missingExamples.isEmpty { out += "\nMissing (first \(f.missingExamples.count)): " + f.missingExamples.joined(separator: ", ") + "\n" }
            if !f.symlinkExamples.isEmpty { out += "Symlinks (first \(f.symlinkExamples.count)): " + f.symlinkExamples.joined(separator: ", ") + "\n" }
            if !f.unsafePathExamples.isEmpty { out += "Unsafe DB paths: " + f.unsafePathExamples.joined(separator: ", ") + "\n" }
        }
        if !r.findings.isEmpty {
            out += "\nFindings\n" + r.findings.map { "  - \($0)\n" }.joined()
        }
        for interruption in r.interruptions {
            out += "  - settle the interrupted \(interruption.operation.noun) with `\(ErrorText.recoveryCommand(interruption.operation))`\n"
        }
        return out
    }

    private static func folder(_ table: inout Table, _ label: String, _ f: StorageReport.FolderUsage) {
        guard f.exists else { return table.row(label, "absent", "", "") }
        table.row(label, "\(f.files.count)", ByteCount.format(f.files.bytes), f.symlinks > 0 ? "\(f.symlinks) symlink(s), not followed" : "")
    }
}

/// A table of sections whose numeric columns line up across the whole report.
struct Table {
    private enum Line { case section(String, [String]), row(String, [String], String) }
    private var lines: [Line] = []

    mutating func section(_ title: String, _ c1: String, _ c2: String, _ c3: String) { lines.append(.section(title, [c1, c2, c3])) }
    /// A row: label, two right-aligned numbers, then a free note.
    mutating func row(_ label: String, _ a: String, _ b: String, _ note: String) { lines.append(.row(label, [a, b], note)) }

    func text() -> String {
        var labelWidth = 0, a = 5, b = 4
        for case let .row(label, values, _) in lines {
            labelWidth = max(labelWidth, label.count + 2)
            a = max(a, values[0].count)
            b = max(b, values[1].count)
        }
        var out = ""
        for line in lines {
            switch line {
            case .section(let title, let headers):
                // A title wider than the labels (a long path) gets the column headers on a line of their own.
                let lead = title.count > labelWidth ? title + "\n" + String(repeating: " ", count: labelWidth)
                    : title + String(repeating: " ", count: labelWidth - title.count)
                out += "\n" + trimmed(lead + "  " + headers[0].leftPadded(to: a) + "  " + headers[1].leftPadded(to: b)) + "\n"
            case .row(let label, let values, let note):
                let cell = "  " + label
                var text = cell + String(repeating: " ", count: max(0, labelWidth - cell.count)) + "  " + values[0].leftPadded(to: a)
                    + "  " + values[1].leftPadded(to: b)
                if !note.isEmpty { text += "  " + note }
                out += trimmed(text) + "\n"
            }
        }
        return out
    }

    private func trimmed(_ s: String) -> String {
        var s = Substring(s)
        while s.last == " " { s = s.dropLast() }
        return String(s)
    }
}
