import Foundation
import SXCore
import SXCrypto
import SXDatabase
import SXSample
import SXTestSupport
import Testing

/// The sample data directory: deterministic for a seed, different for another, never made over an
/// existing one, with SimpleX's migration rows, no WAL, CryptoFiles libsodium alone opens with the
/// chat DB's keys, and images of the sizes it promises.
@Suite(.ownThreads) struct SampleDataDirectoryTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase

    static func tiny(seed: Int = 1) -> SampleDataDirectory.Options {
        .init(photos: 1, documents: 2, seed: seed, contacts: 3, groups: 1, chatItems: 15)
    }

    static func open(_ path: String) throws -> DatabaseConnection {
        try DatabaseOpener.open(path, passphrase: passphrase, mode: .immutable).0
    }

    /// Every table's row count.
    static func rowCounts(_ database: String) throws -> [String: Int64] {
        let db = try open(database)
        var counts: [String: Int64] = [:]
        for row in try db.rows("SELECT name FROM sqlite_master WHERE type = 'table'") {
            guard case .text(let table)? = row.first else { continue }
            counts[table] = try db.scalarInt("SELECT count(*) FROM \"\(table)\"")
        }
        return counts
    }

    /// Every row of the tables whose content the seed decides (texts, names, keys).
    static func seededRows(_ chatDatabase: String) throws -> [[ColumnValue]] {
        let db = try open(chatDatabase)
        return try db.rows("SELECT item_text FROM chat_items ORDER BY chat_item_id")
            + db.rows("SELECT file_path, file_size, file_crypto_key, file_crypto_nonce FROM files ORDER BY file_id")
            + db.rows("SELECT local_display_name FROM contacts ORDER BY contact_id")
    }

    /// SHA-256 of every regular file under `root` but the databases (their pages hold random salts).
    static func fileHashes(_ root: String) throws -> [String: String] {
        var result: [String: String] = [:]
        guard let walker = FileManager.default.enumerator(atPath: root) else { return result }
        while let relative = walker.nextObject() as? String {
            let path = Path.join(root, relative)
            guard let st = POSIXFile.linkStatus(path), st.st_mode & S_IFMT == S_IFREG, !relative.hasSuffix(".db") else { continue }
            result[relative] = Hex.encode(SHA256Digest.of(try FileBytes.read(path, limit: 1 << 30)))
        }
        return result
    }

    /// The key and nonce the chat DB holds for each encrypted file, by path.
    static func fileKeys(_ chatDatabase: String) throws -> [String: (key: [UInt8], nonce: [UInt8])] {
        var keys: [String: (key: [UInt8], nonce: [UInt8])] = [:]
        for row in try open(chatDatabase).rows("SELECT file_path, file_crypto_key, file_crypto_nonce FROM files") {
            guard case .text(let path) = row[0], case .blob(let key) = row[1], case .blob(let nonce) = row[2] else { continue }
            keys[path] = (key, nonce)
        }
        return keys
    }

    @Test func theSameSeedGivesTheSameDataAndAnotherSeedOtherData() throws {
        let temp = try TempFolder()
        let first = try SampleDataDirectory.create(at: temp.file("a"), options: Self.tiny(seed: 5))
        let again = try SampleDataDirectory.create(at: temp.file("b"), options: Self.tiny(seed: 5))
        let other = try SampleDataDirectory.create(at: temp.file("c"), options: Self.tiny(seed: 6))

        #expect(first.files == again.files)
        let hashes = try Self.fileHashes(first.directory.root)
        #expect(hashes.count == first.files.count + 2, "the files, a wallpaper and a temp file: \(hashes.keys.sorted())")
        #expect(hashes == (try Self.fileHashes(again.directory.root)))
        for (a, b) in zip(first.directory.databases, again.directory.databases) {
            #expect(try Self.rowCounts(a) == Self.rowCounts(b))
        }
        let rows = try Self.seededRows(first.directory.chatDatabase)
        #expect(rows == (try Self.seededRows(again.directory.chatDatabase)))

        // Another seed: the same names and shape, other bytes and other keys.
        #expect(other.files.map(\.name) == first.files.map(\.name))
        let otherHashes = try Self.fileHashes(other.directory.root)
        #expect(Set(otherHashes.keys) == Set(hashes.keys))
        let same = hashes.keys.filter { hashes[$0] == otherHashes[$0] }
        #expect(same == ["tmp/download_part.tmp"], "only the constant temp file is the same: \(same)")
        #expect(rows != (try Self.seededRows(other.directory.chatDatabase)))
        let firstKeys = try Self.fileKeys(first.directory.chatDatabase), otherKeys = try Self.fileKeys(other.directory.chatDatabase)
        #expect(!firstKeys.isEmpty && Set(firstKeys.keys) == Set(otherKeys.keys))
        #expect(firstKeys.allSatisfy { otherKeys[$0.key]?.key != $0.value.key })
    }

    @Test func aFolderThatHoldsADataDirectoryIsRefusedAndLeftAlone() throws {
        let temp = try TempFolder()
        let root = temp.file("data")
        _ = try SampleDataDirectory.create(at: root, options: Self.tiny())
        let before = try FolderSnapshot.take(root)
        #expect(throws: UsageError.self) {
            _ = try SampleDataDirectory.create(at: root, options: Self.tiny(seed: 2))
        }
        let after = try FolderSnapshot.take(root)
        #expect(after == before, "\(after.differences(from: before))")
    }

    @Test func theMigrationsAreSimpleXsAndNoDatabaseIsInWALMode() throws {
        let temp = try TempFolder()
        let sample = try SampleDataDirectory.create(at: temp.file("data"), options: Self.tiny())
        let chat = try MigrationsTable.read(try Self.open(sample.directory.chatDatabase)).rows.map(\.name)
        let agent = try MigrationsTable.read(try Self.open(sample.directory.agentDatabase)).rows.map(\.name)
        #expect(chat.count == 152 && chat == SimpleXMigrations.chat.map(\.name))
        #expect(chat.first == "20220101_initial" && chat.last == "20260516_supporter_badges")
        #expect(agent.count == 44 && agent == SimpleXMigrations.agent.map(\.name))
        #expect(agent.first == "20220101_initial" && agent.last == "m20260410_receive_attempts")
        // The core sets no journal mode: a rollback journal, and nothing beside the databases after creation.
        for database in sample.directory.databases {
            #expect(try Self.open(database).scalarText("PRAGMA journal_mode") == "delete")
            for companion in DataDirectoryNames.companions(of: database) {
                #expect(!FileManager.default.fileExists(atPath: companion), "\(companion)")
            }
        }
        let names = try FileManager.default.contentsOfDirectory(atPath: sample.directory.root)
        #expect(names.filter { $0.hasSuffix(".db") }.sorted() == ["simplex_v1_agent.db", "simplex_v1_chat.db"], "\(names)")
    }

    @Test func walModeIsOnlyOnRequest() throws {
        let temp = try TempFolder()
        var options = Self.tiny()
        options.walMode = true
        let sample = try SampleDataDirectory.create(at: temp.file("data"), options: options)
        for database in sample.directory.databases {
            // The mode persists in the file: a later connection finds it.
            let (db, _) = try DatabaseOpener.open(database, passphrase: Self.passphrase, mode: .readOnly)
            #expect(try db.scalarText("PRAGMA journal_mode") == "wal")
        }
    }

    @Test func anEmptyPassphraseMakesPlaintextDatabases() throws {
        let temp = try TempFolder()
        var options = Self.tiny()
        options.passphrase = SecretBytes([UInt8]())
        let sample = try SampleDataDirectory.create(at: temp.file("data"), options: options)
        for database in sample.directory.databases {
            let header = try FileBytes.read(database, limit: 1 << 30).prefix(16)
            #expect(Array(header) == Array("SQLite format 3\u{0}".utf8))
        }
        let encrypted = try SampleDataDirectory.create(at: temp.file("enc"), options: Self.tiny())
        let header = try FileBytes.read(encrypted.directory.chatDatabase, limit: 1 << 30).prefix(16)
        #expect(Array(header) != Array("SQLite format 3\u{0}".utf8), "the default passphrase encrypts")
    }

    /// Each file is as recorded: a CryptoFile opens with libsodium alone (SimpleX's schedule, tag last)
    /// under the chat DB's key to the recorded plaintext; a plaintext file has the recorded hash.
    @Test func everyFileIsAsRecordedAndCryptoFilesOpenWithTheDatabaseKeys() throws {
        let temp = try TempFolder()
        let sample = try SampleDataDirectory.create(at: temp.file("data"), options: .init(photos: 2, documents: 3, chatItems: 10, bulkFiles: 60))
        let keys = try Self.fileKeys(sample.directory.chatDatabase)
        let folder = sample.directory.filesFolder!
        #expect(sample.files.contains { $0.encrypted } && sample.files.contains { !$0.encrypted })
        for file in sample.files {
            let bytes = try FileBytes.read(Path.join(folder, file.name), limit: 1 << 30)
            var plain = bytes
            if file.encrypted {
                let args = try #require(keys[file.name], "\(file.name) has no key in the chat DB")
                plain = try #require(IndependentSecretBox.open(bytes, key: args.key, nonce: args.nonce), "\(file.name) does not open")
                #expect(bytes.count == plain.count + 16)
            } else {
                #expect(keys[file.name] == nil, "\(file.name) is plaintext but has a key")
            }
            #expect(Int64(plain.count) == file.size)
            #expect(Hex.encode(SHA256Digest.of(plain)) == file.sha256, "\(file.name)")
        }
        // Referenced but missing files are rows without a file; the orphan is a file without a row.
        let paths = Set(try Self.open(sample.directory.chatDatabase).rows("SELECT file_path FROM files").compactMap { row -> String? in
            if case .text(let t) = row[0] { return t }
            return nil
        })
        for missing in SampleDataDirectory.missingFiles {
            #expect(paths.contains(missing) && !FileManager.default.fileExists(atPath: Path.join(folder, missing)))
        }
        #expect(!paths.contains(SampleDataDirectory.orphanFile))
        // Of the bulk files, bulk_000000 is referenced but missing and bulk_000050 is on disk but not referenced.
        #expect(Set(sample.files.filter { !$0.referenced }.map(\.name)) == [SampleDataDirectory.orphanFile, "bulk_000050.bin"])
        #expect(paths.contains("bulk_000000.bin") && !FileManager.default.fileExists(atPath: Path.join(folder, "bulk_000000.bin")))
        #expect(Set(sample.files.filter(\.referenced).map(\.name)).isSubset(of: paths))
    }

    /// The photos, screenshot, sticker and wallpaper decode at the sizes the generator promises.
    @Test func theSampleImagesDecodeAtTheirSizes() throws {
        let temp = try TempFolder()
        let sample = try SampleDataDirectory.create(at: temp.file("data"), options: .init(photos: 2, documents: 1, chatItems: 5))
        let keys = try Self.fileKeys(sample.directory.chatDatabase)
        func plaintext(_ name: String) throws -> [UInt8] {
            let bytes = try FileBytes.read(Path.join(sample.directory.filesFolder!, name), limit: 1 << 30)
            guard let args = keys[name] else { return bytes }
            return try #require(IndependentSecretBox.open(bytes, key: args.key, nonce: args.nonce))
        }
        let expected: [(String, Int, Int, String)] = [
            ("IMG_1000.jpg", 1600, 1200, "jpeg"), ("IMG_1001.jpg", 1200, 1600, "jpeg"),
            ("screenshot_1.png", 800, 600, "png"), ("sticker.png", 256, 256, "png"),
        ]
        for (name, width, height, format) in expected {
            let header = try SyntheticImage.header(of: try plaintext(name))
            #expect(header.width == width && header.height == height && header.format == format, "\(name): \(header)")
        }
        let wallpaper = try FileBytes.read(Path.join(sample.directory.wallpapersFolder!, "wallpaper_1.jpg"), limit: 1 << 30)
        let header = try SyntheticImage.header(of: wallpaper)
        #expect(header.width == 1080 && header.height == 1920 && header.format == "jpeg")
    }
}
