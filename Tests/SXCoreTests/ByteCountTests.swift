import SXCore
import Testing
import SXTestSupport

@Suite("ByteCount", .ownThreads)
struct ByteCountTests {
    @Test func bytesBelowOneKiB() {
        #expect(ByteCount.format(0) == "0 B")
        #expect(ByteCount.format(1) == "1 B")
        #expect(ByteCount.format(1023) == "1023 B")
    }

    @Test func binaryUnitsWithTwoDecimalsBelowTenAndOneAbove() {
        #expect(ByteCount.format(1024) == "1.00 KiB")
        #expect(ByteCount.format(1536) == "1.50 KiB")
        #expect(ByteCount.format(10 * 1024) == "10.0 KiB")
        #expect(ByteCount.format(1_048_576) == "1.00 MiB")
        #expect(ByteCount.format(261_120) == "255.0 KiB")
        #expect(ByteCount.format(3 * 1_073_741_824 / 2) == "1.50 GiB")
        #expect(ByteCount.format(5 * 1_099_511_627_776) == "5.00 TiB")
    }

    @Test func tebibytesIsTheLargestUnit() {
        #expect(ByteCount.format(2048 * 1_099_511_627_776) == "2048.0 TiB")
    }

    @Test func negativeCounts() {
        #expect(ByteCount.format(-5) == "-5 B")
        #expect(ByteCount.format(-2048) == "-2.00 KiB")
    }
}
