import Foundation
import Testing
import SXCore
import SXDatabase
import SXTestSupport

/// The one classifier of the files folder against the chat DB's `files` table.
@Suite(.ownThreads) struct FilesFolderClassifierTests {
    static let key = [UInt8](repeating: 7, count: 32)
    static let nonce = [UInt8](repeating: 9, count: 24)

    static func row(_ id: Int64, _ path: String?, size: Int64 = 0, encrypted: Bool = false) -> ChatFileRecord {
        ChatFileRecord(fileId: id, fileName: path.map(Path.basename), storedPath: path, fileSize: size,
                       cryptoKey: encrypted ? key : nil, cryptoNonce: encrypted ? nonce : nil)
    }

    /// A files folder with a plain file, a CryptoFile in a subfolder, an orphan, a folder and two
    /// symlinks (one a row names), and the rows that name some of them.
    static func fixture() throws -> (folder: TempFolder, references: FilesTableReferences, entries: [FolderEntry]) {
        let folder = try TempFolder()
        try folder.write("plain.jpg", [1, 2, 3])
        try folder.write("sub/deeper/secret.bin", [4, 5, 6, 7])
        try folder.write("orphan.txt", [8])
        try folder.write("target.bin", [9])
        #expect(symlink("target.bin", folder.file("linked.bin")) == 0)
        #expect(symlink("target.bin", folder.file("stray-link")) == 0)
        var references = FilesTableReferences()
        for record in [
            row(1, "plain.jpg", size: 3), row(2, "./sub//deeper/secret.bin", size: 2, encrypted: true),
            row(3, "gone.pdf", size: 50), row(4, "linked.bin", size: 1), row(5, "target.bin", size: 1),
            row(6, "../outside.txt"), row(7, "/etc/passwd"), row(8, nil), row(9, ""),
        ] { references.add(record) }
        var entries: [FolderEntry] = []
        #expect(FolderWalker.walk(folder.path) { entries.append($0) } == .walked)
        return (folder, references, entries)
    }

    static func classes(_ references: FilesTableReferences, _ entries: [FolderEntry]) -> [String: FilesFolderClass] {
        Dictionary(uniqueKeysWithValues: entries.map { ($0.relativePath, references.classify($0)) })
    }

    @Test func referencedFilesArePresentAndToldEncryptedOrPlain() throws {
        let (_, references, entries) = try Self.fixture()
        let classes = Self.classes(references, entries)
        #expect(classes["plain.jpg"] == .referenced(encrypted: false))
        // A row's path is normalised before it is matched against the walk's path in a subfolder.
        #expect(classes["sub/deeper/secret.bin"] == .referenced(encrypted: true))
        #expect(classes["target.bin"] == .referenced(encrypted: false))
        #expect(classes["sub"] == .folder)
        #expect(classes["sub/deeper"] == .folder)
    }

    @Test func aFileNoRowNamesIsAnOrphan() throws {
        let (_, references, entries) = try Self.fixture()
        let orphans = entries.filter { references.classify($0) == .orphan }.map(\.relativePath)
        #expect(orphans == ["orphan.txt"])
        // Without any reference every regular file is an orphan.
        #expect(FilesTableReferences().classify(try #require(entries.first { $0.relativePath == "plain.jpg" })) == .orphan)
    }

    @Test func symlinksAreNeverPresentFilesReferencedOrNot() throws {
        let (_, references, entries) = try Self.fixture()
        let classes = Self.classes(references, entries)
        #expect(classes["linked.bin"] == .symlink(referenced: true))
        #expect(classes["stray-link"] == .symlink(referenced: false))
        // A referenced symlink counts as missing, as a path with no file at all does.
        #expect(references.missing(from: entries) == ["gone.pdf", "linked.bin"])
    }

    @Test func unsafePathsAreCountedNeverReferenced() throws {
        let (_, references, _) = try Self.fixture()
        #expect(references.unsafePaths == 2)
        #expect(references.unsafePathExamples == ["../outside.txt", "/etc/passwd"])
        #expect(references.byPath.keys.sorted() == ["gone.pdf", "linked.bin", "plain.jpg", "sub/deeper/secret.bin", "target.bin"])
    }

    @Test func rowsSharingAPathMakeOneReferenceThatCountsThemAll() throws {
        var references = FilesTableReferences()
        references.add(Self.row(1, "a.bin", size: 10))
        references.add(Self.row(2, "./a.bin", size: 12, encrypted: true))
        let reference = try #require(references.byPath["a.bin"])
        #expect(reference.encrypted && reference.recordedSize == 12 && reference.rows == 2 && reference.encryptedRows == 1)
        #expect(references.byPath.count == 1)
    }

    @Test func readsTheReferencesFromTheFilesTable() throws {
        let dir = try TempFolder()
        let db = try open(dir.file("chat.db"), "", mode: .readWriteCreate)
        try db.execute("""
            CREATE TABLE files(file_id INTEGER PRIMARY KEY, file_name TEXT, file_path TEXT, file_size INTEGER,
                               file_crypto_key BLOB, file_crypto_nonce BLOB);
            INSERT INTO files VALUES (1, 'a', 'a.jpg', 5, NULL, NULL),
                                     (2, 'b', 'dir/b.bin', 7, zeroblob(32), zeroblob(24)),
                                     (3, 'c', '../c', 1, NULL, NULL), (4, 'd', NULL, 1, NULL, NULL);
            """)
        let references = try FilesTableReferences.read(from: db)
        #expect(references.byPath["a.jpg"]?.encrypted == false)
        #expect(references.byPath["dir/b.bin"]?.encrypted == true)
        #expect(references.byPath["dir/b.bin"]?.recordedSize == 7)
        #expect(references.byPath.count == 2)
        #expect(references.unsafePaths == 1)
    }

    @Test func lookingUpOnePathNeverFollowsASymlink() throws {
        let (folder, _, _) = try Self.fixture()
        try FileManager.default.createDirectory(atPath: folder.file("real"), withIntermediateDirectories: true)
        try folder.write("real/inside.bin", [1])
        #expect(symlink("real", folder.file("via")) == 0)
        guard case .file(let st) = FilesFolderLookup.look("sub/deeper/secret.bin", in: folder.path) else {
            Issue.record("a regular file in a subfolder is found")
            return
        }
        #expect(st.st_size == 4)
        guard case .symlink(last: true) = FilesFolderLookup.look("linked.bin", in: folder.path) else {
            Issue.record("the file itself is a symlink")
            return
        }
        guard case .symlink(last: false) = FilesFolderLookup.look("via/inside.bin", in: folder.path) else {
            Issue.record("a folder on the way is a symlink")
            return
        }
        guard case .missing = FilesFolderLookup.look("gone.pdf", in: folder.path) else {
            Issue.record("an absent file is missing")
            return
        }
        guard case .missing = FilesFolderLookup.look("plain.jpg/under", in: folder.path) else {
            Issue.record("a file on the way is not a folder: missing")
            return
        }
        guard case .notRegular = FilesFolderLookup.look("sub", in: folder.path) else {
            Issue.record("a folder is not a regular file")
            return
        }
    }
}
