import Glibc
import SXCore
import SXCrypto
import SXDatabase

/// What became of an item's attached file in an export.
public enum MediaOutcome: Sendable, Equatable {
    /// Copied (decrypted, its tag checked, when it is a CryptoFile) to this path, relative to the
    /// export folder.
    case copied(String)
    /// The database names it, the files folder does not have it.
    case missing
    /// It could not be copied: why, in words (tampered, not a regular file, a path leaving the folder).
    case failed(String)
}

/// Copies attached files out of a profile's files folder into an export's `media/`, mode 0600:
/// CryptoFiles decrypted with the key and nonce the chat database holds for them (SimpleX's key
/// schedule, FORMATS §6), each tag checked before the copy is published. A problem with a source
/// is an outcome, marked in the transcript; a problem writing the copy (a full disk) is an error.
struct MediaCopy {
    let filesFolder: String
    let output: String

    /// `media/<file_id>-<name>`.
    static func relativePath(fileId: Int64, name: String) -> String {
        Path.join("media", "\(fileId)-\(ChatExport.safe(name))")
    }

    func copy(_ file: ChatMessage.File) throws -> MediaOutcome? {
        guard let stored = file.storedPath, !stored.isEmpty else { return nil }
        guard let relative = ChatFilesTable.safeRelativePath(stored) else { return .failed("its stored path leaves the files folder") }
        let source = Path.join(filesFolder, relative)
        guard let st = POSIXFile.linkStatus(source) else { return .missing }
        guard (st.st_mode & S_IFMT) == S_IFREG else { return .failed("it is not a regular file in the files folder") }
        let target = Self.relativePath(fileId: file.fileId, name: file.name)
        let destination = Path.join(output, target)
        try Folders.create(Path.parent(destination), permissions: 0o700)
        if file.encrypted, let key = file.cryptoKey, let nonce = file.cryptoNonce {
            let args: CryptoFileArgs
            do { args = try CryptoFileArgs(key: key, nonce: nonce) } catch { return .failed("its key or nonce in the database is not valid") }
            let writer = try AtomicFileWriter(destination: destination, mode: 0o600)
            do {
                try CryptoFile.decrypt(file: source, to: writer, args: args)
                try writer.commit()
            } catch let error as CryptoFileError {
                writer.abort()
                switch error {
                case .invalidAuthTag, .invalidFileSize: return .failed("its tag does not match its key: it was changed, or it is not this file")
                default: return .failed(error.description)
                }
            } catch {
                writer.abort()
                throw error
            }
        } else {
            try AtomicFileWriter.copy(source, to: destination, mode: 0o600)
        }
        return .copied(target)
    }
}
