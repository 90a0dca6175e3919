import Foundation
import SXCore
import SXDatabase
import SXSample
import SXTestSupport
import Testing

/// The sample data directory's databases are built as the core builds a profile's: the core's
/// connection settings (no WAL), STRICT tables with the real constraints holding, and SimpleX's real
/// migration rows.
@Suite("SampleDatabases", .ownThreads)
struct SampleDatabaseTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    static func sample(_ tmp: TempFolder) throws -> SampleDataDirectory {
        try SampleDataDirectory.create(at: tmp.file("data"), options: .init(photos: 1, documents: 2, chatItems: 120))
    }

    func open(_ path: String) throws -> DatabaseConnection {
        try DatabaseOpener.open(path, passphrase: Self.passphrase, mode: .readOnly).0
    }

    @Test(arguments: DatabaseRole.allCases)
    func theMigrationsTableHoldsSimpleXsRowsInOrder(_ role: DatabaseRole) throws {
        let tmp = try TempFolder()
        let sample = try Self.sample(tmp)
        let db = try open(role == .chat ? sample.directory.chatDatabase : sample.directory.agentDatabase)
        let rows = try MigrationsTable.read(db).rows
        let list = role.builtInMigrations
        #expect(rows.map(\.name) == list.map(\.name))
        #expect(rows.map { $0.down != nil } == list.map(\.hasDown), "down is non-NULL exactly where the core's list has a down query")
        // sqlcipher-simple's UTCTime text: date, space, time, then up to 6 fractional digits without trailing zeros.
        let format = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(\.\d{0,5}[1-9])?/
        #expect(rows.allSatisfy { $0.ts.wholeMatch(of: format) != nil }, "\(rows.prefix(3).map(\.ts))")
        #expect(rows.map(\.ts) == rows.map(\.ts).sorted(), "applied in name order, never back in time")
        #expect(rows.first?.ts == "2022-11-05 14:03:27.184203")
        let status = try Migrator(role: role).status(db)
        #expect(status.plan == .nothing)
    }

    @Test(arguments: DatabaseRole.allCases)
    func everyTableIsStrictAndEveryRowHoldsTheConstraints(_ role: DatabaseRole) throws {
        let tmp = try TempFolder()
        let sample = try Self.sample(tmp)
        let path = role == .chat ? sample.directory.chatDatabase : sample.directory.agentDatabase
        let db = try open(path)
        let tables = try db.rows("SELECT name, sql FROM sqlite_master WHERE type = 'table' AND name <> 'sqlite_sequence'")
        #expect(tables.count == (role == .chat ? 21 : 20))
        for row in tables {
            guard case .text(let name) = row[0], case .text(let sql) = row[1] else { continue }
            #expect(sql.hasSuffix(" STRICT") || sql.hasSuffix(", STRICT"), "\(name) is not STRICT")
        }
        #expect(try db.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try db.scalarText("PRAGMA integrity_check") == "ok")
        #expect(try db.scalarText("PRAGMA journal_mode") == "delete")
        #expect(try db.scalarInt("PRAGMA auto_vacuum") == 1)
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
    }

    @Test func theChatDatabaseLinksItsRowsAsTheCoreDoes() throws {
        let tmp = try TempFolder()
        let sample = try Self.sample(tmp)
        let chat = try open(sample.directory.chatDatabase)
        // Every user has a display name, an is_user contact of its own and a notes folder.
        #expect(try chat.scalarInt("""
            SELECT count(*) FROM users u JOIN contacts c ON c.contact_id = u.contact_id AND c.is_user = 1 AND c.user_id = u.user_id
              JOIN display_names d ON d.user_id = u.user_id AND d.local_display_name = u.local_display_name
              JOIN note_folders n ON n.user_id = u.user_id
            """) == 2)
        // item_content in the core's database form (one key: the tag), sent and received.
        let tags = try chat.rows("SELECT DISTINCT json_each.key FROM chat_items, json_each(chat_items.item_content) ORDER BY 1").compactMap { row -> String? in
            if case .text(let t) = row[0] { return t }
            return nil
        }
        #expect(Set(tags).isSubset(of: ["rcvMsgContent", "sndMsgContent", "rcvCall", "sndCall", "rcvGroupEvent", "rcvModerated"]))
        #expect(tags.contains("rcvMsgContent") && tags.contains("sndMsgContent"))
        #expect(try chat.scalarInt("SELECT count(*) FROM chat_items WHERE (SELECT count(*) FROM json_each(item_content)) != 1") == 0)
        // Direct messages are on the contact's connection (calls have no message here), group items received carry their member.
        #expect(try chat.scalarInt("""
            SELECT count(*) FROM chat_items i JOIN messages m ON m.message_id = i.created_by_msg_id
              JOIN connections c ON c.connection_id = m.connection_id WHERE i.contact_id IS NOT NULL AND c.contact_id = i.contact_id
            """) == chat.scalarInt("SELECT count(*) FROM chat_items WHERE contact_id IS NOT NULL AND item_content LIKE '%MsgContent%'"))
        #expect(try chat.scalarInt("SELECT count(*) FROM chat_items WHERE group_id IS NOT NULL AND item_sent = 0 AND group_member_id IS NULL") == 0)
        // Every chat connection is an agent connection (same id).
        let agent = try open(sample.directory.agentDatabase)
        let chatConnections = Set(try chat.rows("SELECT agent_conn_id FROM connections").map { $0[0] })
        let agentConnections = Set(try agent.rows("SELECT conn_id FROM connections").map { $0[0] })
        #expect(!chatConnections.isEmpty && chatConnections == agentConnections)
    }

    @Test func theSQLCipherShellReadsIt() throws {
        try #require(sqlcipherShellInstalled, "needs /usr/bin/sqlcipher")
        let tmp = try TempFolder()
        let sample = try Self.sample(tmp)
        let shell = try sqlcipherShell(sample.directory.chatDatabase,
                                       "PRAGMA key = 'correct horse battery staple';\nSELECT count(*), count(down), max(name) FROM migrations;\n")
        #expect(shell.output.contains("152|100|20260516_supporter_badges"), "\(shell)")
    }
}
