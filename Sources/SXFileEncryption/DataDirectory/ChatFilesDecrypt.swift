import Foundation
import SXCore
import SXCrypto
import SXDatabase

extension ChatFilesWork {
    /// Decrypts every CryptoFile of the files folder in place and clears its key in the chat DB.
    public func decryptInPlace(passphrase: SecretBytes) throws -> ChatFilesReport {
        let folder = try filesFolder()
        let db = try ChatDatabaseWriter(path: directory.chatDatabase, passphrase: passphrase)
        var report = ChatFilesReport(operation: "decrypt", filesFolder: folder)
        (report.recovered, report.recoveryNotes) = try ChatFilesRecovery(journal: journal, folder: folder).settle(db)
        let pending = try ChatFilesTable.pendingTotals(in: db.connection, encrypted: true)
        progress?.setTotals(items: pending.rows, bytes: pending.bytes)
        let pipeline = StagedAhead(self, operation: .decrypt, crashPrefix: "files-decrypt", transform: { item, writer, progress in
            try CryptoFile.decrypt(file: item.source, to: writer, args: item.args, progress: progress).transformed
        }, finish: { group, staged in
            let results = publish(staged, group, crashPrefix: "files-decrypt")
            var cleared: [ChatDatabaseWriter.KeyChange] = []
            for (item, r) in zip(group, results) where r.status == .done {
                cleared += item.entry.fileIds.map { .init(fileId: $0, args: nil, expected: item.args) }
            }
            // On failure the journal stays: the next run clears the keys of the files already plaintext.
            try db.apply(cleared)
            CrashPoint.reach("files-decrypt.db-committed")
            return outcomes(group, results)
        })
        try run(db.connection, into: &report, plan: { planDecrypt($0, folder: folder) { _ in nil } },
                group: { try pipeline.submit($0) }, drain: { try pipeline.drain() })
        return report
    }

    /// Writes a decrypted copy of every CryptoFile into `output`, named after `files.file_name`
    /// (0600; each tag checked before the copy appears). The chat DB is only read. Names depend only
    /// on the database (two files with one name: `name (2).ext`), so a rerun names every copy as the
    /// first run did; copies already in `output` are refused before any work unless `outputPolicy`
    /// replaces them (`ExistingOutputError`).
    public func export(to output: String, passphrase: SecretBytes, outputPolicy: OutputPolicy = .refuse) throws -> ChatFilesReport {
        let folder = try filesFolder()
        let snapshot = try ReadOnlySnapshot(of: directory.chatDatabase)
        defer { snapshot.remove() }
        let (db, _) = try DatabaseOpener.open(snapshot.databasePath, passphrase: passphrase, mode: snapshot.mode)
        var report = ChatFilesReport(operation: "export", filesFolder: folder)
        if journal.exists {
            report.recoveryNotes.append("an interrupted encryption or decryption of the files folder left '\(journal.path)'; running that command again settles it (files of its last group may be reported failed here)")
        }
        let target = Path.absolute(output)
        do {
            try OutputFolder.check(target)
        } catch {
            throw ChatFilesError.outputFolderUnusable(path: target, cause: ErrorCause.text(of: error))
        }
        // Every copy's name, decided before any work: the same walk as the export's, keys only.
        var names = ExportNames(taken: [])
        var copies: [String: String] = [:]
        try FilesFolderEntries.walk(db, pageRows: pageRows) { item in
            guard case .entry(let entry) = item, entry.args != nil else { return }
            copies[entry.path] = Path.join(target, names.claim(entry.fileName, fileId: entry.fileIds[0]))
        }
        try outputPolicy.check(copies.values.sorted())
        do {
            try OutputFolder.create(target, mode: 0o700)
        } catch {
            throw ChatFilesError.outputFolderUnusable(path: target, cause: ErrorCause.text(of: error))
        }
        let pending = try ChatFilesTable.pendingTotals(in: db, encrypted: true)
        progress?.setTotals(items: pending.rows, bytes: pending.bytes)
        try run(db, into: &report, plan: { entry in
            planDecrypt(entry, folder: folder) { entry in copies[entry.path] ?? Path.join(target, ExportNames.sanitise(entry.fileName, fileId: entry.fileIds[0])) }
        }, group: { group in
            let staged = stage(group) { item, writer, progress in
                try CryptoFile.decrypt(file: item.source, to: writer, args: item.args, progress: progress).transformed
            }
            return outcomes(group, StagedWrites.publish(staged))
        })
        return report
    }

    /// Work on an encrypted entry that is a regular file in the folder; any other entry becomes an outcome.
    private func planDecrypt(_ entry: FilesFolderEntry, folder: String, destination: (FilesFolderEntry) -> String?) -> Planned {
        guard let args = entry.args else {
            return .outcome(ChatFileOutcome(kind: .alreadyDone, path: entry.path, fileIds: entry.fileIds, message: "not encrypted"))
        }
        return Self.plan(entry, in: folder) {
            WorkItem(entry: entry, fingerprint: $0, args: args, source: Path.join(folder, entry.path), destination: destination(entry))
        }
    }
}
