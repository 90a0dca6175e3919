import Foundation
import SXCore
import SXCrypto
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// Settles what a killed run left in the journal, under the chat DB's exclusive lock. For each
/// journal record the file on disk decides:
///  - the journal key decrypts it (it is a CryptoFile): the DB must hold that key — it already does
///    (keys are committed before any rename), and is given it back if not;
///  - it does not: the file is as it was before the record's operation, so the DB must not claim the
///    journal key: it goes back to the previous key of a re-encryption, or is cleared for a plaintext
///    (for a decrypt record only when the size is exactly the decrypted size; anything else keeps
///    its key and is reported).
/// A key "decrypts" a file under either key schedule: journals of sxkit before 0.2.0 name files
/// encrypted with its own schedule, which must never be taken for plaintexts.
/// Temp files of the group are removed. Then the journal goes.
struct ChatFilesRecovery {
    let journal: FilesJournal
    let folder: String

    func settle(_ db: ChatDatabaseWriter) throws -> (settled: Int, notes: [String]) {
        AtomicFileWriter.removeStaleTempFiles(of: journal.path)
        let records = try journal.records()
        guard !records.isEmpty else {
            if journal.exists { try journal.clear() }
            return (0, [])
        }
        var changes: [ChatDatabaseWriter.KeyChange] = []
        var notes: [String] = []
        for record in records {
            guard let args = record.args, let relative = ChatFilesTable.safeRelativePath(record.path), record.previousArgs != .some(nil) else {
                notes.append("journal record for '\(record.path)' is malformed; nothing was changed for it")
                continue
            }
            let previous = record.previousArgs ?? nil
            let file = Path.join(folder, relative)
            AtomicFileWriter.removeStaleTempFiles(of: file)
            let isRegular = POSIXFile.linkStatus(file).map { ($0.st_mode & S_IFMT) == S_IFREG } ?? false
            let encrypted = isRegular && (try? CryptoFile.schedule(of: file, args: args)) != nil
            if encrypted {
                changes += record.fileIds.map { .init(fileId: $0, args: args, expected: previous) }
                continue
            }
            if let previous {
                // Not replaced: the file is still the CryptoFile the previous key opens.
                changes += record.fileIds.map { .init(fileId: $0, args: previous, expected: args) }
                continue
            }
            let size = isRegular ? POSIXFile.linkStatus(file).map { Int64($0.st_size) } : nil
            if record.op == .decrypt, size != record.size - Int64(CryptoFile.tagLength) {
                notes.append("'\(file)' neither decrypts with its key nor has its decrypted size; its key was kept in the DB")
                continue
            }
            changes += record.fileIds.map { .init(fileId: $0, args: nil, expected: args) }
        }
        try db.apply(changes)
        try journal.clear()
        return (records.count, notes)
    }

}
