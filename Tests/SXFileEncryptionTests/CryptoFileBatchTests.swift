import Foundation
import Synchronization
import SXCore
import SXCrypto
import SXFileEncryption
import SXTestSupport
import Testing

/// The batch engine over paths, in the library: every output checked with libsodium alone under the
/// keys the manifest holds (read as plain JSON), and the journal a killed run leaves settled with no
/// key lost.
@Suite(.ownThreads) struct CryptoFileBatchTests {
    /// A manifest entry as read straight from the JSON (FORMATS §5), not through sxkit's reader.
    struct ManifestEntry: Equatable {
        var filePath: String
        var key: [UInt8]?
        var nonce: [UInt8]?
    }

    /// The manifest's entries by absolute path; relative `filePath`s are relative to its folder.
    static func manifestEntries(_ path: String) throws -> [String: ManifestEntry] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let array = try #require(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        var entries: [String: ManifestEntry] = [:]
        for object in array {
            let filePath = try #require(object["filePath"] as? String)
            var entry = ManifestEntry(filePath: filePath)
            if let args = object["cryptoArgs"] as? [String: Any] {
                entry.key = try base64url(try #require(args["fileKey"] as? String))
                entry.nonce = try base64url(try #require(args["fileNonce"] as? String))
            }
            let absolute = filePath.hasPrefix("/") ? filePath : (path as NSString).deletingLastPathComponent + "/" + filePath
            entries[absolute] = entry
        }
        return entries
    }

    /// base64url with padding, decoded by Foundation.
    static func base64url(_ text: String) throws -> [UInt8] {
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return [UInt8](try #require(Data(base64Encoded: standard), "not base64url: \(text)"))
    }

    static func base64urlText(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
    }

    static func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func random(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8.random(in: 0...255) } }

    static func randomKey() -> (key: [UInt8], nonce: [UInt8]) { (random(32), random(24)) }

    static func tempFiles(_ folder: String) -> [String] {
        guard let walker = FileManager.default.enumerator(atPath: folder) else { return [] }
        return walker.compactMap { $0 as? String }.filter { ($0 as NSString).lastPathComponent.hasPrefix(".sxkit-tmp-") }
    }

    struct Inputs {
        let temp: TempFolder
        let contents: [String: [UInt8]]
        var folder: String { temp.file("in") }
        var manifest: String { temp.file("keys/manifest.json") }

        init() throws {
            temp = try TempFolder("sxkit-batch")
            contents = ["in/a.txt": Array("a short note\n".utf8), "in/sub/b.bin": CryptoFileBatchTests.random(70_001),
                        "in/sub/deeper/c.bin": CryptoFileBatchTests.random(200_000), "in/empty": []]
            for (name, bytes) in contents { try temp.write(name, bytes) }
            try FileManager.default.createDirectory(atPath: temp.file("keys"), withIntermediateDirectories: true)
        }
    }

    @Test(arguments: [1, 2, 8])
    func filesEncryptedIntoAFolderOpenWithTheManifestsKeysAndDecryptBack(groupFiles: Int) throws {
        let f = try Inputs()
        let before = try FolderSnapshot.take(f.folder)
        var batch = CryptoFileBatch(manifestPath: f.manifest, jobs: 3)
        batch.groupFiles = groupFiles
        let out = f.temp.file("out")
        let report = try batch.encrypt([f.folder], to: .folder(out))
        #expect(report.done == 4 && report.failed == 0 && report.skipped == 0, "\(report.items)")
        #expect(report.bytes == Int64(f.contents.values.reduce(0) { $0 + $1.count }))
        #expect(try FolderSnapshot.take(f.folder) == before, "the inputs are left as they were")

        let entries = try Self.manifestEntries(f.manifest)
        #expect(entries.count == 4)
        #expect(try POSIXFile.status(f.manifest).st_mode & 0o777 == 0o600)
        for (name, plain) in f.contents {
            let output = Path.join(out, name)
            let entry = try #require(entries[output], "\(output) is not in the manifest: \(entries.keys.sorted())")
            #expect(entry.filePath == output, "outside the manifest's folder, the path is absolute")
            let key = try #require(entry.key), nonce = try #require(entry.nonce)
            #expect(key.count == 32 && nonce.count == 24)
            let sealed = try Self.bytes(output)
            // SimpleX's CryptoFile: the whole file is one secret box under HSalsa20(key), the tag last.
            #expect(sealed == IndependentSecretBox.seal(plain, key: key, nonce: nonce))
            #expect(IndependentSecretBox.open(sealed, key: key, nonce: nonce) == plain)
            #expect(try POSIXFile.status(output).st_mode & 0o777 == 0o600)
        }
        #expect(Set(entries.values.compactMap(\.key)).count == 4 && Set(entries.values.compactMap(\.nonce)).count == 4,
                "a fresh key and nonce for every file")
        #expect(!FileManager.default.fileExists(atPath: DataDirectoryNames.manifestJournal(of: f.manifest)))
        #expect(Self.tempFiles(out).isEmpty)

        // The outputs are listed: encrypting them again is skipped, and nothing is written.
        let twice = try batch.encrypt([Path.join(out, "in")], to: .folder(f.temp.file("twice")))
        #expect(twice.skipped == 4 && twice.done == 0, "\(twice.items)")
        #expect(!FileManager.default.fileExists(atPath: f.temp.file("twice/in")))
        // A rerun over the same inputs, whether it refuses or encrypts again, leaves no output without its key.
        _ = try? batch.encrypt([f.folder], to: .folder(out))
        let entries2 = try Self.manifestEntries(f.manifest)
        #expect(entries2.count == 4)
        for (name, plain) in f.contents {
            let output = Path.join(out, name)
            let entry = try #require(entries2[output])
            #expect(IndependentSecretBox.open(try Self.bytes(output), key: entry.key!, nonce: entry.nonce!) == plain, "\(name)")
        }

        // Back: the outputs decrypt (with the manifest's keys) to the original bytes.
        let back = f.temp.file("back")
        let decrypted = try batch.decrypt([Path.join(out, "in")], to: .folder(back))
        #expect(decrypted.done == 4 && decrypted.failed == 0, "\(decrypted.items)")
        for (name, plain) in f.contents {
            #expect(try Self.bytes(Path.join(back, name)) == plain, "\(name)")
        }
        #expect(try Self.manifestEntries(f.manifest) == entries2, "decrypting into a folder keeps the keys")
    }

