import CSQLCipher
import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

/// Cross-checks against the Debian `sqlcipher` shell (SQLCipher 4.6.1): files either side writes
/// open on the other side with the same passphrase, and only with it.
@Suite("SQLCipher shell cross-check", .ownThreads, .enabled(if: sqlcipherShellInstalled, "needs /usr/bin/sqlcipher"))
struct SQLCipherShellTests {
    @Test func databaseMadeByTheShellOpensWithOurKey() throws {
        let tmp = try TempFolder()
        let path = tmp.file("shell.db")
        let made = try sqlcipherShell(path, "PRAGMA key = 'x'; CREATE TABLE t(a); INSERT INTO t VALUES (42);\n")
        #expect(made.status == 0, "\(made.error)")

        let db = try open(path, "x", mode: .readOnly)
        #expect(db.keyIsCorrect())
        #expect(try db.scalarInt("SELECT a FROM t") == 42)
        #expect(!(try open(path, "y", mode: .readOnly)).keyIsCorrect())
    }

    @Test func sqlcipher3DatabaseOpensOnlyWithCompatibility3() throws {
        let tmp = try TempFolder()
        let path = tmp.file("v3.db")
        // In SQLCipher 4.6.1 the compatibility pragma acts on the keyed database, so it follows the key
        // (placed before the key it is silently ignored and the file comes out as SQLCipher 4).
        let made = try sqlcipherShell(path, "PRAGMA key = 'x'; PRAGMA cipher_compatibility = 3; CREATE TABLE t(a); INSERT INTO t VALUES (42);\n")
        #expect(made.status == 0, "\(made.error)")
        #expect(try DatabaseFileKind.classify(path: path) == .encryptedOrNotDatabase(looksRandom: true))

        let plain4 = try open(path, "x", mode: .readOnly)
        #expect(!plain4.keyIsCorrect(), "SQLCipher 4 defaults do not read a SQLCipher 3 file")

        let compat = try open(path, "x", mode: .readOnly)
        try compat.setCompatibility(3)
        #expect(compat.keyIsCorrect())
        #expect(try compat.scalarInt("SELECT a FROM t") == 42)
        #expect(try compat.scalarInt("PRAGMA cipher_page_size") == 1024)
    }

    @Test func databaseMadeByUsOpensInTheShell() throws {
        let tmp = try TempFolder()
        let path = tmp.file("ours.db")
        try makeDatabase(path, passphrase: "k")

        let right = try sqlcipherShell(path, "PRAGMA key='k'; SELECT count(*) FROM sqlite_master;\n")
        #expect(right.status == 0, "\(right.error)")
        #expect(right.output.split(separator: "\n").contains("1"), "output: \(right.output)")

        let wrong = try sqlcipherShell(path, "PRAGMA key='K'; SELECT count(*) FROM sqlite_master;\n")
        #expect(wrong.status != 0)
        #expect(wrong.error.contains("file is not a database"))
    }

    @Test func passphraseWithQuoteSpaceAndNonASCIIMatchesTheShell() throws {
        let tmp = try TempFolder()
        let path = tmp.file("quote.db")
        try makeDatabase(path, passphrase: "pa'ss wörd")
        let right = try sqlcipherShell(path, "PRAGMA key = 'pa''ss wörd'; SELECT b FROM t ORDER BY a;\n")
        #expect(right.status == 0, "\(right.error)")
        #expect(right.output.split(separator: "\n").suffix(2) == ["one", "two"], "output: \(right.output)")
    }
}
