import Testing
import SXTestSupport
@testable import SXCrypto

/// The header's name and extra text are read as SimpleX reads them (simplexmq `FileHeader`,
/// `Types.hs` 66-71: `safeDecodeUtf8`, each stray byte a '?'); bytes written out by hand.
@Suite(.ownThreads) struct TransferFileHeaderTests {
    private func parse(_ bytes: [UInt8]) -> TransferFileHeader.Parse { TransferFileHeader.parse(bytes[...]) }

    @Test func utf8NamesAreReadAsTheyAre() throws {
        // "日本語.txt": 3 characters of 3 bytes and ".txt", 13 bytes after the length byte, then '0'.
        let name: [UInt8] = [0xE6, 0x97, 0xA5, 0xE6, 0x9C, 0xAC, 0xE8, 0xAA, 0x9E, 0x2E, 0x74, 0x78, 0x74]
        #expect(parse([UInt8(name.count)] + name + [0x30]) == .complete(try TransferFileHeader(name: "日本語.txt"), length: 15))
        #expect(try TransferFileHeader(name: "日本語.txt").bytes == [UInt8(name.count)] + name + [0x30])
    }

    @Test func strayBytesBecomeQuestionMarks() throws {
        // "caf" 0xE9 ".jpg": Latin-1 é, as an old SimpleX (String through Char8) wrote it.
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A, 0x70, 0x67]
        #expect(parse([8] + latin1 + [0x30]) == .complete(try TransferFileHeader(name: "caf?.jpg"), length: 10))
        // A sequence cut short: each of its bytes is a '?'; then the extra text, also lenient.
        let cut: [UInt8] = [0x61, 0xE6, 0x97]
        let extra: [UInt8] = [0xFF, 0x62]
        #expect(parse([3] + cut + [0x31, 2] + extra) == .complete(try TransferFileHeader(name: "a??", extra: "?b"), length: 8))
    }
}
