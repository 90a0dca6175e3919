import Foundation
import SXDatabase
import Testing
import SXTestSupport

/// DBMigrationResult as the core writes it: the example lines of the extraction notes
/// (migrations_engine.md §(f), derived from simplexmq `Parsers.hs:120-129` and simplex-chat `Mobile.hs`),
/// byte for byte through `coreJSON`, and the same values through Codable (keys sorted for comparison).
@Suite("MigrationResultJSON", .ownThreads)
struct MigrationResultJSONTests {
    static let chat = "/data/simplex_v1_chat.db"
    static let agent = "/data/simplex_v1_agent.db"

    static let cases: [(DBMigrationResult, core: String, sorted: String)] = [
        (.ok, #"{"type":"ok"}"#, #"{"type":"ok"}"#),
        (.invalidConfirmation, #"{"type":"invalidConfirmation"}"#, #"{"type":"invalidConfirmation"}"#),
        (.errorNotADatabase(dbFile: chat),
         #"{"type":"errorNotADatabase","dbFile":"/data/simplex_v1_chat.db"}"#,
         #"{"dbFile":"/data/simplex_v1_chat.db","type":"errorNotADatabase"}"#),
        (.errorMigration(dbFile: chat, migrationError: .upgrade(upMigrations: [
            UpMigration(upName: "20260515_public_group_access", withDown: true), UpMigration(upName: "20260516_supporter_badges", withDown: true)])),
         #"{"type":"errorMigration","dbFile":"/data/simplex_v1_chat.db","migrationError":{"type":"upgrade","upMigrations":[{"upName":"20260515_public_group_access","withDown":true},{"upName":"20260516_supporter_badges","withDown":true}]}}"#,
         #"{"dbFile":"/data/simplex_v1_chat.db","migrationError":{"type":"upgrade","upMigrations":[{"upName":"20260515_public_group_access","withDown":true},{"upName":"20260516_supporter_badges","withDown":true}]},"type":"errorMigration"}"#),
        (.errorMigration(dbFile: agent, migrationError: .downgrade(downMigrations: ["m20260410_receive_attempts"])),
         #"{"type":"errorMigration","dbFile":"/data/simplex_v1_agent.db","migrationError":{"type":"downgrade","downMigrations":["m20260410_receive_attempts"]}}"#,
         #"{"dbFile":"/data/simplex_v1_agent.db","migrationError":{"downMigrations":["m20260410_receive_attempts"],"type":"downgrade"},"type":"errorMigration"}"#),
        (.errorMigration(dbFile: chat, migrationError: .migrationError(mtrError: .noDown(dbMigrations: ["20230303_group_link_role"]))),
         #"{"type":"errorMigration","dbFile":"/data/simplex_v1_chat.db","migrationError":{"type":"migrationError","mtrError":{"type":"noDown","dbMigrations":["20230303_group_link_role"]}}}"#,
         #"{"dbFile":"/data/simplex_v1_chat.db","migrationError":{"mtrError":{"dbMigrations":["20230303_group_link_role"],"type":"noDown"},"type":"migrationError"},"type":"errorMigration"}"#),
        (.errorMigration(dbFile: chat, migrationError: .migrationError(mtrError: .different(appMigration: "20260602_group_roster", dbMigration: "20260601_group_roster"))),
         #"{"type":"errorMigration","dbFile":"/data/simplex_v1_chat.db","migrationError":{"type":"migrationError","mtrError":{"type":"different","appMigration":"20260602_group_roster","dbMigration":"20260601_group_roster"}}}"#,
         #"{"dbFile":"/data/simplex_v1_chat.db","migrationError":{"mtrError":{"appMigration":"20260602_group_roster","dbMigration":"20260601_group_roster","type":"different"},"type":"migrationError"},"type":"errorMigration"}"#),
        (.errorSQL(dbFile: chat, migrationSQLError: "SQLite3 returned ErrorConstraint"),
         #"{"type":"errorSQL","dbFile":"/data/simplex_v1_chat.db","migrationSQLError":"SQLite3 returned ErrorConstraint"}"#,
         #"{"dbFile":"/data/simplex_v1_chat.db","migrationSQLError":"SQLite3 returned ErrorConstraint","type":"errorSQL"}"#),
    ]

    @Test(arguments: 0..<cases.count)
    func writesTheCoresBytesAndRoundTrips(_ index: Int) throws {
        let (value, core, sorted) = Self.cases[index]
        #expect(value.coreJSON == core)
        #expect(try compactJSON(value) == sorted)
        #expect(try JSONDecoder().decode(DBMigrationResult.self, from: Data(core.utf8)) == value)
    }

    @Test func stringsAreEscapedAsAesonEscapesThem() {
        let message = "quote \" backslash \\ slash / tab \t nl \n cr \r bell \u{07} esc \u{1B} del \u{7F} é 😀"
        #expect(DBMigrationResult.errorSQL(dbFile: "/d/x.db", migrationSQLError: message).coreJSON
                == #"{"type":"errorSQL","dbFile":"/d/x.db","migrationSQLError":"quote \" backslash \\ slash / tab \t nl \n cr \r bell \u0007 esc \u001b del "# + "\u{7F} é 😀\"}")
    }

    @Test func theAppsOwnCasesAreNotTheCoresAndDoNotDecode() {
        for type in ["errorKeychain", "unknown", "agentError"] {
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(DBMigrationResult.self, from: Data(#"{"type":"\#(type)"}"#.utf8))
            }
        }
    }

    @Test func planJSONNamesTheWork() throws {
        #expect(try compactJSON(MigrationPlan.nothing) == #"{"type":"nothing"}"#)
        #expect(try compactJSON(MigrationPlan.up([TestMigrations.m1])) == #"{"type":"up","upMigrations":[{"upName":"m1","withDown":false}]}"#)
        #expect(try compactJSON(MigrationPlan.down([AppliedMigration(name: "m2", ts: "t", down: "x")])) == #"{"downMigrations":["m2"],"type":"down"}"#)
        #expect(try compactJSON(MigrationPlan.error(.noDown(dbMigrations: ["m9"]))) == #"{"mtrError":{"dbMigrations":["m9"],"type":"noDown"},"type":"error"}"#)
    }
}
