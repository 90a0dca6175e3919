import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// Writes past the file-size limit (`ulimit -f`, here `prlimit --fsize`) fail with EFBIG and are
/// reported like a full disk: exit status 1, one sentence, nothing left behind. Before sxkit ignored
/// SIGXFSZ, its default action ended the process mid-write (status 153 from a shell) and left the
/// partial files.
@Suite struct FileSizeLimitTests {
    static let passphrase = "correct horse battery staple"
    /// 256 KiB: smaller than the sample's archive and its chat database's export copy.
    /// SIGXFSZ back to its default action first: the test runner ignores it, and children inherit that.
    static let limit = ["/usr/bin/env", "--default-signal=XFSZ", "/usr/bin/prlimit", "--fsize=262144", "--"]

    static func sample(_ folder: TempFolder) throws -> SampleDataDirectory {
        try SampleDataDirectory.create(at: folder.file("data"), options: .init(photos: 1, documents: 1, chatItems: 600))
    }

    /// Every file's name, size and bytes (folders' times change when a temp file comes and goes).
    static func files(_ root: String) throws -> [String: String] {
        try FolderSnapshot.take(root).entries.filter { $0.value.bytes != nil }.mapValues { "\($0.size) \($0.bytes!.hashValue)" }
    }

    @Test func archiveExportPastTheLimitIsAnErrorAndLeavesNothing() throws {
        let folder = try TempFolder()
        let sample = try Self.sample(folder)
        try Folders.create(folder.file("out"))
        let r = try CLI.run(["archive", "export", folder.file("out/archive.zip"), "--data-dir", sample.directory.root],
                            environment: ["SXKIT_PASSPHRASE": Self.passphrase], prefix: Self.limit)
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(try Folders.names(in: folder.file("out")).isEmpty, "nothing left in the output folder")
    }

    @Test func rekeyPastTheLimitIsAnErrorAndChangesNothing() throws {
        let folder = try TempFolder()
        let sample = try Self.sample(folder)
        let before = try Self.files(sample.directory.root)
        let newFile = folder.file("new-passphrase")
        try AtomicFileWriter.write(Array("another passphrase".utf8), to: newFile, mode: 0o600)
        let r = try CLI.run(["db", "rekey", "--data-dir", sample.directory.root, "--new-passphrase-file", newFile, "--quiet"],
                            environment: ["SXKIT_PASSPHRASE": Self.passphrase], prefix: Self.limit)
        #expect(r.status == 1, "\(r.status) \(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(try Self.files(sample.directory.root) == before, "the profile is as it was, with no leftover")
    }
}
