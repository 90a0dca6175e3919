import SXDatabase

/// One chat's items, one at a time, in the apps' order (see `ChatHistoryReader`): `advance` steps the
/// ordered ids, `message` reads the current item by its id. Its position (`sortKey`, `itemId`) lets
/// several chats be read side by side in time order (`ChatItemMerge`), so that items stored next to
/// each other are read one after the other whatever chat they belong to.
public final class ChatItemCursor {
    let reader: ChatHistoryReader
    public let chat: ChatReference
    private let ids: Statement
    private let row: Statement
    private let contactName: String?
    private let reactions: ReactionLookup?
    /// The current item's order column (`created_at` or `item_ts`, stored form) and id.
    public private(set) var sortKey = ""
    public private(set) var itemId: Int64 = 0

    init(reader: ChatHistoryReader, chat: ChatReference, ids: Statement, row: Statement, contactName: String?, reactions: ReactionLookup?) {
        self.reader = reader
        self.chat = chat
        self.ids = ids
        self.row = row
        self.contactName = contactName
        self.reactions = reactions
    }

    /// Moves to the next item; false after the last.
    public func advance() throws -> Bool {
        guard try ids.step() else { return false }
        itemId = ids.int64(0)
        sortKey = ids.text(1) ?? ""
        return true
    }

    /// The current item. A row deleted since `advance` (impossible on the private, read-only
    /// connection) would be an error, not a skipped item.
    public func message() throws -> ChatMessage {
        try row.reset()
        try row.bind(itemId, at: 1)
        guard try row.step() else { throw ChatReadError.itemVanished(itemId) }
        return try reader.message(row, chat: chat, contactName: contactName, reactions: reactions)
    }

    /// Whether this cursor's item comes before `other`'s in time (ties by chat item id).
    func precedes(_ other: ChatItemCursor) -> Bool {
        sortKey != other.sortKey ? sortKey < other.sortKey : itemId < other.itemId
    }
}
