import Foundation
import SXCore
import SXCrypto
import SXDatabase
import SXImages

/// A realistic sample SimpleX data directory (desktop layout) for the demo, tests and benchmarks:
/// the chat and agent databases (opened as the core opens them, given a subset of the real schema and
/// SimpleX's real migration rows, then filled: `SampleDatabases`), a files folder with
/// photos, screenshots and documents — some CryptoFile-encrypted with their keys in the chat DB, some
/// plaintext, some referenced but missing, one on disk but not referenced — a wallpapers folder and
/// a temp folder. Deterministic for a given seed, so tests can compare hashes.
public struct SampleDataDirectory: Sendable {
    public struct Options: Sendable {
        public var photos = 4
        public var documents = 4
        public var seed = 1
        /// The databases' passphrase; empty makes plaintext databases.
        public var passphrase: SecretBytes
        /// Contacts and groups of the first user.
        public var contacts = 12
        public var groups = 3
        /// Chat items written (beyond those that carry files).
        public var chatItems = 3000
        /// Keep writing chat history until the chat DB is at least this big (benchmarks).
        public var chatDatabaseBytes: Int64?
        /// Put the databases in WAL mode. The core sets no journal mode (simplexmq `Agent/Store/SQLite.hs`
        /// `connectDB`), so real profiles use a rollback journal; only profiles from 2021 to early 2022 may
        /// still be in WAL mode. For tests of WAL handling.
        public var walMode = false
        /// Extra small files (`bulk_NNNNNN.bin`) for the storage and files-folder benchmarks.
        public var bulkFiles = 0

        public init(photos: Int = 4, documents: Int = 4, seed: Int = 1, passphrase: SecretBytes = SampleDataDirectory.defaultPassphrase,
                    contacts: Int = 12, groups: Int = 3, chatItems: Int = 3000, chatDatabaseBytes: Int64? = nil, walMode: Bool = false, bulkFiles: Int = 0) {
            self.photos = photos
            self.documents = documents
            self.seed = seed
            self.passphrase = passphrase
            self.contacts = contacts
            self.groups = groups
            self.chatItems = chatItems
            self.chatDatabaseBytes = chatDatabaseBytes
            self.walMode = walMode
            self.bulkFiles = bulkFiles
        }
    }

    /// The passphrase of the sample databases unless another is chosen (it is a sample: printed by the demo).
    public static let defaultPassphrase = SecretBytes(Array("correct horse battery staple".utf8))

    /// Names (relative to the files folder) the chat DB references although they are not on disk.
    public static let missingFiles = ["voice_0001.m4a", "video_0001.mp4"]
    /// A file on disk that the chat DB does not reference.
    public static let orphanFile = "orphan_download.bin"

    public struct SampleFile: Sendable, Equatable {
        /// Path relative to the files folder.
        public var name: String
        /// Size and SHA-256 of the plaintext.
        public var size: Int64
        public var sha256: String
        /// True when the file on disk is a CryptoFile (its key and nonce are in the chat DB).
        public var encrypted = false
        /// False for the orphan: on disk, not in the chat DB.
        public var referenced = true
    }

    public let directory: DataDirectory
    public let files: [SampleFile]

