import Foundation
import SXCore
import SXTestSupport
import Testing

@Suite("Comparing two files byte for byte", .ownThreads)
struct FileComparisonTests {
    /// Bytes over several 1 MiB reads, so that a difference past the first read is seen.
    static let bytes = (0..<((3 << 20) + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 12) }

    @Test func sameBytesAreIdenticalAndAnyChangeIsNot() throws {
        let tmp = try TempFolder("sxkit-compare")
        let a = try tmp.write("a", Self.bytes)
        #expect(try FileComparison.identical(a, try tmp.write("b", Self.bytes)))
        #expect(try FileComparison.identical(a, a))
        for position in [0, 1 << 20, Self.bytes.count - 1] {
            var changed = Self.bytes
            changed[position] ^= 0x80
            #expect(try !FileComparison.identical(a, try tmp.write("c\(position)", changed)), "a change at \(position) went unseen")
        }
        #expect(try !FileComparison.identical(a, try tmp.write("short", Array(Self.bytes.dropLast()))))
        #expect(try !FileComparison.identical(a, try tmp.write("empty", [])))
        #expect(try FileComparison.identical(try tmp.write("e1", []), try tmp.write("e2", [])))
        try FileManager.default.createDirectory(atPath: tmp.file("folder"), withIntermediateDirectories: true)
        #expect(try !FileComparison.identical(a, tmp.file("folder")))
        #expect(throws: FileSystemError.self) { try FileComparison.identical(a, tmp.file("missing")) }
    }
}
