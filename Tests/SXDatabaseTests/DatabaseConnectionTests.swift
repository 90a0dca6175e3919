import CSQLCipher
import Foundation
import SXCore
import SXDatabase
import SXTestSupport
import Testing

@Suite("DatabaseConnection", .ownThreads)
struct DatabaseConnectionTests {
    static let passphrase = "pa'ss wörd"

    @Test func keyedDatabaseReopensWithTheRightKeyOnly() throws {
        let tmp = try TempFolder()
        let path = tmp.file("chat.db")
        try makeDatabase(path, passphrase: Self.passphrase)
        #expect(try DatabaseFileKind.classify(path: path) == .encryptedOrNotDatabase(looksRandom: true))

        let right = try open(path, Self.passphrase, mode: .readOnly)
        #expect(right.keyIsCorrect())
        #expect(try right.rows("SELECT a, b FROM t ORDER BY a") == [[.integer(1), .text("one")], [.integer(2), .text("two")]])

        let wrong = try open(path, "pa'ss word", mode: .readOnly)
        #expect(!wrong.keyIsCorrect())
        let error = try #require(throws: DatabaseError.self) { try wrong.verifyKey() }
        #expect(error.code == SQLITE_NOTADB)
        #expect(error.isNotADatabase)
        #expect(error.path == path)
        #expect(error.fileKind == .encryptedOrNotDatabase(looksRandom: true))
        #expect(error.description.contains("passphrase is wrong"))
        #expect(error.description.contains("'\(path)'"))
        #expect(error.description.hasSuffix("(SQLITE_NOTADB)"))

        let none = try open(path, "", mode: .readOnly)
        #expect(!none.keyIsCorrect(), "an encrypted database does not read without a key")
    }

    /// Reads sort and index in memory (SQLCipher leaves temp files unencrypted); writers keep
    /// SQLite's default, since a rewrite's temp database can be as big as the file.
    @Test func readConnectionsKeepTempDataInMemory() throws {
        let tmp = try TempFolder()
        let path = tmp.file("chat.db")
        try makeDatabase(path, passphrase: Self.passphrase)
        for (mode, expected) in [(DatabaseConnection.Mode.readOnly, Int64(2)), (.immutable, 2), (.readWrite, 0)] {
            let connection = try open(path, Self.passphrase, mode: mode)
            #expect(try connection.scalarInt("PRAGMA temp_store") == expected, "\(mode)")
        }
    }

    @Test func plaintextDatabaseUsesNoKey() throws {
        let tmp = try TempFolder()
        let path = tmp.file("plain.db")
        try makeDatabase(path, passphrase: "")
        #expect(try DatabaseFileKind.classify(path: path) == .plaintextSQLite)
        let db = try open(path, "")
        #expect(db.keyIsCorrect())
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 2)

