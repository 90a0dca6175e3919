import Foundation
import SXCore
import SXDatabase

/// What the chat DB's `files` table says about the files folder: which relative paths it references
/// and whether each is a CryptoFile. Held as one dictionary keyed by path (the only per-file state a
/// scan keeps from the database); the table itself is streamed row by row.
public struct ChatFileReferences: Sendable {
    public struct Reference: Sendable, Equatable {
        /// The row has a key and a nonce: the file on disk is a CryptoFile.
        public var encrypted: Bool
        /// `files.file_size`: the size the app recorded (the plaintext size).
        public var recordedSize: Int64
    }

    public var byPath: [String: Reference] = [:]
    /// Rows whose `file_path` is absolute or climbs out with `..`: never followed.
    public var unsafePaths = 0
    public var unsafePathExamples: [String] = []

    static let exampleLimit = 10

    public func isReferenced(_ relativePath: String) -> Bool { byPath[relativePath] != nil }

    /// Reads the references of the chat database at `path`, without changing a byte of it: opened
    /// `immutable=1`, or from a private copy when it has a WAL (as `db inspect` does). Nil when the
    /// database does not exist. A plaintext database needs no passphrase; an encrypted one needs
    /// `passphrase` and throws `passphraseNeeded` or `wrongPassphrase` otherwise.
    public static func read(chatDatabase path: String, passphrase: SecretBytes?) throws -> ChatFileReferences? {
        let key: SecretBytes
        switch ReadAccess.of(path) {
        case .missing: return nil
        case .plaintext: key = SecretBytes([])
        case .encrypted:
            guard let passphrase, !passphrase.isEmpty else { throw CareError.passphraseNeeded(database: path) }
            key = passphrase
        case .unusable(let reason): throw CareError.chatDatabaseUnreadable(database: path, cause: reason)
        }
        let snapshot: ReadOnlySnapshot
        do {
            snapshot = try ReadOnlySnapshot(of: path)
        } catch {
            throw CareError.chatDatabaseUnreadable(database: path, cause: "cannot make a private copy to read its WAL from: \(ErrorCause.text(of: error))")
        }
        defer { snapshot.remove() }
        var out = ChatFileReferences()
        do {
            let (db, _) = try DatabaseOpener.open(snapshot.databasePath, passphrase: key, mode: snapshot.mode)
            // Sized once: growing a 100,000-entry dictionary by doubling would briefly hold two copies.
            if let rows = try db.scalarInt("SELECT count(*) FROM files WHERE file_path IS NOT NULL"), rows > 0 {
                out.byPath.reserveCapacity(Int(min(rows, 10_000_000)))
            }
            try ChatFilesTable.forEach(in: db) { record in
                guard let stored = record.storedPath, !stored.isEmpty else { return }
                guard let relative = record.relativePath else {
                    out.unsafePaths += 1
                    if out.unsafePathExamples.count < exampleLimit { out.unsafePathExamples.append(stored) }
                    return
                }
                let encrypted = record.isEncrypted || out.byPath[relative]?.encrypted == true
                out.byPath[relative] = Reference(encrypted: encrypted, recordedSize: record.fileSize ?? 0)
            }
        } catch let error as DatabaseError where error.isNotADatabase && error.fileKind == .encryptedOrNotDatabase(looksRandom: true) {
            throw CareError.wrongPassphrase(database: path)
        } catch let error as CareError {
            throw error
        } catch {
            throw CareError.chatDatabaseUnreadable(database: path, cause: ErrorCause.text(of: error))
        }
        return out
    }
}
