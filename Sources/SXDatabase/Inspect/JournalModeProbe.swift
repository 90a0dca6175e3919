import Foundation
import SXCore

/// Finds whether a database is in WAL mode without opening it in a way that could touch it.
///
/// WAL is the only journal mode stored in the file: header bytes 18–19 of page 1 are 2. A
/// connection opened `immutable=1` always reports "delete", and the header of an encrypted file is
/// only readable after decryption. So the first page alone is copied into a private folder and
/// opened read-write there: when SQLite decodes a page 1 that says WAL, it opens a `-wal` beside the
/// copy before it checks anything else (the rest of the one-page copy is then reported as malformed,
/// which does not matter here). For a plaintext file the header is read directly.
enum JournalModeProbe {
    static func isWAL(path: String, pageSize: Int, passphrase: SecretBytes, format: CipherFormat, tempRoot: String?) -> Bool? {
        guard let fd = try? WALFile.openForReading(path) else { return nil }
        defer { close(fd) }
        var page = [UInt8](repeating: 0, count: pageSize)
        let n = (try? page.withUnsafeMutableBytes { try POSIXFile.pread(fd, into: $0, at: 0, path: path) }) ?? 0
        guard n == pageSize else { return nil }
        if format == .plaintext { return page[18] == 2 && page[19] == 2 }
        guard let folder = try? PrivateFolder(label: "probe", root: tempRoot) else { return nil }
        defer { folder.remove() }
        let copy = Path.join(folder.path, "page1.db")
        do {
            try AtomicFileWriter.write(page, to: copy, mode: 0o600)
            let db = try DatabaseConnection(path: copy, mode: .readWrite)
            try db.applyKey(passphrase)
            if format == .sqlcipher3 { try db.setCompatibility(3) }
            _ = try? db.scalarInt("PRAGMA user_version")
            return POSIXFile.linkStatus(DataDirectoryNames.wal(of: copy)) != nil
        } catch {
            return nil
        }
    }
}
