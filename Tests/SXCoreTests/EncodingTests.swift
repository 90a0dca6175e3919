import Foundation
import SXCore
import Testing
import SXTestSupport

@Suite("Hex", .ownThreads)
struct HexTests {
    @Test func encodesLowercase() {
        #expect(Hex.encode([0x00, 0x01, 0x7F, 0x80, 0xAB, 0xFF]) == "00017f80abff")
        #expect(Hex.encode([UInt8]()) == "")
        #expect(Hex.encode(Data([0xDE, 0xAD])) == "dead")
    }

    @Test func decodesEitherCase() {
        #expect(Hex.decode("00017f80abff") == [0x00, 0x01, 0x7F, 0x80, 0xAB, 0xFF])
        #expect(Hex.decode("DEADbeef") == [0xDE, 0xAD, 0xBE, 0xEF])
        #expect(Hex.decode("") == [])
    }

    @Test func invalidInputGivesEmpty() {
        #expect(Hex.decode("abc") == [], "odd length")
        #expect(Hex.decode("zz") == [])
        #expect(Hex.decode("0g") == [])
        #expect(Hex.decode("00 11") == [])
        #expect(Hex.decode("é0") == [])
    }

    @Test func roundTripsEveryByte() {
        let all = [UInt8](0...255)
        #expect(Hex.decode(Hex.encode(all)) == all)
    }
}

@Suite("Base64URL", .ownThreads)
struct Base64URLTests {
    @Test func encodesWithTheURLAlphabetAndPadding() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8=")
        #expect(Base64URL.encode([0xFB, 0xEF, 0xBE]) == "----")
        #expect(Base64URL.encode([0xFF, 0xFF, 0xFF]) == "____")
        #expect(Base64URL.encode(Array("a".utf8)) == "YQ==")
        #expect(Base64URL.encode(Array("ab".utf8)) == "YWI=")
        #expect(Base64URL.encode(Array("abc".utf8)) == "YWJj")
        #expect(Base64URL.encode([UInt8]()) == "")
    }

    @Test func decodesPaddedURLAlphabet() {
        #expect(Base64URL.decode("-_8=") == [0xFB, 0xFF])
        #expect(Base64URL.decode("____") == [0xFF, 0xFF, 0xFF])
        #expect(Base64URL.decode("YQ==") == Array("a".utf8))
        #expect(Base64URL.decode("") == [])
    }

    @Test func rejectsStandardAlphabet() {
        #expect(Base64URL.decode("+/8=") == nil)
        #expect(Base64URL.decode("++++") == nil)
        #expect(Base64URL.decode("////") == nil)
    }

    @Test func rejectsMissingPadding() {
        #expect(Base64URL.decode("-_8") == nil)
        #expect(Base64URL.decode("YQ") == nil)
        #expect(Base64URL.decode("YWI") == nil)
    }

    @Test func rejectsOtherCharactersAndMisplacedPadding() {
        #expect(Base64URL.decode("YQ==\n") == nil)
        #expect(Base64URL.decode("Y Q=") == nil)
        #expect(Base64URL.decode("YQ=A") == nil)
        #expect(Base64URL.decode("=YQA") == nil)
        #expect(Base64URL.decode("Y===") == nil)
    }

    @Test func roundTripsEveryLength() {
        for length in 0..<70 {
            let bytes = [UInt8]((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 97 &+ 251) })
            let text = Base64URL.encode(bytes)
            #expect(text.count % 4 == 0)
            #expect(!text.contains("+") && !text.contains("/"))
            #expect(Base64URL.decode(text) == bytes, "length \(length)")
        }
    }
}

@Suite("SecretBytes", .ownThreads)
struct SecretBytesTests {
    @Test func holdsACopyOfTheBytes() {
        var source: [UInt8] = [1, 2, 3, 4]
        let secret = SecretBytes(source)
        source[0] = 99
        #expect(secret.count == 4)
        #expect(!secret.isEmpty)
        #expect(secret.copyBytes() == [1, 2, 3, 4])
        #expect(secret.withUnsafeBytes { Array($0) } == [1, 2, 3, 4])
    }

    @Test func acceptsSlicesAndOtherCollections() {
        let array: [UInt8] = [9, 8, 7, 6]
        #expect(SecretBytes(array[1..<3]).copyBytes() == [8, 7])
        #expect(SecretBytes(Data([5, 6])).copyBytes() == [5, 6])
        #expect(SecretBytes("pw".utf8).copyBytes() == [0x70, 0x77])
    }

    @Test func emptySecret() {
        let empty = SecretBytes([UInt8]())
        #expect(empty.isEmpty)
        #expect(empty.count == 0)
        #expect(empty.copyBytes() == [])
        #expect(empty.constantTimeEquals(SecretBytes([UInt8]())))
        #expect(!empty.constantTimeEquals(SecretBytes([0])))
    }

    @Test func constantTimeEqualsComparesEveryByte() {
        let a = SecretBytes([1, 2, 3, 4])
        #expect(a.constantTimeEquals(SecretBytes([1, 2, 3, 4])))
        #expect(a.constantTimeEquals(a))
        #expect(!a.constantTimeEquals(SecretBytes([1, 2, 3, 5])), "last byte differs")
        #expect(!a.constantTimeEquals(SecretBytes([0, 2, 3, 4])), "first byte differs")
        #expect(!a.constantTimeEquals(SecretBytes([1, 2, 3])), "shorter")
        #expect(!a.constantTimeEquals(SecretBytes([1, 2, 3, 4, 0])), "longer")
    }

    @Test func fillInitialiserWritesTheBuffer() {
        var seen = -1
        let secret = SecretBytes(count: 5) { buffer in
            seen = buffer.count
            for i in 0..<buffer.count { buffer[i] = UInt8(i * 10) }
        }
        #expect(seen == 5)
        #expect(secret.copyBytes() == [0, 10, 20, 30, 40])
        #expect(SecretBytes(count: 0) { _ in }.isEmpty)
    }

    @Test func wipeZeroesAnArray() {
        var bytes: [UInt8] = [1, 2, 3]
        Wipe.array(&bytes)
        #expect(bytes == [0, 0, 0])
        var empty: [UInt8] = []
        Wipe.array(&empty)
        #expect(empty.isEmpty)
    }
}

@Suite(.ownThreads) struct ByteSizeTests {
    @Test func parsesCoreutilsStyleSizes() {
        #expect(ByteSize.parse("261120") == 261_120)
        #expect(ByteSize.parse("255K") == 261_120)
        #expect(ByteSize.parse("255KiB") == 261_120)
        #expect(ByteSize.parse("500MB") == 500_000_000)
        #expect(ByteSize.parse("1G") == 1 << 30)
        #expect(ByteSize.parse("1.5 GiB") == 1_610_612_736)
        #expect(ByteSize.parse("2tb") == 2_000_000_000_000)
        #expect(ByteSize.parse("") == nil)
        #expect(ByteSize.parse("-5") == nil)
        #expect(ByteSize.parse("12 parsecs") == nil)
        #expect(ByteSize.parse("MB") == nil)
    }
}
