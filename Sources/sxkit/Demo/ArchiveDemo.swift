import Foundation
import SXArchive
import SXCore
import SXDatabase

/// The archive part of `sxkit demo`: export the sample → verify → import into a second data
/// directory → inspect both, through the same library calls the `archive` commands make.
struct ArchiveDemo {
    let steps: DemoSteps
    let source: DataDirectory
    let passphrase: SecretBytes

    func run() throws {
        steps.step("9. Export a chat archive (sxkit archive export)")
        let archive = Path.join(steps.root, "simplex-chat-archive.zip")
        let export = try ChatArchiveExporter(dataDirectory: source, passphrase: passphrase).export(to: archive)
        steps.say("\(export.entries) entries, \(ByteCount.format(export.bytes)) → \(ByteCount.format(export.archiveBytes)) "
            + "(\(export.storedEntries) stored because they cannot shrink, \(export.deflatedEntries) deflated) in \(String(format: "%.2f", export.seconds)) s")
        for error in export.archiveErrors { steps.say("  ! \(error.sentence)") }

        steps.step("10. Verify it without writing anything (sxkit archive verify)")
        let verify = try ArchiveVerify.run(archive, passphrase: passphrase)
        let databases = verify.entries.compactMap { entry in entry.database.map { "\(entry.name): \($0.keyTest?.rawValue ?? $0.kind), quick_check \($0.quickCheck ?? "–")" } }
        steps.say("\(verify.entries.filter(\.ok).count) of \(verify.entries.count) entries intact (every CRC read)")
        for line in databases { steps.say("  " + line) }
        guard verify.ok else { throw DemoFailure("the archive sxkit just wrote does not verify") }

        steps.step("11. Import it into a second data directory (sxkit archive import)")
        let second = DataDirectory(root: Path.join(steps.root, "imported"), layout: .desktop)
        try Folders.create(second.root)
        let imported = try ArchiveImport.run(archive: archive, into: second, passphrase: passphrase)
        steps.say("\(imported.entries) entries, \(ByteCount.format(imported.bytes)) into \(second.root) in \(String(format: "%.2f", imported.seconds)) s")
        for error in imported.archiveErrors { steps.say("  ! \(error.sentence)") }

        steps.step("12. Inspect both: the same rows and the same files")
        let before = DatabaseInspector().inspect(DatabaseSet(dataDirectory: source), passphrase: passphrase)
        let after = DatabaseInspector().inspect(DatabaseSet(dataDirectory: second), passphrase: passphrase)
        let sameRows = zip(before.databases, after.databases).allSatisfy { $0.details?.tables == $1.details?.tables }
        let sameFiles = before.databases[0].chat?.filesCheck.map(\.referencedPresent) == after.databases[0].chat?.filesCheck.map(\.referencedPresent)
        steps.say("every table has the same row count: \(sameRows ? "yes" : "NO"); the same referenced files are present: \(sameFiles ? "yes" : "NO")")
        guard sameRows, sameFiles else { throw DemoFailure("the imported data directory differs from the exported one") }
    }
}
