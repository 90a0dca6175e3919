import Foundation
import SXCore
import SXCrypto
import SXDatabase

/// The CryptoFiles a chat database names, each with the key and nonce its rows hold
/// (`files.file_crypto_key` / `file_crypto_nonce`, FORMATS §2), and the one check of their tags
/// against the files folder: `sxkit check --read-data` and `files verify --data-dir` both verify
/// through `verify`.
public struct ChatCryptoFiles: Sendable {
    /// Each normalised relative path with the distinct keys its rows hold (almost always one).
    public private(set) var byPath: [String: [CryptoFileArgs]] = [:]
    /// Rows with a key whose `file_path` is absolute or climbs out with `..`, as stored: never opened.
    public private(set) var unsafePaths: [String] = []

    public init() {}

    /// Every encrypted row of `db`'s `files` table, streamed.
    public static func read(from db: DatabaseConnection) throws -> ChatCryptoFiles {
        var files = ChatCryptoFiles()
        try ChatFilesTable.forEach(in: db) { files.add($0) }
        return files
    }

    /// Takes one row into account (rows without a key or a path are not CryptoFiles).
    public mutating func add(_ record: ChatFileRecord) {
        guard let key = record.cryptoKey, let nonce = record.cryptoNonce, let stored = record.storedPath, !stored.isEmpty else { return }
        guard let relative = record.relativePath else {
            unsafePaths.append(stored)
            return
        }
        // A key or nonce of the wrong length cannot decrypt anything: checked below as a failure.
        let args = (try? CryptoFileArgs(key: key, nonce: nonce))
        var known = byPath[relative] ?? []
        if let args, !known.contains(args) { known.append(args) }
        byPath[relative] = known
    }

    public var count: Int { byPath.count }

    /// Checks every CryptoFile's tag with its key, streamed, `jobs` at a time. Nothing is written.
    /// A file is looked up without following any symlink (`FilesFolderLookup`); one that is missing,
    /// a symlink or not a regular file is skipped with the reason, as is every row whose path
    /// leaves the folder (never opened). A file passes only when every distinct key its rows hold
    /// verifies it (two rows naming one file with different keys mean one of them is wrong).
    public func verify(filesFolder: String, jobs: Int, progress: ProgressTracker? = nil) -> BatchReport {
        let paths = byPath.keys.sorted()
        progress?.setTotals(items: paths.count, bytes: nil)
        let byPath = self.byPath
        var items = ParallelWork.map(count: paths.count, jobs: jobs) { i -> BatchItemResult in
            defer { progress?.itemDone() }
            let path = Path.join(filesFolder, paths[i])
            switch FilesFolderLookup.look(paths[i], in: filesFolder) {
            case .missing:
                return BatchItemResult(source: path, status: .skipped, bytes: 0, message: "referenced by the chat database but missing")
            case .symlink:
                return BatchItemResult(source: path, status: .skipped, bytes: 0, message: "a symlink (or a folder on the way is one): not followed")
            case .notRegular:
                return BatchItemResult(source: path, status: .skipped, bytes: 0, message: "not a regular file")
            case .file:
                break
            }
            let keys = byPath[paths[i]] ?? []
            guard !keys.isEmpty else {
                return BatchItemResult(source: path, status: .failed, bytes: 0,
                                       message: "the chat database's key or nonce for it has the wrong length: it cannot be decrypted")
            }
            var result = BatchItemResult(source: path, status: .failed, bytes: 0, message: nil)
            for args in keys {
                result = CryptoFileBatch.verifyOne(path, args: args, progress: progress)
                if result.status == .failed {
                    if keys.count > 1 { result.message = (result.message ?? "") + " (one of \(keys.count) different keys its rows hold)" }
                    break
                }
            }
            return result
        }
        items += unsafePaths.map {
            BatchItemResult(source: $0, status: .skipped, bytes: 0, message: "its path leaves the files folder (absolute or with ..): never opened")
        }
        return BatchReport(items: items)
    }

    /// `files verify --data-dir`: reads the keys from the chat database of `directory` (read-only:
    /// `ReadAccess.read`) and verifies every CryptoFile of its files folder. `passphrase` nil or
    /// empty opens a plaintext database.
    public static func verify(directory: DataDirectory, passphrase: SecretBytes?, jobs: Int,
                              progress: ProgressTracker? = nil) throws -> BatchReport {
        let folder = directory.filesFolder ?? Path.join(directory.root, "files")
        guard let st = POSIXFile.linkStatus(folder), (st.st_mode & S_IFMT) == S_IFDIR else {
            throw ChatFilesError.filesFolderMissing(path: folder)
        }
        let files = try ReadAccess.read(directory.chatDatabase, passphrase: passphrase) { db, _ in try read(from: db) }
        return files.verify(filesFolder: folder, jobs: jobs, progress: progress)
    }
}
