import Foundation
import SXCore
import SXCrypto
import SXDatabase

/// Exports chats of a chat database as transcripts, one file per chat and format, with a manifest
/// for the chain of custody: the database's SHA-256 before and after (identical: nothing was
/// changed), what ran, and the SHA-256 of every file written. Reads only (`ReadAccess.read`: a
/// database with a WAL is read from a private copy); streams each chat item by item.
public struct ChatExport {
    public struct Options: Sendable {
        public var formats: [TranscriptFormat]
        public var clock: TranscriptClock
        /// Only this user's chats: a user id or display name; nil is every user.
        public var user: String?
        /// Chats by display name, `direct:ID`, `group:ID` or `notes:ID`; empty is every chat.
        public var chats: [String]
        /// `item_ts` window, stored form (UTC `YYYY-MM-DD HH:MM:SS`): [since, until).
        public var since: String?
        public var until: String?
        public var outputPolicy: OutputPolicy
        /// The profile's files folder: attached files are copied from it into `media/`; nil copies none.
        public var filesFolder: String?
        /// Threads reading chats, each with its own connection; nil decides by the export's size.
        public var threads: Int?

        public init(formats: [TranscriptFormat] = [.txt], clock: TranscriptClock = .utc, user: String? = nil, chats: [String] = [],
                    since: String? = nil, until: String? = nil, outputPolicy: OutputPolicy = .refuse, filesFolder: String? = nil) {
            self.filesFolder = filesFolder
            self.formats = formats.isEmpty ? [.txt] : formats
            self.clock = clock
            self.user = user
            self.chats = chats
            self.since = since
            self.until = until
            self.outputPolicy = outputPolicy
        }
    }

    public struct WrittenFile: Sendable, Encodable, Equatable {
        /// Relative to the output folder.
        public var path: String
        public var sha256: String
        public var bytes: Int64
    }

    public struct ExportedChat: Sendable, Encodable, Equatable {
        public var userId: Int64
        public var kind: ChatSummary.Kind
        public var id: Int64
        public var name: String
        public var messages: Int64
        public var files: [String]
        /// Attached files copied into `media/`, and those missing from the files folder or not copied.
        public var mediaCopied: Int
        public var mediaMissing: Int
        public var mediaFailed: Int
    }

    public struct Report: Sendable, Encodable, Equatable {
        public var output: String
        public var chats: [ExportedChat]
        public var manifest: String
        /// The HTML pages' index (`DIR/index.html`), when html is among the formats.
        public var index: String?
        public var databaseSHA256: String
        public var databaseUnchanged: Bool
    }

    /// The manifest's contents (`manifest.json`).
    struct Manifest: Encodable {
        struct Database: Encodable {
            var path: String
            var sha256_before: String
            var sha256_after: String
            var unchanged: Bool
        }

        var sxkit: String
        var command: [String]
        var created_at: String
        var formats: [String]
        var time_zone: String
        var databases: [Database]
        var files: [WrittenFile]
    }

    public let database: String
    public let passphrase: SecretBytes?
    public let options: Options

    public init(database: String, passphrase: SecretBytes?, options: Options) {
        self.database = database
        self.passphrase = passphrase
        self.options = options
    }

