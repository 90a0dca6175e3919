import Foundation
import SXCore
import SXCrypto
import SXDatabase

/// Fills a sample data directory's chat and agent databases. Each is opened as the core opens a new
/// database (the key, then its connection settings: `applyChatCoreSettings`; no WAL), given sxkit's
/// subset of the real schema (`SampleChatSchema`, `SampleAgentSchema`) and the real migration rows
/// (`SampleMigrationRows`), then filled with deterministic rows that satisfy the real constraints and
/// foreign keys. `chatBytes` grows the chat history until the chat DB reaches that size, which is how
/// the benchmarks get a ~1 GB database from the same generator.
struct SampleDatabases {
    var passphrase: SecretBytes
    var seed: Int
    var contacts: Int
    var groups: Int
    var chatItems: Int
    var chatBytes: Int64?
    var walMode: Bool

    /// A sample file and how the chat DB refers to it.
    struct FileRow {
        var name: String
        /// Relative to the files folder; the file may be absent on purpose.
        var path: String
        var size: Int64
        var args: CryptoFileArgs?
    }

    /// When the sample's rows say they were made.
    static let created = "2022-11-05 14:03:27"

    func createChat(at path: String, files: [FileRow]) throws {
        let db = try create(path, schema: SampleChatSchema.statements, migrations: SimpleXMigrations.chat)
        let people = try SampleChatPeople(db: db, contacts: max(contacts, 1), groups: groups, seed: seed).write()
        var writer = try ChatHistoryWriter(db: db, peers: people.peers, seed: seed)
        // Items that carry the sample files come first, so every file row points at a real item in its chat.
        try transaction(db) {
            let file = try db.prepare("""
                INSERT INTO files (file_id, contact_id, file_name, file_path, file_size, chunk_size, created_at, user_id, chat_item_id,
                                   updated_at, ci_file_status, protocol, file_crypto_key, file_crypto_nonce)
                VALUES (?, ?, ?, ?, ?, 16384, ?, 1, ?, ?, ?, 'xftp', ?, ?)
                """)
            for (i, row) in files.enumerated() {
                let sent = i % 3 == 0
                let item = try writer.insertFileItem(name: row.name, with: i, sent: sent)
                let contact = people.peers.contacts[i % people.peers.contacts.count].contact
                let key: ColumnValue = row.args.map { .blob($0.key.copyBytes()) } ?? .null
                let nonce: ColumnValue = row.args.map { .blob($0.nonce) } ?? .null
                try file.run([.integer(Int64(i + 1)), .integer(contact), .text(row.name), .text(row.path), .integer(row.size),
                              .text(Self.created), .integer(item), .text(Self.created), .text(sent ? "snd_complete" : "rcv_complete"), key, nonce])
            }
        }
        var made = 0
        func belowTarget() throws -> Bool {
            guard let chatBytes else { return false }
            return try Self.size(of: db) < chatBytes
        }
        while try made < chatItems || belowTarget() {
            let rows = chatBytes == nil ? min(ChatHistoryWriter.batch, chatItems - made) : ChatHistoryWriter.batch
            try transaction(db) {
                for _ in 0..<rows {
                    _ = try writer.insertItem(text: nil)
                }
            }
            made += rows
        }
        try ChatHistoryWriter.settleChatTimes(db)
        try checkForeignKeys(db, path: path)
    }

    func createAgent(at path: String) throws {
        let db = try create(path, schema: SampleAgentSchema.statements, migrations: SimpleXMigrations.agent)
        try transaction(db) {
            try SampleAgentRows(db: db, connections: SampleChatPeople.connectionCount(contacts: max(contacts, 1), groups: groups),
                                seed: seed).write()
        }
        try checkForeignKeys(db, path: path)
    }

    /// Creates the file as the core opens a new database, then its schema and migration rows.
    private func create(_ path: String, schema: [String], migrations: [Migration]) throws -> DatabaseConnection {
        let db = try DatabaseConnection(path: path, mode: .readWriteCreate)
        try db.applyKey(passphrase)
        try db.applyChatCoreSettings()
        // Only on request: profiles from 2021 to early 2022 may still be in WAL mode (simplexmq fa5a8cb5
        // set it, 33f822d7 removed it; the mode persists in the file), and tests of WAL handling need one.
        if walMode { _ = try db.scalarText("PRAGMA journal_mode = WAL") }
        try transaction(db) {
            for statement in schema { try db.execute(statement) }
            let insert = try db.prepare("INSERT INTO migrations (name, down, ts) VALUES (?, ?, ?)")
            for row in SampleMigrationRows.rows(for: migrations) {
                try insert.run([.text(row.name), row.down.map(ColumnValue.text) ?? .null, .text(row.ts)])
            }
        }
        return db
    }

    /// The rows must hold together as the app's would: the core runs with foreign keys on.
    private func checkForeignKeys(_ db: DatabaseConnection, path: String) throws {
        let violations = try db.rows("PRAGMA foreign_key_check")
        guard violations.isEmpty else {
            throw SampleError("the sample database \(path) breaks \(violations.count) foreign key(s), first: \(violations[0])")
        }
    }

    static func size(of db: DatabaseConnection) throws -> Int64 {
        (try db.scalarInt("PRAGMA page_count") ?? 0) * (try db.scalarInt("PRAGMA page_size") ?? 4096)
    }
}

/// Runs `body` in one transaction.
func transaction(_ db: DatabaseConnection, _ body: () throws -> Void) throws {
    try db.execute("BEGIN")
    do {
        try body()
        try db.execute("COMMIT")
    } catch {
        try? db.execute("ROLLBACK")
        throw error
    }
}

public struct SampleError: SXError {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

extension Statement {
    /// Binds `values`, runs the statement once and resets it for the next row.
    func run(_ values: [ColumnValue]) throws {
        try bind(values)
        _ = try step()
        try reset()
    }
}
