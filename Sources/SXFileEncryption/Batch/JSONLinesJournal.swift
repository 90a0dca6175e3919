import Foundation
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// What a journalled record was about to do to its file: both engines journal these two.
enum JournalOperation: String, Codable {
    case encrypt, decrypt
}

/// The write-ahead journal both engines keep: one JSON record per line, 0600, durable (the file
/// and its folder fsync'd) before any file a record names is replaced. The batch over paths
/// (`ManifestJournal`) appends a group at a time; the files folder (`FilesJournal`) replaces the
/// journal with the groups in flight. Each keeps its own record type, so the on-disk fields of
/// journals written by earlier builds read as before.
struct JSONLinesJournal<Record: Codable> {
    /// How to read a line that does not decode.
    enum DamagedLine {
        /// Skip it: a torn last line (killed mid-append) was never fsync'd whole, so its file was
        /// never touched.
        case skip
        /// Refuse the journal: a journal that is replaced whole is never torn, so a bad line is damage.
        case refuse
    }

    let path: String

    var exists: Bool { POSIXFile.linkStatus(path) != nil }

    /// Replaces the journal with `records`, durably (temp, fsync, rename, fsync folder).
    func replace(with records: [Record]) throws {
        var bytes = try Self.lines(records)
        defer { Wipe.array(&bytes) }
        try AtomicFileWriter.write(bytes, to: path, mode: 0o600)
    }

    /// Appends `records`, durably (O_APPEND, fsync the file and its folder).
    func append(_ records: [Record]) throws {
        guard !records.isEmpty else { return }
        var bytes = try Self.lines(records)
        defer { Wipe.array(&bytes) }
        let fd = try POSIXFile.open(path, flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
        defer { close(fd) }
        try bytes.withUnsafeBytes { try POSIXFile.writeAll(fd, $0, path: path) }
        try POSIXFile.fsync(fd, path: path)
        try POSIXFile.fsyncDirectory(Path.parent(path))
    }

    /// The records, in order; none when there is no journal.
    func records(_ damaged: DamagedLine) throws -> [Record] {
        guard exists else { return [] }
        var bytes = try FileBytes.read(path, limit: 1 << 30)
        // The records hold keys: the raw bytes do not outlive the reading.
        defer { Wipe.array(&bytes) }
        let decoder = JSONDecoder()
        return try bytes.split(separator: 0x0A).compactMap { line -> Record? in
            if damaged == .skip { return try? decoder.decode(Record.self, from: Data(line)) }
            return try decoder.decode(Record.self, from: Data(line))
        }
    }

    func clear() throws {
        guard unlink(path) == 0 || errno == ENOENT else { throw FileSystemError("remove", path: path) }
        try POSIXFile.fsyncDirectory(Path.parent(path))
    }

    private static func lines(_ records: [Record]) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var bytes: [UInt8] = []
        for record in records { bytes += Array(try encoder.encode(record)) + [0x0A] }
        return bytes
    }
}
