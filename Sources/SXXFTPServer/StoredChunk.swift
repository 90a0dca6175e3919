import SXXFTP

/// One chunk a server holds: created by FNEW with its sender key and exact size and digest,
/// downloadable once FPUT stored all its bytes (simplexmq `src/Simplex/FileTransfer/Server/Store.hs`
/// `FileRec`).
struct StoredChunk: Sendable {
    var senderId: [UInt8]
    var info: XFTPFileInfo
    /// Seconds since 1970, rounded down to the hour as simplexmq stores it (`RoundedFileTime`,
    /// `Store.hs` 61-64), so that the log does not record when exactly a file arrived.
    var createdAt: Int64
    /// Recipient id → key.
    var recipients: [[UInt8]: XFTPPublicKey]
    /// The stored file's name in the files folder, once uploaded and verified.
    var fileName: String?
}

/// A record of the store log: one line each, appended and flushed before the command's answer,
/// replayed at start (the same records as simplexmq's `Server/StoreLog.hs` 44-50).
enum StoreLogRecord: Sendable, Equatable {
    case new(senderId: [UInt8], info: XFTPFileInfo, createdAt: Int64)
    case addRecipients(senderId: [UInt8], recipients: [([UInt8], XFTPPublicKey)])
    case put(senderId: [UInt8], fileName: String)
    case delete(senderId: [UInt8])
    case ack(recipientId: [UInt8])

    static func == (a: StoreLogRecord, b: StoreLogRecord) -> Bool { a.line == b.line }
}
