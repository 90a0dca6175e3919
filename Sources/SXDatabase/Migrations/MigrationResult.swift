/// The outcome of migrating one database, as the chat core reports it: simplex-chat
/// `src/Simplex/Chat/Mobile.hs` `DBMigrationResult` (lines 70-79 @00402ac; the same five constructors in
/// the stable 6.5 build @1df5e8b), derived with `sumTypeJSON $ dropPrefix "DBM"`, so an object tagged by
/// `"type"`. The apps' own `errorKeychain` and `unknown {json}` are theirs (iOS/Android code around the
/// core), never emitted by the core, so sxkit neither emits nor reads them; nor upstream master's later
/// `agentError`.
public enum DBMigrationResult: Sendable, Equatable, Codable {
    case ok
    /// The confirmation mode was not one of `yesUp`, `yesUpDown`, `console`, `error` (the core's
    /// `strDecode` failed; sxkit also says so for `console` without a way to ask).
    case invalidConfirmation
    /// The file could not be opened as a database: wrong passphrase, not a database, or missing.
    case errorNotADatabase(dbFile: String)
    /// Nothing was run: the work needs a confirmation that was not given, or the lists disagree.
    case errorMigration(dbFile: String, migrationError: MigrationError)
    /// Anything else that went wrong (the core's catch-all: `show` of the exception): a migration's SQL
    /// failed (rolled back; the ones before it stay applied), the backup could not be written (nothing
    /// was run), or sxkit lacks an up migration's SQL (nothing was run).
    case errorSQL(dbFile: String, migrationSQLError: String)

    private enum Key: String, CodingKey {
        case type, dbFile, migrationError, migrationSQLError
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .ok:
            try c.encode("ok", forKey: .type)
        case .invalidConfirmation:
            try c.encode("invalidConfirmation", forKey: .type)
        case .errorNotADatabase(let dbFile):
            try c.encode("errorNotADatabase", forKey: .type)
            try c.encode(dbFile, forKey: .dbFile)
        case .errorMigration(let dbFile, let migrationError):
            try c.encode("errorMigration", forKey: .type)
            try c.encode(dbFile, forKey: .dbFile)
            try c.encode(migrationError, forKey: .migrationError)
        case .errorSQL(let dbFile, let migrationSQLError):
            try c.encode("errorSQL", forKey: .type)
            try c.encode(dbFile, forKey: .dbFile)
            try c.encode(migrationSQLError, forKey: .migrationSQLError)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "ok": self = .ok
        case "invalidConfirmation": self = .invalidConfirmation
        case "errorNotADatabase": self = .errorNotADatabase(dbFile: try c.decode(String.self, forKey: .dbFile))
        case "errorMigration":
            self = .errorMigration(dbFile: try c.decode(String.self, forKey: .dbFile),
                                   migrationError: try c.decode(MigrationError.self, forKey: .migrationError))
        case "errorSQL":
            self = .errorSQL(dbFile: try c.decode(String.self, forKey: .dbFile),
                             migrationSQLError: try c.decode(String.self, forKey: .migrationSQLError))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "'\(type)' is not a type the core's DBMigrationResult has")
        }
    }

    public var isOK: Bool { self == .ok }

    /// The JSON text exactly as the core's `J.encode` writes it (see `CoreJSON`), e.g.
    /// `{"type":"errorNotADatabase","dbFile":"/data/simplex_v1_chat.db"}`.
    public var coreJSON: String { tree.text }

    var tree: CoreJSON {
        switch self {
        case .ok: .object([("type", .string("ok"))])
        case .invalidConfirmation: .object([("type", .string("invalidConfirmation"))])
        case .errorNotADatabase(let dbFile): .object([("type", .string("errorNotADatabase")), ("dbFile", .string(dbFile))])
        case .errorMigration(let dbFile, let error):
            .object([("type", .string("errorMigration")), ("dbFile", .string(dbFile)), ("migrationError", error.tree)])
        case .errorSQL(let dbFile, let message):
            .object([("type", .string("errorSQL")), ("dbFile", .string(dbFile)), ("migrationSQLError", .string(message))])
        }
    }
}