    /// Writes the transcripts and the manifest into `output` (created 0700 when missing). Every
    /// output path is checked before anything is written; `command` and `version` go in the manifest.
    public func run(to output: String, command: [String], version: String, progress: ProgressTracker? = nil) throws -> Report {
        let before = try Self.fingerprint(database)
        let (report, files) = try ReadAccess.read(database, passphrase: passphrase) { db, _, another in
            let users = try ChatCatalog.read(db)
            let selected = try select(users)
            let plan = selected.map { (user, chat) in (user, chat, options.formats.map { Path.join(output, Self.relativePath(user: user, chat: chat, format: $0)) }) }
            let manifestPath = Path.join(output, "manifest.json")
            let reader = try ChatHistoryReader(db)
            var media: [String] = []
            if options.filesFolder != nil {
                for (user, chat, _) in plan {
                    let chatRef = ChatReference(userId: user.userId, kind: chat.kind, id: chat.id)
                    media += try reader.storedFiles(chatRef, since: options.since, until: options.until)
                        .map { Path.join(output, MediaCopy.relativePath(fileId: $0.fileId, name: $0.name)) }
                }
            }
            // The HTML pages' index is written last, but checked with everything else, before anything is written.
            let indexPath = options.formats.contains(.html) ? Path.join(output, "index.html") : nil
            try options.outputPolicy.check(plan.flatMap(\.2) + media + (indexPath.map { [$0] } ?? []) + [manifestPath])
            try Folders.create(output, permissions: 0o700)
            // Counted in items: exact without a time window (the catalog's counts), open-ended with one.
            let windowed = options.since != nil || options.until != nil
            let total = plan.reduce(Int64(0)) { $0 + $1.1.messages }
            progress?.setTotals(items: windowed ? nil : Int(total), bytes: nil)
            // Big exports read chats on both cores, each thread with its own connection and a share of a
            // fixed page-cache budget (memory stays flat). A thread reads its chats side by side in time
            // order (`ExportWork.exportBatch`), so pages are decrypted about once per batch.
            let wanted = options.threads ?? (total >= Self.parallelFrom ? min(Self.maxWorkers, ProcessInfo.processInfo.activeProcessorCount) : 1)
            let workers = max(1, min(wanted, plan.count))
            var connections = [db]
            while connections.count < workers { connections.append(try another()) }
            for connection in connections { try connection.execute("PRAGMA cache_size = -\(Self.pageCacheKiB / workers)") }
            let work = ExportWork(export: self, output: output, readers: [reader] + (try connections.dropFirst().map { try ChatHistoryReader($0) }),
                                  copier: options.filesFolder.map { MediaCopy(filesFolder: $0, output: output) }, progress: progress)
            let entries = plan.map { ExportPlanEntry(user: $0.0, chat: $0.1, paths: $0.2) }
            let batches = ExportWork.batches(plan.map(\.1.messages), workers: workers, maxChats: Self.chatsPerBatch)
            let results = try work.run(batches.count) { worker, n in
                try work.exportBatch(batches[n], plan: entries, reader: work.readers[worker])
            }.flatMap { $0 }
            var exported: [ExportedChat] = []
            var written: [WrittenFile] = []
            var index: [TranscriptHTMLIndex.Entry] = []
            for result in results.sorted(by: { $0.0 < $1.0 }).map(\.1) {
                exported.append(result.exported)
                written += result.written
                if let entry = result.index { index.append(entry) }
            }
            if let indexPath {
                try AtomicFileWriter.write(Array(TranscriptHTMLIndex.page(index, clock: options.clock).utf8), to: indexPath, mode: 0o600)
                written.append(try Self.describe(indexPath, in: output))
            }
            return (Report(output: output, chats: exported, manifest: manifestPath, index: indexPath, databaseSHA256: "", databaseUnchanged: false), written)
        }
        let after = try Self.fingerprint(database)
        let manifest = Manifest(sxkit: version, command: command, created_at: TranscriptClock.utc.iso8601(Self.now()),
                                formats: options.formats.map(\.rawValue), time_zone: options.clock.zoneName,
                                databases: [.init(path: database, sha256_before: before, sha256_after: after, unchanged: before == after)],
                                files: files)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try AtomicFileWriter.write(Array(try encoder.encode(manifest)) + [0x0A], to: report.manifest, mode: 0o600)
        var done = report
        done.databaseSHA256 = after
        done.databaseUnchanged = before == after
        return done
    }

    /// The page cache of the export's connections together, in KiB (bounded: memory stays flat).
    static let pageCacheKiB = 32 * 1024
    /// Exports of at least this many items read on several threads (a connection each: a key derivation).
    static let parallelFrom: Int64 = 20_000
    static let maxWorkers = 2
    /// Chats one thread writes side by side (each holds a file per format open).
    static let chatsPerBatch = 64

