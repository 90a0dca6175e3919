import Foundation
import SXCore
import SXDatabase

/// Reads the chat DB's `files` table into `FilesTableReferences` (the one classifier of the files
/// folder) for the storage report and clean, wording what stops it as a `CareError`.
enum ChatFileReferences {
    /// Reads the references of the chat database at `path`, without changing a byte of it: opened
    /// `immutable=1`, or from a private copy when it has a WAL (as `db inspect` does). Nil when the
    /// database does not exist. A plaintext database needs no passphrase; an encrypted one needs
    /// `passphrase` and throws `passphraseNeeded` or `wrongPassphrase` otherwise.
    static func read(chatDatabase path: String, passphrase: SecretBytes?) throws -> FilesTableReferences? {
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
        do {
            let (db, _) = try DatabaseOpener.open(snapshot.databasePath, passphrase: key, mode: snapshot.mode)
            return try FilesTableReferences.read(from: db)
        } catch let error as DatabaseError where error.isNotADatabase && error.fileKind == .encryptedOrNotDatabase(looksRandom: true) {
            throw CareError.wrongPassphrase(database: path)
        } catch let error as CareError {
            throw error
        } catch {
            throw CareError.chatDatabaseUnreadable(database: path, cause: ErrorCause.text(of: error))
        }
    }
}
