import Foundation
import SXCore
import SXCrypto
import SXDatabase

/// Fills a sample data directory's chat and agent databases: both are created by running sxkit's
/// built-in migration lists, encrypted with SQLCipher 4 (or plaintext for an empty passphrase), then
/// filled with deterministic rows. `chatBytes` grows the chat history until the chat DB reaches
/// that size, which is how the benchmarks get a ~1 GB database from the same generator.
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

    func createChat(at path: String, files: [FileRow]) throws {
        let db = try open(path, role: .chat)
        var rng = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 17)
        try transaction(db) {
            try db.execute("INSERT INTO users (user_id, contact_id, local_display_name, active_user) VALUES (1, 1, 'alice', 1), (2, NULL, 'alice-work', 0)")
            let profile = try db.prepare("INSERT INTO contact_profiles (contact_profile_id, display_name, full_name, user_id) VALUES (?, ?, ?, ?)")
            let contact = try db.prepare("INSERT INTO contacts (contact_id, contact_profile_id, user_id, local_display_name, is_user) VALUES (?, ?, ?, ?, ?)")
            for id in 1...(contacts + 1) {
                let name = id == 1 ? "alice" : Self.names[(id - 2) % Self.names.count] + (id - 2 >= Self.names.count ? "_\(id)" : "")
                try profile.run([.integer(Int64(id)), .text(name), .text(name.capitalized + " Example"), .integer(1)])
                try contact.run([.integer(Int64(id)), .integer(Int64(id)), .integer(1), .text(name), .integer(id == 1 ? 1 : 0)])
            }
            let groupProfile = try db.prepare("INSERT INTO group_profiles (group_profile_id, display_name, full_name, user_id) VALUES (?, ?, '', 1)")
            let group = try db.prepare("INSERT INTO groups (group_id, user_id, local_display_name, group_profile_id) VALUES (?, 1, ?, ?)")
            let member = try db.prepare("INSERT INTO group_members (group_id, member_id, member_role, contact_id, user_id) VALUES (?, ?, ?, ?, 1)")
            for id in 1...max(groups, 1) where groups > 0 {
                let name = Self.groupNames[(id - 1) % Self.groupNames.count] + (id > Self.groupNames.count ? "_\(id)" : "")
                try groupProfile.run([.integer(Int64(id)), .text(name)])
                try group.run([.integer(Int64(id)), .text(name), .integer(Int64(id))])
                for m in 0..<min(contacts, 6) {
                    let memberID = (0..<12).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    try member.run([.integer(Int64(id)), .blob(memberID), .text(m == 0 ? "owner" : "member"), .integer(Int64(2 + (m + id) % max(contacts, 1)))])
                }
            }
        }
        var writer = try ChatHistoryWriter(db: db, contacts: contacts, groups: groups, seed: seed)
        // Items that carry the sample files come first, so every file row points at a real item.
        try transaction(db) {
            let file = try db.prepare("""
                INSERT INTO files (file_id, contact_id, file_name, file_path, file_size, chunk_size, user_id, chat_item_id,
                                   ci_file_status, file_crypto_key, file_crypto_nonce) VALUES (?, ?, ?, ?, ?, 16384, 1, ?, ?, ?, ?)
                """)
            for (i, row) in files.enumerated() {
                let item = try writer.insertItem(text: "sent \(row.name)")
                let key: ColumnValue = row.args.map { .blob($0.key.copyBytes()) } ?? .null
                let nonce: ColumnValue = row.args.map { .blob($0.nonce) } ?? .null
                try file.run([.integer(Int64(i + 1)), .integer(Int64(2 + i % max(contacts, 1))), .text(row.name), .text(row.path),
                              .integer(row.size), .integer(item), .text(i % 3 == 0 ? "snd_complete" : "rcv_complete"), key, nonce])
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
    }

    func createAgent(at path: String) throws {
        let db = try open(path, role: .agent)
        var rng = SplitMix64(seed: UInt64(seed) &* 31 &+ 5)
        func bytes(_ n: Int) -> ColumnValue { .blob((0..<n).map { _ in UInt8(truncatingIfNeeded: rng.next()) }) }
        try transaction(db) {
            let servers = [("smp8.simplex.im", "5223"), ("smp9.simplex.im", "5223"), ("smp10.simplex.im", "5223")]
            let server = try db.prepare("INSERT INTO servers (host, port, key_hash) VALUES (?, ?, ?)")
            for (host, port) in servers { try server.run([.text(host), .text(port), bytes(32)]) }
            let connection = try db.prepare("INSERT INTO connections (conn_id, conn_mode, user_id) VALUES (?, ?, 1)")
            let rcv = try db.prepare("INSERT INTO rcv_queues (host, port, rcv_id, conn_id, rcv_private_key, rcv_dh_secret, snd_id, status) VALUES (?, ?, ?, ?, ?, ?, ?, 'active')")
            let snd = try db.prepare("INSERT INTO snd_queues (host, port, snd_id, conn_id, snd_private_key, status) VALUES (?, ?, ?, ?, ?, 'active')")
            let message = try db.prepare("INSERT INTO messages (conn_id, internal_id, internal_ts, msg_type, msg_body) VALUES (?, ?, datetime('now'), ?, ?)")
            for c in 0..<(contacts + groups * 3) {
                let connID = bytes(12)
                let (host, port) = servers[c % servers.count]
                try connection.run([connID, .text(c < contacts ? "INV" : "CON")])
                try rcv.run([.text(host), .text(port), bytes(24), connID, bytes(48), bytes(32), bytes(24)])
                try snd.run([.text(host), .text(port), bytes(24), connID, bytes(48)])
                for m in 1...5 { try message.run([connID, .integer(Int64(m)), .blob(Array("MSG".utf8)), bytes(180)]) }
            }
            try db.execute("INSERT INTO ntf_servers (ntf_host, ntf_port, ntf_key_hash) VALUES ('ntf2.simplex.im', '443', x'00')")
            let xftp = try db.prepare("INSERT INTO xftp_servers (xftp_server_id, xftp_host, xftp_port, xftp_key_hash) VALUES (?, ?, '443', ?)")
            for i in 1...2 { try xftp.run([.integer(Int64(i)), .text("xftp\(i).simplex.im"), bytes(32)]) }
            // One half-received and one half-sent relay transfer: the chunk state a migration must keep.
            try db.execute("""
                INSERT INTO rcv_files (rcv_file_id, rcv_file_entity_id, user_id, size, digest, key, nonce, chunk_size, prefix_path, tmp_path, save_path, status)
                VALUES (1, x'0102', 1, 12582912, zeroblob(64), zeroblob(32), zeroblob(24), 4194304, 'tmp/rcv1', 'tmp/rcv1/xftp.encrypted', 'simplex_v1_files/video.mp4', 'receiving');
                INSERT INTO snd_files (snd_file_id, snd_file_entity_id, user_id, num_recipients, digest, key, nonce, path, prefix_path, status)
                VALUES (1, x'0304', 1, 1, zeroblob(64), zeroblob(32), zeroblob(24), 'simplex_v1_files/IMG_1000.jpg', 'tmp/snd1', 'uploading');
                """)
            let rcvChunk = try db.prepare("INSERT INTO rcv_file_chunks (rcv_file_id, chunk_no, chunk_size, digest, tmp_path) VALUES (1, ?, 4194304, ?, ?)")
            let sndChunk = try db.prepare("INSERT INTO snd_file_chunks (snd_file_chunk_id, snd_file_id, chunk_no, chunk_offset, chunk_size, digest) VALUES (?, 1, ?, ?, 1048576, ?)")
            let replica = try db.prepare("INSERT INTO snd_file_chunk_replicas (snd_file_chunk_id, replica_number, xftp_server_id, replica_id, replica_key, replica_status) VALUES (?, 1, ?, ?, ?, ?)")
            for n in 1...3 {
                try rcvChunk.run([.integer(Int64(n)), bytes(32), n == 1 ? .text("tmp/rcv1/chunk\(n)") : .null])
                try sndChunk.run([.integer(Int64(n)), .integer(Int64(n)), .integer(Int64((n - 1) * 1_048_576)), bytes(32)])
                try replica.run([.integer(Int64(n)), .integer(Int64(1 + n % 2)), bytes(24), bytes(32), .text(n == 1 ? "uploaded" : "created")])
            }
        }
    }

    /// Opens (creating) a database, keys it and applies the built-in migrations.
    private func open(_ path: String, role: DatabaseRole) throws -> DatabaseConnection {
        let db = try DatabaseConnection(path: path, mode: .readWriteCreate)
        try db.applyKey(passphrase)
        try db.applyChatCoreSettings()
        if walMode { _ = try db.scalarText("PRAGMA journal_mode = WAL") }
        let outcome = Migrator(role: role).migrate(db: db, dbFile: path, confirmation: .yesUp, backup: .none)
        guard outcome.result == .ok else {
            throw SampleError("cannot create the sample \(role.rawValue) database: \(outcome.detail ?? "\(outcome.result)")")
        }
        return db
    }

    private func transaction(_ db: DatabaseConnection, _ body: () throws -> Void) throws {
        try db.execute("BEGIN")
        do {
            try body()
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    static func size(of db: DatabaseConnection) throws -> Int64 {
        (try db.scalarInt("PRAGMA page_count") ?? 0) * (try db.scalarInt("PRAGMA page_size") ?? 4096)
    }

    static let names = ["bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy", "mallory", "niaj", "olivia",
                        "peggy", "rupert", "sybil", "trent", "victor", "walter"]
    static let groupNames = ["family", "book-club", "hiking", "team", "neighbours"]
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
