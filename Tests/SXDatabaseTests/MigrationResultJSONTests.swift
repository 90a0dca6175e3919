import Foundation
import SXDatabase
import Testing

/// The exact JSON of FORMATS §5 (keys sorted for comparison), and decoding back.
@Suite("MigrationResultJSON")
struct MigrationResultJSONTests {
    static let cases: [(DBMigrationResult, String)] = [
        (.ok, #"{"type":"ok"}"#),
        (.invalidConfirmation, #"{"type":"invalidConfirmation"}"#),
        (.errorNotADatabase(dbFile: "/d/x_chat.db"), #"{"dbFile":"/d/x_chat.db","type":"errorNotADatabase"}"#),
        (.errorMigration(dbFile: "/d/a.db", migrationError: .upgrade(upMigrations: [UpMigration(upName: "m2", withDown: true),
                                                                                     UpMigration(upName: "m3", withDown: false)])),
         #"{"dbFile":"/d/a.db","migrationError":{"type":"upgrade","upMigrations":[{"upName":"m2","withDown":true},{"upName":"m3","withDown":false}]},"type":"errorMigration"}"#),
        (.errorMigration(dbFile: "/d/a.db", migrationError: .downgrade(downMigrations: ["m4", "m5"])),
         #"{"dbFile":"/d/a.db","migrationError":{"downMigrations":["m4","m5"],"type":"downgrade"},"type":"errorMigration"}"#),
        (.errorMigration(dbFile: "/d/a.db", migrationError: .migrationError(mtrError: .noDown(dbMigrations: ["m4"]))),
         #"{"dbFile":"/d/a.db","migrationError":{"mtrError":{"dbMigrations":["m4"],"type":"noDown"},"type":"migrationError"},"type":"errorMigration"}"#),
        (.errorMigration(dbFile: "/d/a.db", migrationError: .migrationError(mtrError: .different(appMigration: "m2", dbMigration: "x2"))),
         #"{"dbFile":"/d/a.db","migrationError":{"mtrError":{"appMigration":"m2","dbMigration":"x2","type":"different"},"type":"migrationError"},"type":"errorMigration"}"#),
        (.errorSQL(dbFile: "/d/a.db", migrationSQLError: "no such table: q"),
         #"{"dbFile":"/d/a.db","migrationSQLError":"no such table: q","type":"errorSQL"}"#),
        (.errorKeychain, #"{"type":"errorKeychain"}"#),
        (.unknown(json: .object(["backupError": .string("disk full"), "n": .number(2), "ok": .bool(false), "l": .array([.null])])),
         #"{"json":{"backupError":"disk full","l":[null],"n":2,"ok":false},"type":"unknown"}"#),
    ]

    @Test(arguments: 0..<cases.count)
    func encodesExactlyAndDecodesBack(_ index: Int) throws {
        let (value, json) = Self.cases[index]
        #expect(try compactJSON(value) == json)
        #expect(try JSONDecoder().decode(DBMigrationResult.self, from: Data(json.utf8)) == value)
    }

    @Test func anUnknownTypeDecodesAsUnknownHoldingTheObject() throws {
        let decoded = try JSONDecoder().decode(DBMigrationResult.self, from: Data(#"{"type":"errorFuture","x":1}"#.utf8))
        #expect(decoded == .unknown(json: .object(["type": .string("errorFuture"), "x": .number(1)])))
    }

    @Test func planJSONNamesTheWork() throws {
        #expect(try compactJSON(MigrationPlan.nothing) == #"{"type":"nothing"}"#)
        #expect(try compactJSON(MigrationPlan.up([TestMigrations.m1])) == #"{"type":"up","upMigrations":[{"upName":"m1","withDown":false}]}"#)
        #expect(try compactJSON(MigrationPlan.down([AppliedMigration(name: "m2", ts: "t", down: "x")])) == #"{"downMigrations":["m2"],"type":"down"}"#)
        #expect(try compactJSON(MigrationPlan.error(.noDown(dbMigrations: ["m9"]))) == #"{"mtrError":{"dbMigrations":["m9"],"type":"noDown"},"type":"error"}"#)
    }
}
