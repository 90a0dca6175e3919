import SXDatabase
import Testing
import SXTestSupport

/// Every branch of the FORMATS §4 comparison.
@Suite("MigrationPlan", .ownThreads)
struct MigrationPlanTests {
    let m = TestMigrations.self

    func rows(_ names: [(String, String?)]) -> [AppliedMigration] {
        names.map { AppliedMigration(name: $0.0, ts: "2024-01-01 00:00:00", down: $0.1) }
    }

    @Test func sameListsNeedNothing() {
        #expect(MigrationPlan.compare(app: m.all, database: rows([("m1", nil), ("m2", "x"), ("m3", "y")])) == .nothing)
        #expect(MigrationPlan.compare(app: [], database: []) == .nothing)
    }

    @Test func appAheadRunsTheRestUp() {
        #expect(MigrationPlan.compare(app: m.all, database: rows([("m1", nil)])) == .up([m.m2, m.m3]))
        #expect(MigrationPlan.compare(app: m.all, database: []) == .up(m.all))
    }

    @Test func databaseAheadGoesDownWhenEveryExtraHasDownSQL() {
        let db = rows([("m1", nil), ("m2", "DROP TABLE b;"), ("m3", "ALTER …")])
        #expect(MigrationPlan.compare(app: [m.m1], database: db) == .down(Array(db[1...])))
        #expect(MigrationPlan.compare(app: [m.m1], database: db).pendingWork == .downgrade(downMigrations: ["m2", "m3"]))
    }

    @Test func databaseAheadWithoutDownSQLIsNoDownListingOnlyThose() {
        let db = rows([("m1", nil), ("m2", nil), ("m3", "x"), ("m4", nil)])
        #expect(MigrationPlan.compare(app: [m.m1], database: db) == .error(.noDown(dbMigrations: ["m2", "m4"])))
    }

    @Test func firstDifferingNameIsDifferent() {
        let db = rows([("m1", nil), ("m2x", "x"), ("m3", "y")])
        #expect(MigrationPlan.compare(app: m.all, database: db) == .error(.different(appMigration: "m2", dbMigration: "m2x")))
        // A difference wins over a length difference after it.
        #expect(MigrationPlan.compare(app: [m.m2], database: rows([("m1", nil)])) == .error(.different(appMigration: "m2", dbMigration: "m1")))
    }

    @Test func namesCompareAsBytesNotAsCanonicallyEquivalentStrings() {
        // "é" precomposed vs "e" + combining accent: equal to Swift's ==, different to SQLite.
        let app = [Migration(name: "caf\u{E9}", up: "")]
        let plan = MigrationPlan.compare(app: app, database: rows([("cafe\u{301}", nil)]))
        #expect(plan == .error(.different(appMigration: "caf\u{E9}", dbMigration: "cafe\u{301}")))
    }

    @Test func pendingWorkDescribesUpsWithTheirDown() {
        #expect(MigrationPlan.compare(app: m.all, database: []).pendingWork
                == .upgrade(upMigrations: [UpMigration(upName: "m1", withDown: false), UpMigration(upName: "m2", withDown: true),
                                          UpMigration(upName: "m3", withDown: true)]))
        #expect(MigrationPlan.nothing.pendingWork == nil)
    }

    @Test func builtInListsAreStrictlyOrderedByName() {
        for role in DatabaseRole.allCases {
            #expect(MigrationName.strictlyIncreasing(role.builtInMigrations.map(\.name)), "\(role)")
        }
    }
}
