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
        let onDisk = listFiles(filesFolder)
        check.folderExists = onDisk != nil
        let present = onDisk ?? [:]
        var referenced = Set<String>()
        let columns = Set(try db.rows("PRAGMA table_info(files)").compactMap { $0.count > 1 ? $0[1].textValue : nil })
        let hasCrypto = columns.contains("file_crypto_key") && columns.contains("file_crypto_nonce")
        let sql = "SELECT file_path, " + (hasCrypto ? "file_crypto_key IS NOT NULL AND file_crypto_nonce IS NOT NULL" : "0")
            + " FROM files WHERE file_path IS NOT NULL AND file_path != ''"
        let statement = try db.prepare(sql)
        while try statement.step() {
            guard let path = statement.text(0) else { continue }
            guard let relative = safeRelativePath(path) else {
                check.unsafePaths += 1
                if check.unsafePathExamples.count < exampleLimit { check.unsafePathExamples.append(path) }
                continue
            }
            referenced.insert(relative)
            if statement.int64(1) != 0 { check.encrypted += 1 } else { check.plaintext += 1 }
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

    /// The normalised relative path, or nil when it is absolute or leaves the folder.
    static func safeRelativePath(_ path: String) -> String? {
        if path.hasPrefix("/") || path.contains("\\") { return nil }
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." { return nil }
            parts.append(part)
        }
        return parts.isEmpty ? nil : parts.joined(separator: "/")
    }

    /// Every regular file under `folder` (relative path → size), without following symlinks; nil
    /// when the folder does not exist.
    static func listFiles(_ folder: String) -> [String: Int64]? {
        guard let st = POSIXFile.linkStatus(folder), (st.st_mode & S_IFMT) == S_IFDIR else { return nil }
        var out: [String: Int64] = [:]
        var pending = [""]
        while let relative = pending.popLast() {
            let absolute = relative.isEmpty ? folder : Path.join(folder, relative)
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else { continue }
            for name in names {
                let rel = relative.isEmpty ? name : relative + "/" + name
                guard let st = POSIXFile.linkStatus(Path.join(folder, rel)) else { continue }
                switch st.st_mode & S_IFMT {
                case S_IFDIR: pending.append(rel)
                case S_IFREG: out[rel] = Int64(st.st_size)
                default: break
                }
            }
        }
        return out
    }
}
