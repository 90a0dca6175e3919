import SXCore
import Testing
import SXTestSupport

/// File names as bytes carried in Strings: one to one, and shown escaped.
@Suite(.ownThreads)
struct FileNameBytesTests {
    @Test(arguments: [
        Array("plain.jpg".utf8), Array("café.jpg".utf8), [0x63, 0x61, 0x66, 0xE9, 0x2E, 0x6A],
        [0xFF, 0xFE, 0x80], [0xC3], [0xE2, 0x82], Array("\u{EFE9}x".utf8), [0xEE, 0xBF, 0xA9, 0xE9], [0xF0, 0x9F, 0x98, 0x80, 0xC0, 0xAF],
    ])
    func everyByteStringComesBackExactly(bytes: [UInt8]) {
        let carried = FileNameBytes.string(bytes)
        #expect(FileNameBytes.bytes(carried) == bytes)
        let valid = String(validating: bytes, as: UTF8.self)
        #expect(FileNameBytes.hasRawBytes(carried) == (valid == nil || valid!.unicodeScalars.contains(where: FileNameBytes.isEscape)))
    }

    @Test func aLatin1NameIsShownEscaped() {
        let carried = FileNameBytes.string(Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        #expect(carried != "caf\u{FFFD}.jpg")
        #expect(FileNameBytes.display(carried) == "caf\\xE9.jpg")
        #expect(JSONText.quote(carried) == "\"caf\\\\xE9.jpg\"")
        #expect(FileNameBytes.display("café.jpg") == "café.jpg")
    }
}