    @Test func inPlaceEncryptAndDecryptReplaceTheFilesAndKeepTheManifestInStep() throws {
        let f = try Inputs()
        // A manifest beside the files: entries inside its folder are relative.
        let manifest = Path.join(f.folder, "keys.json")
        try #require(chmod(f.temp.file("in/a.txt"), 0o640) == 0)
        let batch = CryptoFileBatch(manifestPath: manifest, jobs: 2)
        let report = try batch.encrypt([f.folder], to: .inPlace)
        #expect(report.done == 4 && report.failed == 0, "\(report.items)")
        let entries = try Self.manifestEntries(manifest)
        #expect(Set(entries.keys) == Set(f.contents.keys.map { f.temp.file($0) }), "the manifest itself is never encrypted")
        for (name, plain) in f.contents {
            let entry = try #require(entries[f.temp.file(name)])
            #expect(entry.filePath == String(name.dropFirst("in/".count)))
            #expect(IndependentSecretBox.open(try Self.bytes(f.temp.file(name)), key: entry.key!, nonce: entry.nonce!) == plain, "\(name)")
        }
        #expect(try POSIXFile.status(f.temp.file("in/a.txt")).st_mode & 0o777 == 0o640, "in place keeps the file's mode")
        #expect(Self.tempFiles(f.folder).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: DataDirectoryNames.manifestJournal(of: manifest)))

        let decrypted = try batch.decrypt([f.folder], to: .inPlace)
        #expect(decrypted.done == 4 && decrypted.failed == 0, "\(decrypted.items)")
        for (name, plain) in f.contents { #expect(try Self.bytes(f.temp.file(name)) == plain, "\(name)") }
        #expect(try Self.manifestEntries(manifest).isEmpty, "a decrypted file's key is no longer needed")
        #expect(try Self.bytes(manifest) == Array("[\n]\n".utf8))
    }

    @Test func aFileNotInTheManifestFailsToDecryptAndNothingElseChanges() throws {
        let f = try Inputs()
        let batch = CryptoFileBatch(manifestPath: f.manifest, jobs: 2)
        _ = try batch.encrypt([f.temp.file("in/a.txt")], to: .inPlace)
        let before = try FolderSnapshot.take(f.temp.path)
        let report = try batch.decrypt([f.temp.file("in/sub")], to: .inPlace)
        #expect(report.failed == 2 && report.done == 0)
        #expect(report.items.allSatisfy { $0.message?.contains("not listed in the manifest") == true }, "\(report.items)")
        let after = try FolderSnapshot.take(f.temp.path)
        #expect(after == before, "\(after.differences(from: before))")
    }

    // MARK: the journal of an interrupted run

    /// One journal line as the batch appends it before replacing a file (ManifestJournal.Record).
    static func journalLine(_ op: String, _ path: String, key: [UInt8], nonce: [UInt8], sourceSize: Int) -> String {
        #"{"op":"\#(op)","filePath":"\#(path)","cryptoArgs":{"fileKey":"\#(base64urlText(key))","fileNonce":"\#(base64urlText(nonce))"},"sourceSize":\#(sourceSize)}"#
    }

    static func manifestJSON(_ entries: [(String, [UInt8], [UInt8])]) -> [UInt8] {
        let lines = entries.map { #"  {"filePath": "\#($0.0)", "cryptoArgs": {"fileKey": "\#(base64urlText($0.1))", "fileNonce": "\#(base64urlText($0.2))"}}"# }
        return Array(("[\n" + lines.joined(separator: ",\n") + "\n]\n").utf8)
    }

    /// A run killed in the middle of an in-place encrypt group: the keys were journalled, two files
    /// were already replaced by their CryptoFiles, one was not (its temp file half written), and the
    /// manifest was not rewritten yet. The next run keeps the keys of the replaced files, drops the
    /// one whose file never changed, removes the temp file, and goes on.
    @Test func anInterruptedEncryptIsSettledByTheNextRunWithNoKeyLost() throws {
        let temp = try TempFolder("sxkit-batch-journal")
        let manifest = temp.file("manifest.json")
        let plain = ["done1": Self.random(5000), "done2": Self.random(17), "untouched": Self.random(3000), "earlier": Self.random(100), "next": Self.random(64)]
        let keys = plain.mapValues { _ in Self.randomKey() }
        for (name, bytes) in plain { try temp.write(name, bytes) }
        // An earlier, finished run: "earlier" is encrypted and in the manifest.
        try temp.write("earlier", IndependentSecretBox.seal(plain["earlier"]!, key: keys["earlier"]!.key, nonce: keys["earlier"]!.nonce))
        try temp.write("manifest.json", Self.manifestJSON([("earlier", keys["earlier"]!.key, keys["earlier"]!.nonce)]))
        // The interrupted run.
        var journal = ""
        for name in ["done1", "done2", "untouched"] {
            journal += Self.journalLine("encrypt", temp.file(name), key: keys[name]!.key, nonce: keys[name]!.nonce, sourceSize: plain[name]!.count) + "\n"
        }
        try temp.write("manifest.json.journal", Array(journal.utf8))
        for name in ["done1", "done2"] { try temp.write(name, IndependentSecretBox.seal(plain[name]!, key: keys[name]!.key, nonce: keys[name]!.nonce)) }
        let halfWritten = try temp.write(".sxkit-tmp-untouched.Q7xk2a", Array(IndependentSecretBox.seal(plain["untouched"]!, key: keys["untouched"]!.key,
                                                                                                         nonce: keys["untouched"]!.nonce).prefix(1000)))

        let report = try CryptoFileBatch(manifestPath: manifest, jobs: 2).encrypt([temp.file("next")], to: .inPlace)
        #expect(report.recoveredFromInterruptedRun == 3)
        #expect(report.done == 1)
        #expect(!FileManager.default.fileExists(atPath: temp.file("manifest.json.journal")))
        #expect(!FileManager.default.fileExists(atPath: halfWritten), "the killed run's temp file is removed")
        let entries = try Self.manifestEntries(manifest)
        #expect(Set(entries.keys) == Set(["earlier", "done1", "done2", "next"].map(temp.file)))
        for name in ["earlier", "done1", "done2"] {
            let entry = try #require(entries[temp.file(name)])
            #expect(entry.key == keys[name]!.key && entry.nonce == keys[name]!.nonce, "\(name) keeps the journalled key")
            #expect(IndependentSecretBox.open(try Self.bytes(temp.file(name)), key: entry.key!, nonce: entry.nonce!) == plain[name], "\(name)")
        }
        let next = try #require(entries[temp.file("next")])
        #expect(IndependentSecretBox.open(try Self.bytes(temp.file("next")), key: next.key!, nonce: next.nonce!) == plain["next"])
        // The file that was never replaced is plaintext and without a key; a rerun encrypts it, skipping the rest.
        #expect(try Self.bytes(temp.file("untouched")) == plain["untouched"])
        let rerun = try CryptoFileBatch(manifestPath: manifest, jobs: 2).encrypt(["done1", "done2", "untouched", "earlier"].map(temp.file), to: .inPlace)
        #expect(rerun.done == 1 && rerun.skipped == 3 && rerun.recoveredFromInterruptedRun == 0, "\(rerun.items)")
        let final = try #require(try Self.manifestEntries(manifest)[temp.file("untouched")])
        #expect(IndependentSecretBox.open(try Self.bytes(temp.file("untouched")), key: final.key!, nonce: final.nonce!) == plain["untouched"])
    }

    /// A run killed while it rewrote the manifest (or the journal) left that file's temp copy beside
    /// it (`make stress` found one after 1 kill in 20): the next run removes both, keeps a temp
    /// file another writer holds, and leaves other files alone.
    @Test func aKilledManifestWriteLeavesNoTempFileAfterTheNextRun() throws {
        let temp = try TempFolder("sxkit-batch-journal")
        let manifest = temp.file("keys.json")
        try temp.write("a", Self.random(100))
        _ = try CryptoFileBatch(manifestPath: manifest, jobs: 1).encrypt([temp.file("a")], to: .inPlace)
        let staleManifest = try temp.write(".sxkit-tmp-keys.json.ChNzFA", Array("[\n".utf8))
        let staleJournal = try temp.write(".sxkit-tmp-keys.json.journal.Xy12ab", Array("{".utf8))
        let other = try temp.write(".sxkit-tmp-other.json.ABCDEF", [1])
        let live = try AtomicFileWriter(destination: manifest, mode: 0o600)  // holds its temp file's lock
        defer { live.abort() }
        try temp.write("b", Self.random(100))
        let report = try CryptoFileBatch(manifestPath: manifest, jobs: 1).encrypt([temp.file("b")], to: .inPlace)
        #expect(report.done == 1)
        #expect(!FileManager.default.fileExists(atPath: staleManifest) && !FileManager.default.fileExists(atPath: staleJournal))
        #expect(FileManager.default.fileExists(atPath: live.tempPath), "a live writer's temp file was removed")
        #expect(FileManager.default.fileExists(atPath: other))
        #expect(Set(try Self.manifestEntries(manifest).keys) == Set([temp.file("a"), temp.file("b")]))
    }

    /// A run killed in the middle of an in-place decrypt group: a key goes only with proof that its
    /// file no longer needs it (the tag fails and the size is exactly the plaintext's); a torn last
    /// journal line (killed mid-append, never fsync'd whole) is ignored.
    @Test func anInterruptedDecryptDropsOnlyKeysWhoseFilesAreProvablyDecrypted() throws {
        let temp = try TempFolder("sxkit-batch-journal")
        let manifest = temp.file("manifest.json")
        let plain = ["decrypted": Self.random(4000), "stillSealed": Self.random(4000), "damaged": Self.random(4000), "torn": Self.random(10)]
        let keys = plain.mapValues { _ in Self.randomKey() }
        try temp.write("manifest.json", Self.manifestJSON(plain.keys.sorted().map { ($0, keys[$0]!.key, keys[$0]!.nonce) }))
        for (name, bytes) in plain { try temp.write(name, IndependentSecretBox.seal(bytes, key: keys[name]!.key, nonce: keys[name]!.nonce)) }
        var journal = ""
        for name in ["decrypted", "stillSealed", "damaged"] {
            journal += Self.journalLine("decrypt", temp.file(name), key: keys[name]!.key, nonce: keys[name]!.nonce, sourceSize: plain[name]!.count + 16) + "\n"
        }
        journal += String(Self.journalLine("decrypt", temp.file("torn"), key: keys["torn"]!.key, nonce: keys["torn"]!.nonce, sourceSize: 26).prefix(40))
        try temp.write("manifest.json.journal", Array(journal.utf8))
        try temp.write("decrypted", plain["decrypted"]!)
        // Neither a CryptoFile under its key nor the plaintext's size: the key must stay.
        try temp.write("damaged", Array(plain["damaged"]!.prefix(1234)))

        let settled = try CryptoFileBatch(manifestPath: manifest, jobs: 1).recover()
        #expect(settled == 3)
        #expect(!FileManager.default.fileExists(atPath: temp.file("manifest.json.journal")))
        let entries = try Self.manifestEntries(manifest)
        #expect(Set(entries.keys) == Set(["stillSealed", "damaged", "torn"].map(temp.file)))
        for name in ["stillSealed", "damaged", "torn"] {
            #expect(entries[temp.file(name)]?.key == keys[name]!.key && entries[temp.file(name)]?.nonce == keys[name]!.nonce, "\(name)")
        }
        #expect(IndependentSecretBox.open(try Self.bytes(temp.file("stillSealed")), key: keys["stillSealed"]!.key, nonce: keys["stillSealed"]!.nonce)
                == plain["stillSealed"])
        // Nothing pending: a second recovery settles nothing and changes nothing.
        let before = try FolderSnapshot.take(temp.path)
        #expect(try CryptoFileBatch(manifestPath: manifest, jobs: 1).recover() == 0)
        #expect(try FolderSnapshot.take(temp.path) == before)
    }

    @Test func aSecondBatchOnTheSameManifestIsRefusedWhileTheFirstHoldsIt() throws {
        let f = try Inputs()
        // Another process's lock on the manifest's folder, taken as the batch takes it.
        let fd = open(f.temp.file("keys"), O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        try #require(fd >= 0)
        defer { close(fd) }
        // flock locks are per open file description: a second open in this process conflicts too.
        try #require(flock(fd, LOCK_EX | LOCK_NB) == 0)
        let before = try FolderSnapshot.take(f.temp.path)
        #expect(throws: ManifestError.self) {
            _ = try CryptoFileBatch(manifestPath: f.manifest).encrypt([f.folder], to: .inPlace)
        }
        #expect(try FolderSnapshot.take(f.temp.path) == before)
    }
}

/// StagedWrites: nothing is visible until `publish`, a group abandoned before it leaves every
/// destination as it was, and `publish` puts every staged file in place.
@Suite(.ownThreads) struct StagedWritesTests {
    struct Job: Sendable {
        var index: Int
        var source: String
        var destination: String
    }

