/// The outcome of migrating one database, in the JSON of FORMATS §5: an object tagged by `"type"`.
/// Equal in shape to what the chat core's migration API returns, so scripts can consume either.
public enum DBMigrationResult: Sendable, Equatable, Codable {
    case ok
    /// The confirmation mode was not one of `yesUp`, `yesUpDown`, `error`, `console` (or `console`
    /// without a way to ask).
    case invalidConfirmation
    /// The file could not be opened as a database: wrong passphrase, not a database, or missing.
    case errorNotADatabase(dbFile: String)
    /// Nothing was run: the work needs a confirmation that was not given, or the lists disagree.
    case errorMigration(dbFile: String, migrationError: MigrationError)
    /// A migration's SQL failed; that migration was rolled back, the ones before it stay applied.
    case errorSQL(dbFile: String, migrationSQLError: String)
    /// Never produced by sxkit (it keeps no keychain); decoded for completeness.
    case errorKeychain
    /// Anything the other cases cannot express; `json` says what.
    case unknown(json: JSONValue)

    private enum Key: String, CodingKey {
        case type, dbFile, migrationError, migrationSQLError, json
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
        case .errorKeychain:
            try c.encode("errorKeychain", forKey: .type)
        case .unknown(let json):
            try c.encode("unknown", forKey: .type)
            try c.encode(json, forKey: .json)
        }
    }

    /// A `type` this version does not know becomes `unknown` holding the whole object, rather than
    /// failing: newer producers may add cases.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: Key.self)
        switch try c.decode(String.self, forKey: .type) {
        case "ok": self = .ok
        case "invalidConfirmation": self = .invalidConfirmation
        case "errorNotADatabase": self = .errorNotADatabase(dbFile: try c.decode(String.self, forKey: .dbFile))
        case "errorMigration":
            self = .errorMigration(dbFile: try c.decode(String.self, forKey: .dbFile),
                                   migrationError: try c.decode(MigrationError.self, forKey: .migrationError))
        case "errorSQL":
            self = .errorSQL(dbFile: try c.decode(String.self, forKey: .dbFile),
                             migrationSQLError: try c.decode(String.self, forKey: .migrationSQLError))
        case "errorKeychain": self = .errorKeychain
        case "unknown": self = .unknown(json: try c.decode(JSONValue.self, forKey: .json))
        default: self = .unknown(json: try JSONValue(from: decoder))
        }
    }

    public var isOK: Bool { self == .ok }
}

/// Why migrations were not run (FORMATS §5).
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
}

/// One pending up migration, and whether it could later be reverted.
public struct UpMigration: Sendable, Equatable, Codable {
    public var upName: String
    public var withDown: Bool

    public init(upName: String, withDown: Bool) {
        self.upName = upName
        self.withDown = withDown
    }

    public init(_ migration: Migration) {
        self.init(upName: migration.name, withDown: migration.down != nil)
    }
}

/// Why the app's list and the database's list cannot be reconciled (FORMATS §4, §5).
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
}
