import Foundation
import SXCore
import SXCrypto

/// Write-ahead record of the group in flight, beside the chat DB (`<chat db>.files-journal`, 0600).
/// It is written and fsync'd BEFORE any file of the group is replaced and removed only after the
/// database and the disk agree, so a kill at any instant leaves enough to settle every file: the
/// journal key either decrypts the file (it is a CryptoFile, the DB must hold the key) or it does
/// not (it is plaintext, the DB must not claim that key).
struct FilesJournal {
    typealias Operation = JournalOperation

    struct Record: Codable {
        var op: Operation
        /// Every `files` row that names this file.
        var fileIds: [Int64]
        /// Relative to the files folder (already checked safe).
        var path: String
        var fileKey: String
        var fileNonce: String
        /// The size of the file before the operation (plaintext for encrypt, CryptoFile for decrypt).
        var size: Int64
        /// Encrypt of a file that is a CryptoFile already: the key the DB held for it before (absent
        /// in journals of earlier builds, which encrypted plaintexts only).
        var previousKey: String?
        var previousNonce: String?

        init(op: Operation, fileIds: [Int64], path: String, args: CryptoFileArgs, size: Int64, previous: CryptoFileArgs? = nil) {
            self.op = op
            self.fileIds = fileIds
            self.path = path
            (fileKey, fileNonce) = Self.encode(args)
            self.size = size
            if let previous { (previousKey, previousNonce) = Self.encode(previous) }
        }

        var args: CryptoFileArgs? { Self.decode(fileKey, fileNonce) }

        /// The previous key, when the record has one; `.some(nil)` for a malformed one.
        var previousArgs: CryptoFileArgs?? {
            guard previousKey != nil || previousNonce != nil else { return .none }
            guard let key = previousKey, let nonce = previousNonce else { return .some(nil) }
            return .some(Self.decode(key, nonce))
        }

        private static func encode(_ args: CryptoFileArgs) -> (String, String) {
            (args.key.withUnsafeBytes { Base64URL.encode($0) }, Base64URL.encode(args.nonce))
        }

        private static func decode(_ keyText: String, _ nonceText: String) -> CryptoFileArgs? {
            guard var key = Base64URL.decode(keyText), let nonce = Base64URL.decode(nonceText) else { return nil }
            defer { Wipe.array(&key) }
            return try? CryptoFileArgs(key: key, nonce: nonce)
        }
    }

    private let file: JSONLinesJournal<Record>

    init(chatDatabase: String) { file = JSONLinesJournal(path: DataDirectoryNames.filesJournal(of: chatDatabase)) }

    var path: String { file.path }
    var exists: Bool { file.exists }

    /// Replaces the journal with `records` (the groups in flight), durably.
    func write(_ records: [Record]) throws { try file.replace(with: records) }

    func records() throws -> [Record] {
        do {
            return try file.records(.refuse)
        } catch {
            throw ChatFilesError.journalUnreadable(path: path, cause: ErrorCause.text(of: error))
        }
    }

    func clear() throws { try file.clear() }
}
