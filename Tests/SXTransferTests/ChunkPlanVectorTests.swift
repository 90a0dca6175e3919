import Foundation
import Testing
import SXTestSupport
@testable import SXTransfer

/// chunk_plan.json pins the plan for every interesting total (every row must pass).
@Suite(.ownThreads)
struct ChunkPlanVectorTests {
    struct Row: Decodable {
        let total: Int64
        let small: Int64
        let big: Int64
        let count: Int
        let enc_size: Int64
        let sizes: [Int64]
    }
    struct Rows: Decodable { let rows: [Row] }

    @Test("every row of chunk_plan.json is reproduced")
    func everyRow() throws {
        let data = try #require(try? Data(contentsOf: URL(fileURLWithPath: VectorFiles.path("chunk_plan.json"))),
                                "cannot read \(VectorFiles.path("chunk_plan.json"))")
        let rows = try JSONDecoder().decode(Rows.self, from: data).rows
        #expect(rows.count > 20)
        for row in rows {
            let plan = ChunkPlan(total: row.total)
            #expect(plan.small == row.small, "total \(row.total)")
            #expect(plan.big == row.big, "total \(row.total)")
            #expect(plan.sizes == row.sizes, "total \(row.total)")
            #expect(plan.count == row.count, "total \(row.total)")
            #expect(plan.encryptedSize == row.enc_size, "total \(row.total)")
        }
    }

    @Test("offsets are the running sum of the sizes")
    func offsets() {
        let plan = ChunkPlan(total: 300_000 + 30)
        #expect(plan.offsets == [0, 262_144])
    }
}
