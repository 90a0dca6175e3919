import SXCrypto
import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// Write-ahead log beside a manifest (`<manifest>.journal`, 0600). Every key is made durable here
/// BEFORE the file it belongs to is replaced, so a kill at any instant leaves each file either
/// untouched or encrypted with a key that survives. `recover` settles what a killed run left.
struct ManifestJournal {
    typealias Operation = JournalOperation

    struct Record: Codable {
        var op: Operation
        /// Absolute path of the file being replaced (in place) or written.
        var filePath: String
        var cryptoArgs: CryptoFileManifest.RawArgs
        /// Size of the file before the operation.
        var sourceSize: Int64
    }

    private let file: JSONLinesJournal<Record>

    init(manifestPath: String) { file = JSONLinesJournal(path: DataDirectoryNames.manifestJournal(of: manifestPath)) }

    var path: String { file.path }

    func append(_ records: [Record]) throws { try file.append(records) }

    /// A torn last line (killed mid-append) was never fsync'd as a whole: its file was not touched.
    func records() throws -> [Record] { try file.records(.skip) }

    func clear() throws { try file.clear() }

    /// Settles an interrupted run against the files on disk and rewrites the manifest. Returns how
    /// many journal records were settled. A key is dropped only when its file provably no longer
    /// needs it (decrypted: the tag fails AND the size is exactly the plaintext size).
    func recover(into manifest: inout CryptoFileManifest) throws -> Int {
        // A run killed while it rewrote the manifest or the journal left a temp file of it beside the
        // manifest (under the batch's lock: a live writer's temp file is locked and kept).
        AtomicFileWriter.removeStaleTempFiles(of: manifest.path)
        AtomicFileWriter.removeStaleTempFiles(of: file.path)
        let pending = try records()
        guard !pending.isEmpty else {
            if file.exists { try clear() }
            return 0
        }
        for record in pending {
            AtomicFileWriter.removeStaleTempFiles(of: record.filePath)
            guard let args = try? JSONDecoder().decode(CryptoFileArgs.self, from: JSONEncoder().encode(record.cryptoArgs)) else { continue }
            // Either key schedule: a journal of sxkit before 0.2.0 names files encrypted with its own.
            let encrypted = (try? CryptoFile.schedule(of: record.filePath, args: args)) != nil
            switch record.op {
            case .encrypt:
                if encrypted { manifest.set(record.filePath, args: args) }
            case .decrypt:
                let size = (try? POSIXFile.status(record.filePath)).map { Int64($0.st_size) }
                if !encrypted, size == record.sourceSize - Int64(CryptoFile.tagLength) { manifest.remove(record.filePath) }
            }
        }
        try manifest.save()
        try clear()
        return pending.count
    }

}

/// An exclusive lock on the manifest's folder for the length of a batch, so two runs never
/// interleave their journals.
final class ManifestLock {
    private let fd: Int32

    init(manifestPath: String) throws {
        let folder = Path.parent(manifestPath)
        fd = try POSIXFile.open(folder, flags: O_RDONLY | O_DIRECTORY)
        if flock(fd, LOCK_EX | LOCK_NB) != 0 {
            close(fd)
            throw ManifestError.busy(path: manifestPath)
        }
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }
}
