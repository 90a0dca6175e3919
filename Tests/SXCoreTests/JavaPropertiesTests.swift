import Foundation
import SXCore
import Testing
import SXTestSupport

/// Editing a properties file byte for byte: one key's value replaced or the key removed, every other
/// byte as it was, values escaped as `Properties.store` escapes them.
@Suite("JavaProperties", .ownThreads)
struct JavaPropertiesTests {
    func edited(_ text: String, _ edit: (inout JavaProperties) -> Void) -> String {
        var file = JavaProperties(bytes: Array(text.utf8))
        edit(&file)
        return String(decoding: file.bytes, as: UTF8.self)
    }

    @Test func replacingAValueKeepsEveryOtherByte() {
        let text = "#\n#Tue Nov 24 10:46:02 UTC 2026\nappLanguage=en\nEncryptedDBPassphrase=b2xk\\=\n  # indented comment\nSocksProxy=localhost\\:9050\n"
        #expect(edited(text) { $0.replaceValue(of: "EncryptedDBPassphrase", with: "bmV3IG9uZQ==") }
                == "#\n#Tue Nov 24 10:46:02 UTC 2026\nappLanguage=en\nEncryptedDBPassphrase=bmV3IG9uZQ\\=\\=\n  # indented comment\nSocksProxy=localhost\\:9050\n")
    }

    @Test func theKeysOwnSpellingSeparatorAndLineEndStay() {
        #expect(edited("a = 1\r\nk : old\r\nz=2") { $0.replaceValue(of: "k", with: "new") } == "a = 1\r\nk : new\r\nz=2")
        #expect(edited("k\told\rz=2\r") { $0.replaceValue(of: "k", with: "new") } == "k\tnew\rz=2\r")
        #expect(edited("k=\nz=2\n") { $0.replaceValue(of: "k", with: "v") } == "k=v\nz=2\n")
        #expect(edited("k\nz=2\n") { $0.replaceValue(of: "k", with: "v") } == "k=v\nz=2\n", "a bare key gets a separator")
        #expect(edited("k=v") { $0.replaceValue(of: "missing", with: "x") } == "k=v", "a missing key is not added")
    }

    @Test func aBareKeyEndingInABackslashAtTheEndOfTheFileGetsItsValueAfterTheKey() {
        // Properties.load drops the trailing backslash; the value used to go after it and be escaped into the key.
        #expect(edited("k\\") { $0.replaceValue(of: "k", with: "v") } == "k=v")
        #expect(edited("a=1\nEncryptedDBPassphrase\\") { $0.replaceValue(of: "EncryptedDBPassphrase", with: "bmV3") } == "a=1\nEncryptedDBPassphrase=bmV3")
        var file = JavaProperties(bytes: Array("EncryptedDBPassphrase\\".utf8))
        file.replaceValue(of: "EncryptedDBPassphrase", with: "bmV3")
        #expect(file.value("EncryptedDBPassphrase") == "bmV3")
        // A key ending in an escaped blank is still bare: the blank is the key's, not a separator.
        #expect(edited("k\\ ") { $0.replaceValue(of: "k ", with: "v") } == "k\\ =v")
    }

    @Test func aValueOnContinuationLinesIsReplacedWhole() {
        #expect(edited("k = first \\\n    second\nz=2\n") { $0.replaceValue(of: "k", with: "one") } == "k = one\nz=2\n")
    }

    @Test func everyDefinitionOfADuplicatedKeyIsChanged() {
        #expect(edited("k=1\nx=0\nk=2\n") { $0.replaceValue(of: "k", with: "3") } == "k=3\nx=0\nk=3\n")
        #expect(edited("k=1\nx=0\nk=2\n") { $0.remove("k") } == "x=0\n")
    }

    @Test func removingTakesTheWholeLogicalLineAndItsLineEnd() {
        #expect(edited("#c\na=1\nk=v\\\n  more\nb=2\n") { $0.remove("k") } == "#c\na=1\nb=2\n")
        #expect(edited("a=1\r\nk=v") { $0.remove("k") } == "a=1\r\n")
        #expect(edited("# k=1\n! k=2\n") { $0.remove("k") } == "# k=1\n! k=2\n", "comments are not definitions")
    }

    @Test func valuesAreEscapedAsStoreWritesThem() {
        #expect(JavaProperties.escapeValue("a=b:c#d!e") == "a\\=b\\:c\\#d\\!e")
        #expect(JavaProperties.escapeValue(" lead and inner ") == "\\ lead and inner ")
        #expect(JavaProperties.escapeValue("tab\tnl\ncr\rff\u{0C}back\\") == "tab\\tnl\\ncr\\rff\\fback\\\\")
        #expect(JavaProperties.escapeValue("ünïcode") == "ünïcode", "store(Writer) writes non-ASCII raw")
        // And what is written reads back as the value.
        let value = " =:#! \t\\ ü"
        #expect(JavaProperties(bytes: Array(("k=" + JavaProperties.escapeValue(value)).utf8)).value("k") == value)
    }
}
