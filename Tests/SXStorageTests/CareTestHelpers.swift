import Foundation
import SXStorage
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// A small sample data directory (the demo's, with fewer files) in its own temp folder.
struct CareFixture {
    let folder: TempFolder
    let sample: SampleDataDirectory
    /// The sample's layout, with the desktop UI's temp folder (`$TMPDIR/simplex`) inside the fixture:
    /// a test must never see, let alone clean, the machine's real `/tmp/simplex`.
    var dir: DataDirectory { DataDirectory(root: sample.directory.root, layout: .desktop, environment: ["TMPDIR": folder.path]) }
    var files: String { dir.filesFolder! }
    static let passphrase = SampleDataDirectory.defaultPassphrase

    init(walMode: Bool = false) throws {
        folder = try TempFolder("sxkit-care")
        sample = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 3, chatItems: 50, walMode: walMode))
    }

    func care(_ passphrase: SecretBytes? = CareFixture.passphrase) -> DataDirectoryCare {
        DataDirectoryCare(directory: dir, passphrase: passphrase)
    }

    var referencedEncrypted: Int { sample.files.filter { $0.referenced && $0.encrypted }.count }
    var referencedPlaintext: Int { sample.files.filter { $0.referenced && !$0.encrypted }.count }

    /// Runs SQL on the chat database (the sample's passphrase).
    func updateChatDatabase(_ sql: String) throws {
        let (db, _) = try DatabaseOpener.open(dir.chatDatabase, passphrase: Self.passphrase, mode: .readWrite)
        try db.execute(sql)
    }

    /// Sets a file's modification time `seconds` in the past.
    static func age(_ path: String, seconds: Int) {
        var times = [timespec(tv_sec: time(nil) - seconds, tv_nsec: 0), timespec(tv_sec: time(nil) - seconds, tv_nsec: 0)]
        _ = utimensat(AT_FDCWD, path, &times, AT_SYMLINK_NOFOLLOW)
    }

    static func exists(_ path: String) -> Bool { POSIXFile.linkStatus(path) != nil }
}
