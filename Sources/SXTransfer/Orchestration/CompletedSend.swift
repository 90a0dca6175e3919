import Foundation
import Synchronization
import SXCore
import SXCrypto

extension TransferSender {
    /// The send of this very file that finished before this run, found from its descriptions alone.
    ///
    /// A send removes its state (its work folder) after it writes its descriptions; a kill during
    /// that removal, or between it and the exit, leaves complete descriptions and no state. Without
    /// this, the rerun refused them as an earlier send's outputs. They are taken for this send's own
    /// only when all of these hold, and nil is returned otherwise (the outputs are then refused or
    /// replaced, as before):
    /// - the sender description and one recipient description per recipient are there, regular
    ///   files, of the right party, and no further recipient's is;
    /// - they agree on the file (size, digest, key, nonce, chunk sizes and digests) and each chunk
    ///   is on one of this send's relays (the same in every description), without a redirect;
    /// - the sender description is at most `resumeWindow` old: a relay forgets chunks after 48 h by
    ///   default, and older descriptions may point at nothing;
    /// - the file, encrypted again with the description's key and nonce and this send's header,
    ///   gives exactly the digest the descriptions record: SHA-512 of the whole encrypted file
    ///   (simplexmq `src/Simplex/FileTransfer/Description.hs`, `FileDescription.digest`; computed by
    ///   `Client/Main.hs` `encryptFileForUpload`). Encryption is deterministic for a key and nonce,
    ///   so equal digests mean the chunks on the relays are this file's.
    func completedSend(file: String) -> Result? {
        guard options.redirect == nil, !options.outputPolicy.replaceExisting, let st = try? POSIXFile.status(file) else { return nil }
        let version = "\(file)\n\(st.st_size)\n\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        if let known = completedSends.found(version) { return known }
        let found = findCompletedSend(file: file)
        completedSends.record(found, for: version)
        return found
    }

    private func findCompletedSend(file: String) -> Result? {
        let paths = descriptionPaths(for: file)
        guard paths.stale.isEmpty, paths.recipients.count == options.recipients,
              let sender = Self.regularDescription(paths.sender, party: .sender),
              Date().timeIntervalSince1970 - Self.modified(paths.sender) <= Self.resumeWindow else { return nil }
        let servers = Set(relays.map(\.address.withoutPassword))
        for path in paths.recipients {
            guard let recipient = Self.regularDescription(path, party: .recipient), Self.sameFile(sender, recipient),
                  recipient.chunks.count == sender.chunks.count,
                  zip(recipient.chunks, sender.chunks).allSatisfy({ $0.replicas.map(\.server) == $1.replicas.map(\.server) })
            else { return nil }
        }
        guard sender.redirect == nil, !sender.chunks.isEmpty,
              sender.chunks.allSatisfy({ $0.replicas.count == 1 && servers.contains($0.replicas[0].server) }),
              sender.chunks.reduce(Int64(0), { $0 + $1.size }) == sender.size,
              let args = try? CryptoFileArgs(key: sender.key, nonce: sender.nonce),
              let header = try? TransferFileHeader(name: FileNameBytes.text(Path.basename(file))),
              let digest = Self.encryptedDigest(file: file, header: header, args: args, encryptedSize: sender.size),
              digest == sender.digest else { return nil }
        return Result(senderDescription: paths.sender, recipientDescriptions: paths.recipients, encryptedSize: sender.size,
                      chunksUploaded: 0, chunks: sender.chunks.count, alreadySent: true)
    }

    private static func regularDescription(_ path: String, party: FileDescription.Party) -> FileDescription? {
        guard let st = POSIXFile.linkStatus(path), (st.st_mode & S_IFMT) == S_IFREG,
              let description = try? FileDescription.load(path), description.party == party else { return nil }
        return description
    }

    private static func modified(_ path: String) -> TimeInterval {
        guard let st = POSIXFile.linkStatus(path) else { return 0 }
        return Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
    }

    /// Whether two descriptions are of the same encrypted file, chunk for chunk.
    private static func sameFile(_ a: FileDescription, _ b: FileDescription) -> Bool {
        a.size == b.size && a.digest == b.digest && a.key == b.key && a.nonce == b.nonce && a.chunkSize == b.chunkSize
            && a.redirect == b.redirect && a.chunks.map(\.size) == b.chunks.map(\.size) && a.chunks.map(\.digest) == b.chunks.map(\.digest)
    }

    /// SHA-512 of `file` encrypted for transfer (`TransferEncryption.stream`, which also refuses a
    /// file that changed while read), nil when it cannot be read or does not encrypt to
    /// `encryptedSize` bytes (it is not the file described).
    private static func encryptedDigest(file: String, header: TransferFileHeader, args: CryptoFileArgs, encryptedSize: Int64) -> [UInt8]? {
        guard let encrypted = try? TransferEncryption.stream(file: file, header: header, args: args, onChunk: { _, _, _ in }),
              encrypted.plan.encryptedSize == encryptedSize else { return nil }
        return encrypted.fileDigest
    }
}

/// `completedSend`'s answers by file version (path, size, modification time), for one sender.
final class CompletedSendMemo: Sendable {
    private let answers = Mutex<[String: TransferSender.Result?]>([:])

    /// The answer recorded for `version`: nil when there is none, `.some(nil)` for "not sent".
    func found(_ version: String) -> TransferSender.Result?? { answers.withLock { $0[version] } }

    func record(_ answer: TransferSender.Result?, for version: String) { answers.withLock { $0[version] = .some(answer) } }
}
