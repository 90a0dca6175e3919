import Foundation
import SXCore

/// Checks the chat DB's `files` rows against the files folder (FORMATS §2): `file_path` is relative to
/// the folder; a row with key and nonce means the file on disk is a CryptoFile. Paths that are absolute
/// or climb out with `..` are counted and never followed; symlinks are not followed either.
enum FilesFolderCheck {
    static let exampleLimit = 10

    static func run(db: DatabaseConnection, filesFolder: String) throws -> FilesCheck {
        var check = FilesCheck(filesFolder: filesFolder, folderExists: false, referencedPresent: 0, referencedMissing: 0,
                               encrypted: 0, plaintext: 0, unsafePaths: 0, unreferenced: 0, unreferencedBytes: 0,
                               missingExamples: [], unreferencedExamples: [], unsafePathExamples: [])
        let onDisk = ChatFilesTable.listFiles(filesFolder)
        check.folderExists = onDisk != nil
        let present = onDisk ?? [:]
        var referenced = Set<String>()
        try ChatFilesTable.forEach(in: db) { record in
            guard let stored = record.storedPath, !stored.isEmpty else { return }
            guard let relative = record.relativePath else {
                check.unsafePaths += 1
                if check.unsafePathExamples.count < exampleLimit { check.unsafePathExamples.append(stored) }
                return
            }
            referenced.insert(relative)
            if record.isEncrypted { check.encrypted += 1 } else { check.plaintext += 1 }
            if present[relative] != nil {
                check.referencedPresent += 1
            } else {
                check.referencedMissing += 1
                if check.missingExamples.count < exampleLimit { check.missingExamples.append(relative) }
            }
        }
        for (name, size) in present.sorted(by: { $0.key < $1.key }) where !referenced.contains(name) {
            check.unreferenced += 1
            check.unreferencedBytes += size
            if check.unreferencedExamples.count < exampleLimit { check.unreferencedExamples.append(name) }
        }
        return check
    }
}
