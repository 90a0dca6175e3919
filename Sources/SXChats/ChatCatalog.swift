import SXCore
import SXDatabase

/// One user profile of a chat database and its conversations.
public struct ChatUserSummary: Sendable, Equatable, Encodable {
    public var userId: Int64
    /// `users.local_display_name`: the name the apps show for the profile.
    public var displayName: String
    /// The profile's full name (from the user's own contact profile), when it has one.
    public var fullName: String?
    /// `users.active_user`: the profile the apps open.
    public var active: Bool
    /// A hidden profile (`users.view_pwd_hash` and `view_pwd_salt` both set): the apps show it only
    /// after its password is typed. Listed, and marked, since whoever holds the database key sees it.
    public var hidden: Bool
    public var chats: [ChatSummary]
}

/// A conversation: a direct chat with a contact, a group, or the user's private notes.
public struct ChatSummary: Sendable, Equatable, Encodable {
    public enum Kind: String, Sendable, Encodable {
        case direct, group, notes
    }

    public var kind: Kind
    /// `contact_id`, `group_id` or `note_folder_id`.
    public var id: Int64
    /// The local display name (unique per user: what the apps list); "Private notes" for notes.
    public var displayName: String
    /// The name the contact or group gave itself, when it differs from the local one.
    public var profileName: String?
    public var fullName: String?
    /// A contact deleted in the app (`contacts.deleted`) whose messages are still in the database.
    public var deleted: Bool
    /// Chat items, events included (member-support sub-chats of a group are not counted).
    public var messages: Int64
    /// The first and last item's time as stored (`item_ts`: UTC, no zone), nil without items.
    public var firstMessageAt: String?
    public var lastMessageAt: String?
    /// Files attached to the chat's items, and the sum of their sizes as the database records them.
    public var files: Int64
    public var fileBytes: Int64
}

/// Reads the list of chats of every user from an open chat database, without writing: the users,
/// their contacts, groups and note folders with item and file counts, in one pass over `chat_items`
/// and one over `files`. Columns and tables that older profiles lack are probed, not assumed.
///
/// Facts from simplex-chat `src/Simplex/Chat/Store/SQLite/Migrations/chat_schema.sql` (users 33-58,
/// contacts 69-110, contact_profiles 6-32, groups 144-208, group_profiles 121-143, chat_items 450-498,
/// files 264-291, note_folders 679-687): `contacts.is_user = 1` is the user's own contact, not a chat;
/// an item belongs to exactly one of `contact_id`, `group_id`, `note_folder_id`; `group_scope_tag`
/// marks items of a member-support sub-chat; a file belongs to an item through `files.chat_item_id`.
public enum ChatCatalog {
    public static let notesName = "Private notes"

    public static func read(_ db: DatabaseConnection) throws -> [ChatUserSummary] {
        let schema = try Schema(db)
        guard schema.has("users"), schema.has("chat_items") else { throw ChatReadError.notAChatDatabase }
        var users = try readUsers(db, schema)
        let counts = try itemCounts(db, schema)
        let files = try fileCounts(db, schema)
        for u in users.indices {
            let userId = users[u].userId
            var chats = try contacts(db, schema, userId: userId) + groups(db, schema, userId: userId) + notes(db, schema, userId: userId)
            for c in chats.indices {
                let key = ChatKey(userId: userId, kind: chats[c].kind, id: chats[c].id)
                if let count = counts[key] {
                    chats[c].messages = count.items
                    chats[c].firstMessageAt = count.first
                    chats[c].lastMessageAt = count.last
                }
                if let f = files[key] {
                    chats[c].files = f.count
                    chats[c].fileBytes = f.bytes
                }
            }
            // A deleted contact is listed only while messages of it remain.
            chats.removeAll { $0.deleted && $0.messages == 0 }
            // Most recent first, as the apps order their list; chats without items last, by name.
            users[u].chats = chats.sorted { a, b in
                switch (a.lastMessageAt, b.lastMessageAt) {
                case let (x?, y?) where x != y: return x > y
                case (_?, nil): return true
                case (nil, _?): return false
                default: return (a.kind.rawValue, a.displayName, a.id) < (b.kind.rawValue, b.displayName, b.id)
                }
            }
        }
        return users
    }