    /// Four files with old contents, and jobs that write `new <index>` over each.
    static func setup() throws -> (TempFolder, [Job]) {
        let temp = try TempFolder("sxkit-staged")
        var jobs: [Job] = []
        for i in 0..<4 {
            let destination = try temp.write("dest/f\(i)", Array("old \(i)".utf8))
            jobs.append(Job(index: i, source: try temp.write("src/f\(i)", Array("source \(i)".utf8)), destination: destination))
        }
        return (temp, jobs)
    }

    static func stage(_ jobs: [Job], flushEach: Bool, failing: Set<Int> = [], nothingToDo: Set<Int> = []) -> [StagedWrite] {
        StagedWrites.stage(jobs, jobs: 2, flushEach: flushEach, progress: nil,
                           target: { StagedWrites.Target(source: $0.source, destination: $0.destination, mode: 0o600) },
                           check: { job in if nothingToDo.contains(job.index) { throw StagedWrites.NothingToDo("already new") } },
                           transform: { job, writer in
                               if failing.contains(job.index) {
                                   try writer.write(Array("half".utf8))
                                   throw SampleFailure()
                               }
                               let bytes = Array("new \(job.index)".utf8)
                               try writer.write(bytes)
                               return StagedWrites.Transformed(bytes: Int64(bytes.count))
                           })
    }