        let keyed = try open(path, "secret")
        let error = try #require(throws: DatabaseError.self) { try keyed.verifyKey() }
        #expect(error.code == SQLITE_NOTADB)
        #expect(error.fileKind == .plaintextSQLite)
        #expect(error.description.contains("plaintext"))
    }

    @Test func notADatabaseIsToldApartFromAWrongKey() throws {
        let tmp = try TempFolder()
        let path = try tmp.write("notes.db", Array(String(repeating: "just some text, not a database\n", count: 200).utf8))
        let db = try open(path, "key")
        let error = try #require(throws: DatabaseError.self) { try db.verifyKey() }
        #expect(error.code == SQLITE_NOTADB)
        #expect(error.fileKind == .encryptedOrNotDatabase(looksRandom: false))
        #expect(error.description.contains("not a database"))
    }

    @Test func boundParametersRoundTrip() throws {
        let tmp = try TempFolder()
        let db = try open(tmp.file("p.db"), "k", mode: .readWriteCreate)
        try db.execute("CREATE TABLE v(i, r, s, b, n)")
        let insert = try db.prepare("INSERT INTO v VALUES (?, ?, ?, ?, ?)")
        #expect(insert.parameterCount == 5)
        let blob: [UInt8] = [0, 1, 0, 0, 255, 0]
        let text = "it's \"quoted\" — 'twice'; DROP TABLE v; --"
        try insert.bind(Int64.min, at: 1)
        try insert.bind(-0.5, at: 2)
        try insert.bind(text, at: 3)
        try insert.bind(blob, at: 4)
        try insert.bindNull(at: 5)
        #expect(try insert.step() == false)
        try insert.reset()
        try insert.bind([.integer(7), .real(1e300), .text(""), .blob([]), .null])
        try insert.step()
        #expect(db.changes == 1)
        #expect(db.lastInsertRowID == 2)

        let select = try db.prepare("SELECT i, r, s, b, n, typeof(s), typeof(b) FROM v ORDER BY rowid")
        #expect(select.columnCount == 7)
        #expect(select.columnName(3) == "b")
        #expect(try select.step())
        #expect(select.int64(0) == Int64.min)
        #expect(select.double(1) == -0.5)
        #expect(select.text(2) == text)
        #expect(select.blob(3) == blob)
        #expect(select.isNull(4))
        #expect(select.text(4) == nil)
        #expect(!select.isNull(3))
        #expect(try select.step())
        #expect(select.value(0) == .integer(7))
        #expect(select.value(1) == .real(1e300))
        #expect(select.value(2) == .text(""))
        #expect(select.value(3) == .blob([]))
        #expect(select.value(4) == .null)
        #expect(select.text(5) == "text", "an empty string stays text")
        #expect(select.text(6) == "blob", "an empty blob stays a blob")
        #expect(try select.step() == false)
        try select.reset()
        #expect(try select.step(), "reset runs the statement again")

        #expect(try db.scalarText("SELECT s FROM v WHERE i = 7") == "")
        #expect(try db.scalarText("SELECT n FROM v") == nil)
        #expect(try db.scalarInt("SELECT i FROM v WHERE 0") == nil)
    }

    @Test func errorsCarrySQLCodeAndPath() throws {
        let tmp = try TempFolder()
        let path = tmp.file("e.db")
        let db = try open(path, "k", mode: .readWriteCreate)
        try db.busyTimeout(ms: 100)
        let prepare = try #require(throws: DatabaseError.self) { try db.prepare("SELEC 1") }
        #expect(prepare.code == SQLITE_ERROR)
        #expect(prepare.sql == "SELEC 1")
        #expect(prepare.path == path)
        #expect(prepare.message.contains("syntax error"))
        #expect(prepare.description == "cannot prepare `SELEC 1` in '\(path)': \(prepare.message) (SQLITE_ERROR)")

        try db.execute("CREATE TABLE u(x UNIQUE)")
        try db.execute("INSERT INTO u VALUES (1)")
        let run = try #require(throws: DatabaseError.self) { try db.execute("INSERT INTO u VALUES (1)") }
        #expect(run.code == SQLITE_CONSTRAINT)
        #expect(run.extendedCode == SQLITE_CONSTRAINT | (8 << 8), "SQLITE_CONSTRAINT_UNIQUE")
        #expect(run.sql == "INSERT INTO u VALUES (1)")
        #expect(run.description.hasPrefix("cannot run `INSERT INTO u VALUES (1)` in '\(path)': UNIQUE constraint failed"))
        #expect(run.description.contains("SQLITE_CONSTRAINT"))

        let insert = try db.prepare("INSERT INTO u VALUES (?)")
        let bind = try #require(throws: DatabaseError.self) { try insert.bind(1, at: 2) }
        #expect(bind.code == SQLITE_RANGE)
        try insert.bind(1, at: 1)
        let step = try #require(throws: DatabaseError.self) { try insert.step() }
        #expect(step.code == SQLITE_CONSTRAINT)
        #expect(step.sql == "INSERT INTO u VALUES (?)")

        let missing = try #require(throws: DatabaseError.self) {
            try DatabaseConnection(path: tmp.file("absent.db"), mode: .readOnly)
        }
        #expect(missing.code == SQLITE_CANTOPEN)
        #expect(missing.description.hasPrefix("cannot open '\(tmp.file("absent.db"))': "))
        #expect(missing.description.hasSuffix("(SQLITE_CANTOPEN)"))
        #expect(!FileManager.default.fileExists(atPath: tmp.file("absent.db")))
    }

    @Test func keyPragmaNeverAppearsInErrors() throws {
        let tmp = try TempFolder()
        let db = try DatabaseConnection(path: tmp.file("k.db"), mode: .readWriteCreate)
        let error = try #require(throws: DatabaseError.self) { try db.applyKey(SecretBytes([0x61, 0, 0x62])) }
        #expect(error.sql == "PRAGMA key = '…'")
        #expect(error.code == SQLITE_MISUSE)
        #expect(throws: DatabaseError.self) { try db.setCompatibility(9) }
    }

    @Test func immutableOpenLeavesTheFileUntouched() throws {
        let tmp = try TempFolder("sxkit db ?#%")  // characters that need escaping in a URI
        let path = tmp.file("im.db")
        try makeDatabase(path, passphrase: Self.passphrase)
        do {
            let writer = try open(path, Self.passphrase)
            try writer.execute("PRAGMA journal_mode = WAL; INSERT INTO t VALUES (3, 'three'); PRAGMA journal_mode = DELETE;")
        }
        try? FileManager.default.removeItem(atPath: path + "-wal")
        try? FileManager.default.removeItem(atPath: path + "-shm")
        let before = try #require(modificationTime(path))
        usleep(20_000)

        let db = try open(path, Self.passphrase, mode: .immutable)
        #expect(db.keyIsCorrect())
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 3)
        #expect(throws: DatabaseError.self) { try db.execute("INSERT INTO t VALUES (4, 'four')") }
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"))
        #expect(!FileManager.default.fileExists(atPath: path + "-shm"))
        #expect(modificationTime(path) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: tmp.path) == ["im.db"])
    }
}