    /// The chats `options` name, in catalog order; an unknown or ambiguous name is an error.
    func select(_ users: [ChatUserSummary]) throws -> [(ChatUserSummary, ChatSummary)] {
        var scope = users
        if let wanted = options.user {
            scope = users.filter { String($0.userId) == wanted || $0.displayName == wanted }
            guard !scope.isEmpty else { throw ChatExportError.noSuchUser(wanted, known: users.map(\.displayName)) }
        }
        let all = scope.flatMap { user in user.chats.map { (user, $0) } }
        guard !options.chats.isEmpty else { return all }
        var picked: [(ChatUserSummary, ChatSummary)] = []
        for name in options.chats {
            let matches = all.filter { _, chat in
                "\(chat.kind.rawValue):\(chat.id)" == name || chat.displayName == name || chat.profileName == name
            }
            guard !matches.isEmpty else { throw ChatExportError.noSuchChat(name) }
            guard matches.count == 1 else {
                throw ChatExportError.ambiguousChat(name, candidates: matches.map { "\($0.1.kind.rawValue):\($0.1.id) of \($0.0.displayName)" })
            }
            if !picked.contains(where: { $0.0.userId == matches[0].0.userId && $0.1.kind == matches[0].1.kind && $0.1.id == matches[0].1.id }) {
                picked.append(matches[0])
            }
        }
        return picked
    }

    /// `<user>/<kind>-<id>-<name>.<ext>`, names made safe for any file system.
    static func relativePath(user: ChatUserSummary, chat: ChatSummary, format: TranscriptFormat) -> String {
        Path.join("\(user.userId)-\(safe(user.displayName))", "\(chat.kind.rawValue)-\(chat.id)-\(safe(chat.displayName)).\(format.fileExtension)")
    }

    static func safe(_ name: String) -> String {
        let cleaned = String(name.unicodeScalars.map { s -> Character in
            s == "/" || s == "\\" || s.value < 0x20 || s.value == 0x7F ? "_" : Character(s)
        })
        let trimmed = String(cleaned.prefix(60)).trimmingCharacters(in: .whitespaces)
        return trimmed.isEmpty || trimmed.hasPrefix(".") ? "_" + trimmed : trimmed
    }

    /// The SHA-256 of the database file and, when there is one, its WAL (both are the database).
    static func fingerprint(_ path: String) throws -> String {
        var digest = SHA256Digest()
        for part in [path, path + "-wal"] where part == path || POSIXFile.linkStatus(part) != nil {
            try hash(part) { digest.update($0) }
        }
        return Hex.encode(digest.finish())
    }

    static func describe(_ path: String, in output: String) throws -> WrittenFile {
        var digest = SHA256Digest()
        var bytes: Int64 = 0
        try hash(path) { digest.update($0); bytes += Int64($0.count) }
        return WrittenFile(path: String(path.dropFirst(output.count + 1)), sha256: Hex.encode(digest.finish()), bytes: bytes)
    }

    static func hash(_ path: String, _ update: (UnsafeRawBufferPointer) -> Void) throws {
        let fd = try POSIXFile.open(path, flags: O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try POSIXFile.read(fd, into: &buffer, path: path)
            if n == 0 { break }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }

    static func now() -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return f.string(from: Date())
    }
}

/// Why an export cannot start.
public enum ChatExportError: SXError, Equatable {
    case noSuchUser(String, known: [String])
    case noSuchChat(String)
    case ambiguousChat(String, candidates: [String])

    public var description: String {
        switch self {
        case .noSuchUser(let name, let known):
            return "there is no user profile '\(name)' (there are: \(known.joined(separator: ", "))); nothing was written"
        case .noSuchChat(let name):
            return "no chat is called '\(name)' (name a chat by its display name, or as direct:ID, group:ID or notes:ID as the chat list shows them); nothing was written"
        case .ambiguousChat(let name, let candidates):
            return "'\(name)' names more than one chat (\(candidates.joined(separator: "; "))); name it as KIND:ID; nothing was written"
        }
    }
}