    /// Creates the layout under `root` (which must not hold a data directory yet).
    public static func create(at root: String, options: Options = Options()) throws -> SampleDataDirectory {
        let dir = DataDirectory(root: Path.absolute(root), layout: .desktop)
        if POSIXFile.exists(dir.chatDatabase) {
            throw UsageError("'\(root)' already holds a SimpleX data directory; choose an empty folder")
        }
        let filesFolder = dir.filesFolder!
        for folder in [filesFolder, dir.wallpapersFolder!] + dir.tempFolders.prefix(1) {
            try Folders.create(folder)
        }
        var made: [SampleFile] = []
        func put(_ name: String, _ bytes: [UInt8], in folder: String = filesFolder) throws {
            try AtomicFileWriter.write(bytes, to: Path.join(folder, name), mode: 0o644)
            if folder == filesFolder {
                made.append(SampleFile(name: name, size: Int64(bytes.count), sha256: Hex.encode(SHA256Digest.of(bytes))))
            }
        }
        let s = options.seed
        for i in 0..<options.photos {
            // Photo-sized images: a few megapixels, like what people actually send.
            let (w, h) = i % 2 == 0 ? (1600, 1200) : (1200, 1600)
            try put(String(format: "IMG_%04d.jpg", 1000 + i), SyntheticImage.jpeg(width: w, height: h, seed: s * 100 + i))
        }
        try put("screenshot_1.png", SyntheticImage.png(width: 800, height: 600, seed: s, alpha: false))
        try put("sticker.png", SyntheticImage.png(width: 256, height: 256, seed: s + 1, alpha: true))
        for i in 0..<options.documents {
            try put(documentName(i), document(i, seed: s))
        }
        try put("wallpaper_1.jpg", SyntheticImage.jpeg(width: 1080, height: 1920, seed: s + 7), in: dir.wallpapersFolder!)
        try put("download_part.tmp", Array(repeating: 0x2A, count: 4096), in: dir.primaryTempFolder)
        made.sort { $0.name < $1.name }
        var rows: [SampleDatabases.FileRow] = []
        var rng = SplitMix64(seed: UInt64(s) &* 7 &+ 3)
        for i in made.indices {
            var args: CryptoFileArgs?
            // Every third file is encrypted, as the app does for new files with "encrypt local files" on.
            if i % 3 == 0 {
                let key = (0..<CryptoFileArgs.keyLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let nonce = (0..<CryptoFileArgs.nonceLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                let fileArgs = try CryptoFileArgs(key: key, nonce: nonce)
                let path = Path.join(filesFolder, made[i].name)
                let writer = try AtomicFileWriter(destination: path, mode: 0o644)
                _ = try CryptoFile.encrypt(file: path, to: writer, args: fileArgs)
                try writer.commit()
                made[i].encrypted = true
                args = fileArgs
            }
            rows.append(.init(name: made[i].name, path: made[i].name, size: made[i].size, args: args))
        }
        for name in missingFiles {
            rows.append(.init(name: name, path: name, size: 1_048_576, args: nil))
        }
        try put(orphanFile, document(99, seed: s))
        if let i = made.firstIndex(where: { $0.name == orphanFile }) { made[i].referenced = false }
        if options.bulkFiles > 0 {
            let bulk = try BulkFiles(count: options.bulkFiles, seed: s).write(into: filesFolder)
            rows += bulk.rows
            made += bulk.files
        }
        let databases = SampleDatabases(passphrase: options.passphrase, seed: s, contacts: options.contacts, groups: options.groups,
                                        chatItems: options.chatItems, chatBytes: options.chatDatabaseBytes, walMode: options.walMode)
        try databases.createChat(at: dir.chatDatabase, files: rows)
        try databases.createAgent(at: dir.agentDatabase)
        return SampleDataDirectory(directory: dir, files: made.sorted { $0.name < $1.name })
    }

    /// This sample at another root, for a byte-for-byte copy of its folder made there (`cp -a`): the
    /// tests build each kind of sample once and copy it, since a build is seconds of image encoding
    /// and two SQLCipher key derivations.
    public func relocated(to root: String) -> SampleDataDirectory {
        SampleDataDirectory(directory: DataDirectory(root: Path.absolute(root), layout: directory.layout), files: files)
    }

    static func documentName(_ i: Int) -> String {
        ["meeting-notes.txt", "budget-2026.csv", "README.md", "contacts.vcf", "log.txt"][i % 5] + (i >= 5 ? ".\(i / 5)" : "")
    }

    /// Text documents of varied sizes (a few KB up to ~1 MB), readable when cat'ed.
    static func document(_ i: Int, seed: Int) -> [UInt8] {
        var rng = SplitMix64(seed: UInt64(seed * 7919 + i))
        let lines = 40 << (i % 5 * 2)
        var text = "Sample document \(i) generated by sxkit for seed \(seed).\n"
        let words = ["relay", "chunk", "contact", "group", "message", "profile", "archive", "key", "queue", "server"]
        for n in 0..<lines {
            text += "\(n + 1): " + (0..<8).map { _ in words[Int(rng.next() % UInt64(words.count))] }.joined(separator: " ") + "\n"
        }
        return Array(text.utf8)
    }
}
