import Foundation
import SXCore
import Testing
import SXTestSupport

@Suite("JSONText", .ownThreads)
struct JSONTextTests {
    @Test func plainTextIsQuoted() {
        #expect(JSONText.quote("") == "\"\"")
        #expect(JSONText.quote("abc") == "\"abc\"")
    }

    @Test func quotesBackslashesAndCommonControlsAreEscaped() {
        #expect(JSONText.quote("a\"b") == #""a\"b""#)
        #expect(JSONText.quote("a\\b") == #""a\\b""#)
        #expect(JSONText.quote("1\n2\r3\t4") == #""1\n2\r3\t4""#)
    }

    @Test func otherControlCharactersUseUnicodeEscapes() {
        #expect(JSONText.quote("\u{00}") == #""\u0000""#)
        #expect(JSONText.quote("\u{01}\u{1F}") == #""\u0001\u001f""#)
        #expect(JSONText.quote("\u{08}\u{0C}") == #""\u0008\u000c""#)
        #expect(JSONText.quote("\u{7F}") == "\"\u{7F}\"", "DEL needs no escape in JSON")
    }

    @Test func nonASCIIIsKeptAsIs() {
        #expect(JSONText.quote("café ☕️ 🔑 пароль") == "\"café ☕️ 🔑 пароль\"")
        #expect(JSONText.quote("/slash") == "\"/slash\"")
    }

    @Test func outputParsesBackToTheSameString() throws {
        let original = "q\"b\\s/\n\r\t\u{00}\u{07}\u{1B}[0m é 🔑 \u{2028}"
        let document = "[" + JSONText.quote(original) + "]"
        let parsed = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String]
        #expect(parsed == [original])
    }
}
