import Testing
import SXTestSupport
import SXCore

/// The one rule for a previous run's leftovers: settle, refuse, or warn.
@Suite(.ownThreads) struct LeftoverPolicyTests {
    struct Found: OperationLeftovers {
        static let operation = InterruptedOperation.archiveImport
        var journal: String? = "/data/simplex_v1.import-journal"
        var summary = "an interrupted archive import had begun replacing the data in '/data'"
    }

    static let pending = PendingRecovery(Found())

    @Test func nothingLeftOverLetsEveryCommandGoOn() throws {
        #expect(try LeftoverPolicy.check(nil, writes: true) == nil)
        #expect(try LeftoverPolicy.check(nil, writes: false) == nil)
    }

    @Test func aCommandThatWritesRefuses() {
        #expect(throws: Self.pending) { _ = try LeftoverPolicy.check(Self.pending, writes: true) }
    }

    @Test func aCommandThatOnlyReadsGoesOnWithAWarning() throws {
        #expect(try LeftoverPolicy.check(Self.pending, writes: false) == Self.pending)
    }

    @Test func theOperationsOwnRecoveryGoesOnSilently() throws {
        #expect(try LeftoverPolicy.check(Self.pending, writes: true, settles: true) == nil)
        #expect(try LeftoverPolicy.check(Self.pending, writes: false, settles: true) == nil)
    }

    @Test func theRefusalCarriesTheOperationAndItsRecoveryAsARemedy() {
        #expect(Self.pending.operation == .archiveImport)
        #expect(Self.pending.remedy == .recover(.archiveImport))
        #expect(Self.pending.description == "an interrupted archive import had begun replacing the data in '/data'; it must be settled first, and nothing was changed")
        #expect(Self.pending.exitStatus == .failed)
    }
}
