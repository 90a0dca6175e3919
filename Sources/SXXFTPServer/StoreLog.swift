#if canImport(Glibc)
import Glibc
#endif
import Synchronization
import SXCore
import SXXFTP

/// The server's store log: a text file of records, one per line, each written and flushed to disk
/// (fdatasync) before the command it records is answered, so that a restart, even after `kill -9`,
/// knows every chunk it acknowledged. A last line cut short by a crash is ignored. At start the log
/// is replayed and then rewritten with only what is still held (compacted, atomically).
///
/// Lines: `FNEW sid senderKey size digest createdAt`, `FADD sid rid:key,rid:key`, `FPUT sid name`,
/// `FDEL sid`, `FACK rid`; ids, keys (DER) and digests in base64url.
final class StoreLog: Sendable {
    private let path: String
    /// The open log; held while a record is written and flushed, so that records never interleave.
    private let descriptor: Mutex<Int32>

    init(path: String) throws {
        self.path = path
        descriptor = Mutex(try POSIXFile.open(path, flags: O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, mode: 0o600))
    }

    deinit { descriptor.withLock { _ = close($0) } }

    func append(_ record: StoreLogRecord) throws {
        let bytes = Array((record.line + "\n").utf8)
        try descriptor.withLock { fd in
            try bytes.withUnsafeBytes { try POSIXFile.writeAll(fd, $0, path: path) }
            guard fdatasync(fd) == 0 else { throw FileSystemError("flush to disk", path: path) }
        }
    }

    /// The records of a log file (none when it does not exist yet).
    static func read(path: String) throws -> [StoreLogRecord] {
        guard POSIXFile.exists(path) else { return [] }
        let bytes = try FileBytes.read(path, limit: 1 << 30)
        var records: [StoreLogRecord] = []
        var lines = bytes.split(separator: 0x0A, omittingEmptySubsequences: false)
        // The part after the last newline is a record cut short by a crash (or nothing).
        lines.removeLast()
        for (index, line) in lines.enumerated() {
            guard let record = StoreLogRecord(line: String(decoding: line, as: UTF8.self)) else {
                throw StoreLogProblem.unreadableLine(path: path, number: index + 1)
            }
            records.append(record)
        }
        return records
    }

    /// Replaces the log with `records`, atomically and durably.
    static func rewrite(path: String, records: [StoreLogRecord]) throws {
        let text = records.map { $0.line + "\n" }.joined()
        try AtomicFileWriter.write(Array(text.utf8), to: path, mode: 0o600)
    }
}

/// Why a store log cannot be used.
public enum StoreLogProblem: SXError, Equatable {
    case unreadableLine(path: String, number: Int)

    public var description: String {
        switch self {
        case .unreadableLine(let path, let number): "line \(number) of the store log '\(path)' is not a record this server writes"
        }
    }
}

extension StoreLogRecord {
    var line: String {
        let b: ([UInt8]) -> String = { Base64URL.encode($0) }
        switch self {
        case .new(let sid, let info, let createdAt):
            return "FNEW \(b(sid)) \(b(info.senderKey.der)) \(info.size) \(b(info.digest)) \(createdAt)"
        case .addRecipients(let sid, let recipients):
            return "FADD \(b(sid)) " + recipients.map { "\(b($0.0)):\(b($0.1.der))" }.joined(separator: ",")
        case .put(let sid, let name): return "FPUT \(b(sid)) \(name)"
        case .delete(let sid): return "FDEL \(b(sid))"
        case .ack(let rid): return "FACK \(b(rid))"
        }
    }

    init?(line: String) {
        let parts = line.split(separator: " ", omittingEmptySubsequences: false).map(String.init)
        func bytes(_ index: Int) -> [UInt8]? { index < parts.count ? Base64URL.decodeLenient(parts[index]) : nil }
        switch parts.first {
        case "FNEW":
            guard parts.count == 6, let sid = bytes(1), let keyDER = bytes(2), let key = try? XFTPPublicKey(authKey: keyDER),
                  let size = UInt32(parts[3]), let digest = bytes(4), let createdAt = Int64(parts[5]) else { return nil }
            self = .new(senderId: sid, info: XFTPFileInfo(senderKey: key, size: size, digest: digest), createdAt: createdAt)
        case "FADD":
            guard parts.count == 3, let sid = bytes(1) else { return nil }
            var recipients: [([UInt8], XFTPPublicKey)] = []
            for pair in parts[2].split(separator: ",") {
                let halves = pair.split(separator: ":")
                guard halves.count == 2, let rid = Base64URL.decodeLenient(String(halves[0])), let der = Base64URL.decodeLenient(String(halves[1])),
                      let key = try? XFTPPublicKey(authKey: der) else { return nil }
                recipients.append((rid, key))
            }
            guard !recipients.isEmpty else { return nil }
            self = .addRecipients(senderId: sid, recipients: recipients)
        case "FPUT":
            guard parts.count == 3, let sid = bytes(1), !parts[2].isEmpty, !parts[2].contains("/") else { return nil }
            self = .put(senderId: sid, fileName: parts[2])
        case "FDEL":
            guard parts.count == 2, let sid = bytes(1) else { return nil }
            self = .delete(senderId: sid)
        case "FACK":
            guard parts.count == 2, let rid = bytes(1) else { return nil }
            self = .ack(recipientId: rid)
        default:
            return nil
        }
    }
}
