import SXCore

/// The one decision about reading a database: is it there, is it a database, does it need a
/// passphrase. Made from the file's first bytes only (SQLite is not opened), so asking costs nothing
/// and changes nothing; every command that reads a database asks here before it opens it.
public enum ReadAccess: Sendable, Equatable {
    /// Nothing at the path.
    case missing
    /// Plain SQLite: opens without a passphrase (and refuses one).
    case plaintext
    /// Looks like SQLCipher: needs a passphrase.
    case encrypted
    /// Not a database at all, or unreadable: `reason` says which, in words.
    case unusable(reason: String)

    public static func of(_ path: String) -> ReadAccess {
        let kind: DatabaseFileKind
        do {
            kind = try DatabaseFileKind.classify(path: path)
        } catch {
            return .unusable(reason: "it cannot be read: \(error)")
        }
        switch kind {
        case .missing: return .missing
        case .plaintextSQLite: return .plaintext
        case .encryptedOrNotDatabase(looksRandom: true): return .encrypted
        case .empty: return .unusable(reason: "the file is empty (0 bytes)")
        case .notADatabase(let reason): return .unusable(reason: "the file is not a database: \(reason)")
        case .encryptedOrNotDatabase(looksRandom: false):
            return .unusable(reason: "the file is not a database (neither SQLite nor SQLCipher-encrypted)")
        }
    }

    public var needsPassphrase: Bool { self == .encrypted }

    /// Opens `path` without changing a byte of it (immutable, or a private snapshot when it has WAL
    /// frames; see `ReadOnlySnapshot`), runs `body`, and removes the snapshot. `passphrase` nil or
    /// empty opens plain SQLite.
    public static func read<T>(_ path: String, passphrase: SecretBytes?, tempRoot: String? = nil,
                               _ body: (DatabaseConnection, CipherFormat) throws -> T) throws -> T {
        let snapshot = try ReadOnlySnapshot(of: path, tempRoot: tempRoot)
        defer { snapshot.remove() }
        let (db, cipher) = try DatabaseOpener.open(snapshot.databasePath, passphrase: passphrase ?? SecretBytes([]), mode: snapshot.mode)
        return try body(db, cipher)
    }

    /// `read`, with a way to open more connections on the same database (or snapshot) for readers
    /// on other threads; each costs a key derivation. They are closed when `body` returns.
    public static func read<T>(_ path: String, passphrase: SecretBytes?, tempRoot: String? = nil,
                               _ body: (DatabaseConnection, CipherFormat, _ another: () throws -> DatabaseConnection) throws -> T) throws -> T {
        let snapshot = try ReadOnlySnapshot(of: path, tempRoot: tempRoot)
        defer { snapshot.remove() }
        let key = passphrase ?? SecretBytes([])
        let (db, cipher) = try DatabaseOpener.open(snapshot.databasePath, passphrase: key, mode: snapshot.mode)
        return try body(db, cipher) { try DatabaseOpener.open(snapshot.databasePath, passphrase: key, mode: snapshot.mode).0 }
    }
}