    /// An SXError, so that its sentence is what a failed item reports.
    struct SampleFailure: SXError {
        var description: String { "the transform failed" }
    }

    static func contents(_ jobs: [Job]) throws -> [String] {
        try jobs.map { String(decoding: try Data(contentsOf: URL(fileURLWithPath: $0.destination)), as: UTF8.self) }
    }

    static func tempFiles(_ temp: TempFolder) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: temp.file("dest")).filter { $0.hasPrefix(AtomicFileWriter.tempPrefix) }
    }

    @Test(arguments: [true, false])
    func nothingIsVisibleBeforePublishAndEverythingAfter(flushEach: Bool) throws {
        let (temp, jobs) = try Self.setup()
        let before = try FolderSnapshot.take(temp.file("dest"))
        let staged = Self.stage(jobs, flushEach: flushEach)
        #expect(staged.allSatisfy { $0.writer != nil && $0.result.status == .done })
        #expect(try Self.contents(jobs) == ["old 0", "old 1", "old 2", "old 3"])
        #expect(try Self.tempFiles(temp).count == 4)
        let results = StagedWrites.publish(staged)
        #expect(results.map(\.status) == [.done, .done, .done, .done])
        #expect(results.map(\.destination) == jobs.map(\.destination))
        #expect(try Self.contents(jobs) == ["new 0", "new 1", "new 2", "new 3"])
        #expect(try Self.tempFiles(temp).isEmpty)
        for job in jobs {
            #expect(try POSIXFile.status(job.destination).st_mode & 0o777 == 0o600)
            #expect(UInt64(try POSIXFile.status(job.destination).st_ino) != before.entries[Path.basename(job.destination)]?.inode, "replaced by a rename")
        }
    }

    @Test func aGroupAbandonedBeforePublishLeavesEveryDestinationAsItWas() throws {
        let (temp, jobs) = try Self.setup()
        let before = try FolderSnapshot.take(temp.file("dest"))
        let staged = Self.stage(jobs, flushEach: true)
        // The caller could not make its record durable (journal, database): it publishes nothing.
        for s in staged { s.writer?.abort() }
        let after = try FolderSnapshot.take(temp.file("dest"))
        #expect(after == before, "\(after.differences(from: before))")
    }

    @Test func aFailedOrSkippedFileIsNeverPublishedAndTheOthersAre() throws {
        let (temp, jobs) = try Self.setup()
        let staged = Self.stage(jobs, flushEach: false, failing: [1], nothingToDo: [3])
        #expect(staged.map(\.result.status) == [.done, .failed, .done, .skipped])
        #expect(staged[1].writer == nil && staged[3].writer == nil)
        #expect(staged[1].result.message == "the transform failed")
        #expect(staged[3].result.message == "already new")
        #expect(try Self.tempFiles(temp).count == 2, "the failed file's half-written temp file is gone")
        let results = StagedWrites.publish(staged)
        #expect(results.map(\.status) == [.done, .failed, .done, .skipped])
        #expect(try Self.contents(jobs) == ["new 0", "old 1", "new 2", "old 3"])
        #expect(try Self.tempFiles(temp).isEmpty)
    }

    @Test func aVetoedFileIsDiscardedAtPublish() throws {
        let (temp, jobs) = try Self.setup()
        let staged = Self.stage(jobs, flushEach: true)
        let published = Mutex<[Int]>([])
        let results = StagedWrites.publish(staged, beforeEach: { $0 == 2 ? "changed meanwhile" : nil },
                                           afterEach: { i in published.withLock { $0.append(i) } })
        #expect(results.map(\.status) == [.done, .done, .failed, .done])
        #expect(results[2].message == "changed meanwhile")
        #expect(published.withLock { $0.sorted() } == [0, 1, 3])
        #expect(try Self.contents(jobs) == ["new 0", "new 1", "old 2", "new 3"])
        #expect(try Self.tempFiles(temp).isEmpty)
    }
}
