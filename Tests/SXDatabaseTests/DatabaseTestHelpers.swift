import Foundation
import SXCore
import SXDatabase
import SXTestSupport

/// A passphrase as the key pragma receives it: UTF-8 text.
func secret(_ text: String) -> SecretBytes { SecretBytes(Array(text.utf8)) }

/// Opens `path` and applies `passphrase` (empty = plaintext).
func open(_ path: String, _ passphrase: String, mode: DatabaseConnection.Mode = .readWrite) throws -> DatabaseConnection {
    let db = try DatabaseConnection(path: path, mode: mode)
    try db.applyKey(secret(passphrase))
    return db
}

/// Creates a small database at `path` with table `t(a, b)` holding two rows.
func makeDatabase(_ path: String, passphrase: String) throws {
    let db = try open(path, passphrase, mode: .readWriteCreate)
    try db.execute("CREATE TABLE t(a INTEGER, b TEXT); INSERT INTO t VALUES (1, 'one'), (2, 'two');")
}


/// Modification time in nanoseconds, or nil when the file is missing.
func modificationTime(_ path: String) -> Int? {
    guard let st = POSIXFile.linkStatus(path) else { return nil }
    return st.st_mtim.tv_sec * 1_000_000_000 + st.st_mtim.tv_nsec
}