    private static func readUsers(_ db: DatabaseConnection, _ schema: Schema) throws -> [ChatUserSummary] {
        let hidden = schema.has("users", "view_pwd_hash") && schema.has("users", "view_pwd_salt")
            ? "u.view_pwd_hash IS NOT NULL AND u.view_pwd_salt IS NOT NULL" : "0"
        let fullName = schema.has("contact_profiles") ? "(SELECT p.full_name FROM contacts c JOIN contact_profiles p ON p.contact_profile_id = c.contact_profile_id WHERE c.contact_id = u.contact_id)" : "NULL"
        let statement = try db.prepare("SELECT u.user_id, u.local_display_name, \(fullName), u.active_user, \(hidden) FROM users u ORDER BY u.user_id")
        var users: [ChatUserSummary] = []
        while try statement.step() {
            users.append(ChatUserSummary(userId: statement.int64(0), displayName: statement.text(1) ?? "", fullName: nonEmpty(statement.text(2)),
                                         active: statement.int64(3) != 0, hidden: statement.int64(4) != 0, chats: []))
        }
        return users
    }

    private static func contacts(_ db: DatabaseConnection, _ schema: Schema, userId: Int64) throws -> [ChatSummary] {
        guard schema.has("contacts") else { return [] }
        let profile = schema.has("contact_profiles")
        let deleted = schema.has("contacts", "deleted") ? "c.deleted" : "0"
        let isUser = schema.has("contacts", "is_user") ? "c.is_user = 0" : "1"
        let sql = "SELECT c.contact_id, c.local_display_name, \(profile ? "p.display_name, p.full_name" : "NULL, NULL"), \(deleted) FROM contacts c "
            + (profile ? "LEFT JOIN contact_profiles p ON p.contact_profile_id = c.contact_profile_id " : "")
            + "WHERE c.user_id = ?1 AND \(isUser) ORDER BY c.contact_id"
        return try summaries(db, sql, userId: userId, kind: .direct)
    }

    private static func groups(_ db: DatabaseConnection, _ schema: Schema, userId: Int64) throws -> [ChatSummary] {
        guard schema.has("groups") else { return [] }
        let profile = schema.has("group_profiles")
        let sql = "SELECT g.group_id, g.local_display_name, \(profile ? "p.display_name, p.full_name" : "NULL, NULL"), 0 FROM groups g "
            + (profile ? "LEFT JOIN group_profiles p ON p.group_profile_id = g.group_profile_id " : "")
            + "WHERE g.user_id = ?1 ORDER BY g.group_id"
        return try summaries(db, sql, userId: userId, kind: .group)
    }

    private static func notes(_ db: DatabaseConnection, _ schema: Schema, userId: Int64) throws -> [ChatSummary] {
        guard schema.has("note_folders") else { return [] }
        let statement = try db.prepare("SELECT note_folder_id FROM note_folders WHERE user_id = ?1 ORDER BY note_folder_id")
        try statement.bind(userId, at: 1)
        var out: [ChatSummary] = []
        while try statement.step() {
            out.append(ChatSummary(kind: .notes, id: statement.int64(0), displayName: notesName, profileName: nil, fullName: nil, deleted: false,
                                   messages: 0, firstMessageAt: nil, lastMessageAt: nil, files: 0, fileBytes: 0))
        }
        return out
    }

    private static func summaries(_ db: DatabaseConnection, _ sql: String, userId: Int64, kind: ChatSummary.Kind) throws -> [ChatSummary] {
        let statement = try db.prepare(sql)
        try statement.bind(userId, at: 1)
        var out: [ChatSummary] = []
        while try statement.step() {
            let local = statement.text(1) ?? ""
            let profileName = nonEmpty(statement.text(2))
            out.append(ChatSummary(kind: kind, id: statement.int64(0), displayName: local, profileName: profileName == local ? nil : profileName,
                                   fullName: nonEmpty(statement.text(3)), deleted: statement.int64(4) != 0,
                                   messages: 0, firstMessageAt: nil, lastMessageAt: nil, files: 0, fileBytes: 0))
        }
        return out
    }

    private struct ItemCount {
        var items: Int64
        var first: String?
        var last: String?
    }

