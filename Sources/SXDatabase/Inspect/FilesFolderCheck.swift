import Foundation
import SXCore

/// Checks the chat DB's `files` rows against the files folder through `FilesTableReferences`
/// (FORMATS §2), counting rows as `db inspect` reports them. Paths that are absolute or climb out
/// with `..` are counted and never followed; symlinks are not followed either.
enum FilesFolderCheck {
    static func run(db: DatabaseConnection, filesFolder: String) throws -> FilesCheck {
        let references = try FilesTableReferences.read(from: db)
        var entries: [FolderEntry] = []
        let outcome = FolderWalker.walk(filesFolder) { entries.append($0) }
        let folderExists = outcome == .walked
        if !folderExists { entries = [] }
        let limit = FilesTableReferences.exampleLimit
        var check = FilesCheck(filesFolder: filesFolder, folderExists: folderExists, referencedPresent: 0, referencedMissing: 0,
                               encrypted: 0, plaintext: 0, unsafePaths: references.unsafePaths, unreferenced: 0, unreferencedBytes: 0,
                               missingExamples: [], unreferencedExamples: [], unsafePathExamples: references.unsafePathExamples)
        var rows = 0
        for reference in references.byPath.values {
            rows += Int(reference.rows)
            check.encrypted += Int(reference.encryptedRows)
            check.plaintext += Int(reference.rows - reference.encryptedRows)
        }
        let missing = references.missing(from: entries)
        for path in missing { check.referencedMissing += Int(references.byPath[path]?.rows ?? 0) }
        check.referencedPresent = rows - check.referencedMissing
        check.missingExamples = Array(missing.prefix(limit))
        for entry in entries.sorted(by: { $0.relativePath < $1.relativePath }) where references.classify(entry) == .orphan {
            check.unreferenced += 1
            check.unreferencedBytes += entry.size
            if check.unreferencedExamples.count < limit { check.unreferencedExamples.append(entry.relativePath) }
        }
        return check
    }
}
