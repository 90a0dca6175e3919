import Testing
import SXTestSupport
@testable import SXXFTP

@Suite(.ownThreads) struct XFTPBlockTests {
    @Test func padWritesLengthContentAndHashes() throws {
        let block = try XFTPBlock.pad([0x41, 0x42])
        #expect(block.count == 16_384)
        #expect(Array(block.prefix(4)) == [0x00, 0x02, 0x41, 0x42])
        #expect(block.dropFirst(4).allSatisfy { $0 == 0x23 })
        #expect(try XFTPBlock.unpad(block) == [0x41, 0x42])
    }
}