    /// Every chat's item count and first and last `item_ts`, in one pass over the table in storage
    /// order (`NOT INDEXED`): through a per-chat index SQLite would read the table once per chat, each
    /// page decrypted again. Aggregated here, one entry per chat: no sorter, no temp file.
    private static func itemCounts(_ db: DatabaseConnection, _ schema: Schema) throws -> [ChatKey: ItemCount] {
        let notes = schema.has("chat_items", "note_folder_id") ? "note_folder_id" : "NULL"
        let scope = schema.has("chat_items", "group_scope_tag") ? "WHERE group_scope_tag IS NULL" : ""
        let statement = try db.prepare("SELECT user_id, contact_id, group_id, \(notes), item_ts FROM chat_items NOT INDEXED \(scope)")
        var out: [ChatKey: ItemCount] = [:]
        while try statement.step() {
            guard let key = ChatKey(statement) else { continue }
            let ts = statement.text(4)
            if var count = out[key] {
                count.items += 1
                if let ts {
                    if count.first.map({ ts < $0 }) ?? true { count.first = ts }
                    if count.last.map({ ts > $0 }) ?? true { count.last = ts }
                }
                out[key] = count
            } else {
                out[key] = ItemCount(items: 1, first: ts, last: ts)
            }
        }
        return out
    }

    private static func fileCounts(_ db: DatabaseConnection, _ schema: Schema) throws -> [ChatKey: (count: Int64, bytes: Int64)] {
        guard schema.has("files"), schema.has("files", "chat_item_id") else { return [:] }
        let notes = schema.has("chat_items", "note_folder_id") ? "i.note_folder_id" : "NULL"
        let scope = schema.has("chat_items", "group_scope_tag") ? "WHERE i.group_scope_tag IS NULL" : ""
        let statement = try db.prepare("SELECT i.user_id, i.contact_id, i.group_id, \(notes), count(*), total(coalesce(f.file_size, 0)) "
            + "FROM files f JOIN chat_items i ON i.chat_item_id = f.chat_item_id \(scope) GROUP BY i.user_id, i.contact_id, i.group_id, \(notes)")
        var out: [ChatKey: (count: Int64, bytes: Int64)] = [:]
        while try statement.step() {
            guard let key = ChatKey(statement) else { continue }
            out[key] = (statement.int64(4), Int64(statement.double(5)))
        }
        return out
    }

    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}

/// Which chat an item or file belongs to.
struct ChatKey: Hashable {
    var userId: Int64
    var kind: ChatSummary.Kind
    var id: Int64

    init(userId: Int64, kind: ChatSummary.Kind, id: Int64) {
        self.userId = userId
        self.kind = kind
        self.id = id
    }

    /// From columns 0-3: user_id, contact_id, group_id, note_folder_id; nil when none is set.
    init?(_ row: Statement) {
        userId = row.int64(0)
        if !row.isNull(1) {
            (kind, id) = (.direct, row.int64(1))
        } else if !row.isNull(2) {
            (kind, id) = (.group, row.int64(2))
        } else if !row.isNull(3) {
            (kind, id) = (.notes, row.int64(3))
        } else {
            return nil
        }
    }
}

/// The tables and columns a database has, so that older profiles read too.
struct Schema {
    private var columns: [String: Set<String>] = [:]

    init(_ db: DatabaseConnection) throws {
        let tables = try db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'")
        var names: [String] = []
        while try tables.step() { if let name = tables.text(0) { names.append(name) } }
        for table in names {
            let info = try db.prepare("PRAGMA table_info(\"\(table.replacingOccurrences(of: "\"", with: "\"\""))\")")
            var found: Set<String> = []
            while try info.step() { if let column = info.text(1) { found.insert(column) } }
            columns[table] = found
        }
    }

    func has(_ table: String) -> Bool { columns[table] != nil }
    func has(_ table: String, _ column: String) -> Bool { columns[table]?.contains(column) ?? false }
}

/// Why a database cannot be read as a chat database.
public enum ChatReadError: SXError, Equatable {
    case notAChatDatabase
    /// A chat item listed a moment ago could not be read by its id.
    case itemVanished(Int64)

    public var description: String {
        switch self {
        case .notAChatDatabase: return "the database has no users or chat_items table, so it is not a SimpleX chat database (is it the agent database?)"
        case .itemVanished(let id): return "chat item \(id) was listed but could not be read: the database changed while it was read"
        }
    }
}
