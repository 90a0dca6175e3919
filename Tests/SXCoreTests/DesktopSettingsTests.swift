import Foundation
import SXCore
import SXTestSupport
import Testing

@Suite("DesktopSettings", .ownThreads)
struct DesktopSettingsTests {
    @Test func parsesWhatPropertiesStoreWrites() {
        // The shape of a real settings.properties: a date comment, escaped `=` and `:` in values.
        let text = """
        #Settings
        #Mon Jan 15 10:00:00 CET 2024
        EncryptedDBPassphrase=c2VjcmV0IHBhc3M\\=
        SocksProxy=localhost\\:9050
        url=https\\://example.com/a\\=b
        """
        let p = DesktopSettings.properties(text)
        #expect(p == ["EncryptedDBPassphrase": "c2VjcmV0IHBhc3M=",
                      "SocksProxy": "localhost:9050",
                      "url": "https://example.com/a=b"])
    }

    @Test func commentsAndBlankLinesAreSkipped() {
        let p = DesktopSettings.properties("# a=1\n! b=2\n\n   \n  # c=3\nd=4\n")
        #expect(p == ["d": "4"])
    }

    @Test func separatorsColonSpaceAndEquals() {
        let p = DesktopSettings.properties("a=1\nb: 2\nc 3\nd = 4\ne\t:\t5\nf =  spaced value  \ng\n")
        #expect(p["a"] == "1")
        #expect(p["b"] == "2")
        #expect(p["c"] == "3")
        #expect(p["d"] == "4")
        #expect(p["e"] == "5")
        #expect(p["f"] == "spaced value  ", "only leading white space of a value is dropped")
        #expect(p["g"] == "", "a key alone has an empty value")
    }

    @Test func onlyTheFirstSeparatorSplits() {
        let p = DesktopSettings.properties("a=b=c\nx:y:z\n")
        #expect(p["a"] == "b=c")
        #expect(p["x"] == "y:z")
    }

    @Test func escapesInKeysAndValues() {
        let p = DesktopSettings.properties("my\\ key\\=x=tab\\there\\nnext\\\\end\n")
        #expect(p == ["my key=x": "tab\there\nnext\\end"])
    }

    @Test func continuationLinesJoinAndLoseTheirLeadingWhiteSpace() {
        let text = "fruits = apple, \\\n    banana, \\\n\tpear\nafter=1\n"
        let p = DesktopSettings.properties(text)
        #expect(p["fruits"] == "apple, banana, pear")
        #expect(p["after"] == "1")
    }

    @Test func continuationLineStartingWithHashIsNotAComment() {
        let p = DesktopSettings.properties("k=a\\\n#b\n")
        #expect(p["k"] == "a#b")
    }

    @Test func evenTrailingBackslashesDoNotContinue() {
        let p = DesktopSettings.properties("path=C\\:\\\\\nnext=1\n")
        #expect(p["path"] == "C:\\")
        #expect(p["next"] == "1")
    }

    @Test func windowsAndOldMacLineEndings() {
        #expect(DesktopSettings.properties("a=1\r\nb=2\r\n") == ["a": "1", "b": "2"])
        #expect(DesktopSettings.properties("a=1\rb=2") == ["a": "1", "b": "2"])
    }

    @Test func laterDuplicateKeyWins() {
        #expect(DesktopSettings.properties("k=1\nk=2\n")["k"] == "2")
    }

    @Test func storedPassphraseDecodesBase64() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("settings.properties", "#Settings\nappLanguage=en\nEncryptedDBPassphrase=c2VjcmV0IHBhc3M\\=\n")
        let secret = try #require(try DesktopSettings.storedPassphrase(at: path))
        #expect(String(decoding: secret.copyBytes(), as: UTF8.self) == "secret pass")
    }

    @Test func storedPassphraseKeepsNonASCIIBytes() throws {
        let tmp = try TempFolder()
        let bytes: [UInt8] = Array("пароль".utf8) + [0x00, 0xFF]
        let path = try tmp.writeText("settings.properties", "EncryptedDBPassphrase=" + Data(bytes).base64EncodedString() + "\n")
        #expect(try DesktopSettings.storedPassphrase(at: path)?.copyBytes() == bytes)
    }

    @Test func absentKeyOrEmptyValueOrMissingFileGivesNil() throws {
        let tmp = try TempFolder()
        let noKey = try tmp.writeText("a.properties", "appLanguage=en\n# EncryptedDBPassphrase=c2VjcmV0IHBhc3M\\=\n")
        let empty = try tmp.writeText("b.properties", "EncryptedDBPassphrase=\n")
        #expect(try DesktopSettings.storedPassphrase(at: noKey) == nil)
        #expect(try DesktopSettings.storedPassphrase(at: empty) == nil)
        #expect(try DesktopSettings.storedPassphrase(at: tmp.root + "/missing.properties") == nil)
    }

    @Test func invalidBase64IsAPassphraseErrorNamingTheFile() throws {
        let tmp = try TempFolder()
        let path = try tmp.writeText("settings.properties", "EncryptedDBPassphrase=not*base64!\n")
        let error = #expect(throws: PassphraseError.self) { try DesktopSettings.storedPassphrase(at: path) }
        #expect(error?.message.contains(path) == true)
        #expect(error?.message.contains("EncryptedDBPassphrase") == true)
    }
}
