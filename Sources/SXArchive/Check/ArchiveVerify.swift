import SXCore
import SXDatabase

/// What `verify` found in one database entry, read from a private copy.
public struct ArchiveDatabaseCheck: Sendable, Codable, Equatable {
    /// The file's kind judged from its first page ("SQLCipher-encrypted (looks random)", "plaintext SQLite", …).
    public var kind: String
    /// The key test's outcome; nil when no passphrase was given.
    public var keyTest: KeyTestOutcome?
    public var cipher: CipherFormat?
    public var keyMessage: String?
    /// `PRAGMA quick_check`'s answer ("ok" when sound); nil when the database could not be opened.
    public var quickCheck: String?
}

public struct ArchiveVerifyEntry: Sendable, Codable, Equatable {
    public var name: String
    public var size: Int64
    public var compressedSize: Int64
    /// The CRC-32 the archive declares, 8 hex digits.
    public var crc32: String
    public var ok: Bool
    /// Why the entry fails, as a sentence.
    public var problem: String?
    public var database: ArchiveDatabaseCheck?

    /// Sizes are `bytes` in sxkit's JSON vocabulary.
    enum CodingKeys: String, CodingKey {
        case name, crc32, ok, problem, database
        case size = "bytes"
        case compressedSize = "compressedBytes"
    }
}

public struct ArchiveVerifyReport: Sendable, Codable, Equatable {
    public var archive: String
    public var entries: [ArchiveVerifyEntry]
    /// Uncompressed bytes read.
    public var bytes: Int64
    /// What an import would leave out and report (entries outside the layout that are not hostile).
    public var archiveErrors: [ArchiveError]
    public var ok: Bool { entries.allSatisfy(\.ok) }
}

/// `archive verify`: the archive check, then every entry read in full (CRC and size checked by
/// libarchive, caps by `ChatArchiveReader`) with nothing written but private copies of the two
/// databases under $TMPDIR (0700 folder, 0600 files, removed afterwards), which are classified and,
/// given a passphrase, key-tested and `quick_check`ed.
public enum ArchiveVerify {
    public static func run(_ path: String, passphrase: SecretBytes?, limits: ArchiveLimits = ArchiveLimits(),
                           tempRoot: String? = nil, progress: ProgressTracker? = nil) throws -> ArchiveVerifyReport {
        let plan = try ChatArchiveCheck.run(path, limits: limits)
        progress?.setTotals(items: plan.dataItems.count, bytes: plan.totalBytes)
        let databaseBytes = plan.items.filter { $0.entry == .chatDatabase || $0.entry == .agentDatabase }.reduce(0) { $0 + $1.record.uncompressedSize }
        let scratch = try PrivateFolder(label: "verify", root: tempRoot)
        defer { scratch.remove() }
        try limits.requireSpace(databaseBytes, at: scratch.path, for: .checkingDatabases)
        let reader = try ChatArchiveReader(plan: plan, progress: progress)
        var entries: [ArchiveVerifyEntry] = []
        while let item = try reader.next() {
            guard let entry = item.entry else { continue }
            let record = item.record
            var result = ArchiveVerifyEntry(name: record.name, size: record.uncompressedSize, compressedSize: record.compressedSize,
                                            crc32: String(format8: record.crc32), ok: true)
            if let role = entry.databaseRole {
                let copy = try ExtractedFile(path: Path.join(scratch.path, record.name), mode: 0o600)
                result.problem = try reader.readData { try copy.write($0) }
                try copy.finish()
                if result.problem == nil {
                    let check = inspect(copy.path, role: role, passphrase: passphrase)
                    result.database = check
                    result.problem = problem(of: check)
                }
                copy.discard()
            } else {
                result.problem = try reader.readData { _ in }
            }
            result.ok = result.problem == nil
            entries.append(result)
            progress?.itemDone()
        }
        return ArchiveVerifyReport(archive: path, entries: entries, bytes: reader.bytesRead, archiveErrors: plan.skippedErrors)
    }

    static func inspect(_ path: String, role: DatabaseRole, passphrase: SecretBytes?) -> ArchiveDatabaseCheck {
        let kind: String
        switch (try? DatabaseFileKind.classify(path: path)) ?? .notADatabase(reason: "it cannot be read") {
        case .missing: kind = "missing"
        case .empty: kind = "empty (0 bytes)"
        case .plaintextSQLite: kind = "plaintext SQLite"
        case .encryptedOrNotDatabase(looksRandom: true): kind = "SQLCipher-encrypted (looks random)"
        case .encryptedOrNotDatabase(looksRandom: false): kind = "not a database (neither SQLite nor encrypted)"
        case .notADatabase(let reason): kind = "not a database: \(reason)"
        }
        var check = ArchiveDatabaseCheck(kind: kind)
        guard let passphrase else { return check }
        let test = KeyTester.test(DatabaseTarget(role: role, path: path), passphrase: passphrase, named: Path.basename(path))
        check.keyTest = test.outcome
        check.cipher = test.cipher
        check.keyMessage = test.message
        guard test.outcome == .correct else { return check }
        do {
            let (connection, _) = try DatabaseOpener.open(path, passphrase: passphrase, mode: .immutable)
            let rows = try connection.rows("PRAGMA quick_check")
            let lines = rows.compactMap { row -> String? in if case .text(let t)? = row.first { return t } else { return nil } }
            check.quickCheck = lines.prefix(5).joined(separator: "; ")
        } catch {
            check.quickCheck = "cannot run: \(error)"
        }
        return check
    }

    static func problem(of check: ArchiveDatabaseCheck) -> String? {
        if check.kind.hasPrefix("not a database") || check.kind.hasPrefix("empty") { return "the database is \(check.kind)" }
        if let outcome = check.keyTest, outcome != .correct { return check.keyMessage ?? outcome.rawValue }
        if let quick = check.quickCheck, quick != "ok" { return "PRAGMA quick_check found damage: \(quick)" }
        return nil
    }
}

extension ChatArchiveEntry {
    /// `chat` or `agent` for the database entries.
    public var databaseRole: DatabaseRole? {
        switch self {
        case .chatDatabase: .chat
        case .agentDatabase: .agent
        default: nil
        }
    }
}

extension String {
    /// 8 lowercase hex digits.
    init(format8 value: UInt32) {
        let digits = String(value, radix: 16)
        self = String(repeating: "0", count: 8 - digits.count) + digits
    }
}