/// Why migrations were not run: simplexmq `src/Simplex/Messaging/Agent/Store/Shared.hs:53-57` (JSON `:101`,
/// `sumTypeJSON $ dropPrefix "ME"`; the third constructor keeps its name, first letter lowered).
public enum MigrationError: Sendable, Equatable, Codable {
    /// Up migrations are pending and were not confirmed.
    case upgrade(upMigrations: [UpMigration])
    /// The database has migrations the app does not know, and reverting them was not confirmed.
    /// Names in the database's (ascending) order; they would be reverted last first.
    case downgrade(downMigrations: [String])
    /// The two lists cannot be reconciled.
    case migrationError(mtrError: MTRError)

    private enum Key: String, CodingKey {
        case type, upMigrations, downMigrations, mtrError
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .upgrade(let ups):
            try c.encode("upgrade", forKey: .type)
            try c.encode(ups, forKey: .upMigrations)
        case .downgrade(let downs):
            try c.encode("downgrade", forKey: .type)
            try c.encode(downs, forKey: .downMigrations)
        case .migrationError(let error):
            try c.encode("migrationError", forKey: .type)
            try c.encode(error, forKey: .mtrError)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "upgrade": self = .upgrade(upMigrations: try c.decode([UpMigration].self, forKey: .upMigrations))
        case "downgrade": self = .downgrade(downMigrations: try c.decode([String].self, forKey: .downMigrations))
        case "migrationError": self = .migrationError(mtrError: try c.decode(MTRError.self, forKey: .mtrError))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown MigrationError type '\(type)'")
        }
    }

    var tree: CoreJSON {
        switch self {
        case .upgrade(let ups): .object([("type", .string("upgrade")), ("upMigrations", .array(ups.map(\.tree)))])
        case .downgrade(let names): .object([("type", .string("downgrade")), ("downMigrations", .array(names.map(CoreJSON.string)))])
        case .migrationError(let error): .object([("type", .string("migrationError")), ("mtrError", error.tree)])
        }
    }
}

/// One pending up migration, and whether it could later be reverted: simplexmq `Shared.hs:69-70`
/// (JSON `:99`, a plain record).
public struct UpMigration: Sendable, Equatable, Codable {
    public var upName: String
    public var withDown: Bool

    public init(upName: String, withDown: Bool) {
        self.upName = upName
        self.withDown = withDown
    }

    public init(_ migration: Migration) {
        self.init(upName: migration.name, withDown: migration.hasDown)
    }

    var tree: CoreJSON { .object([("upName", .string(upName)), ("withDown", .bool(withDown))]) }
}

/// Why the app's list and the database's list cannot be reconciled: simplexmq `Shared.hs:43-46`
/// (JSON `:97`, `sumTypeJSON $ dropPrefix "MTRE"`).
public enum MTRError: Sendable, Equatable, Codable {
    /// The database has migrations the app does not know, and these of them have no down SQL.
    case noDown(dbMigrations: [String])
    /// At the first position where the lists differ, the app has `appMigration`, the database `dbMigration`.
    case different(appMigration: String, dbMigration: String)

    private enum Key: String, CodingKey {
        case type, dbMigrations, appMigration, dbMigration
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: Key.self)
        switch self {
        case .noDown(let names):
            try c.encode("noDown", forKey: .type)
            try c.encode(names, forKey: .dbMigrations)
        case .different(let app, let db):
            try c.encode("different", forKey: .type)
            try c.encode(app, forKey: .appMigration)
            try c.encode(db, forKey: .dbMigration)
        }
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "noDown": self = .noDown(dbMigrations: try c.decode([String].self, forKey: .dbMigrations))
        case "different":
            self = .different(appMigration: try c.decode(String.self, forKey: .appMigration),
                              dbMigration: try c.decode(String.self, forKey: .dbMigration))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown MTRError type '\(type)'")
        }
    }

    var tree: CoreJSON {
        switch self {
        case .noDown(let names): .object([("type", .string("noDown")), ("dbMigrations", .array(names.map(CoreJSON.string)))])
        case .different(let app, let db):
            .object([("type", .string("different")), ("appMigration", .string(app)), ("dbMigration", .string(db))])
        }
    }
}
