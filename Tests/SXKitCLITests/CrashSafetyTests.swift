import Foundation
import Testing
import SXTestSupport

/// kill -9 in the middle of in-place batch encryption, at several points, then a rerun: every file
/// must decrypt to its original.
@Suite(.ownThreads) struct CrashSafetyTests {
    @Test func killedInPlaceEncryptionLosesNothing() throws {
        let dir = try TempFolder()
        var hashes: [String: String] = [:]
        for i in 0..<300 {
            let path = try dir.write("data/f\(i % 7)/file\(i).bin", testBytes(64 * 1024 + i, seed: i))
            hashes[path] = try sha256(path)
        }
        let manifest = dir.file("keys.json")
        let args = ["files", "encrypt", dir.file("data"), "--in-place", "--manifest", manifest, "--quiet"]
        // Kill successive runs at different instants; each rerun starts by settling the journal.
        var killed = 0
        for delay in [0.05, 0.15, 0.3, 0.08, 0.5] {
            let p = try CLI.start(args)
            Thread.sleep(forTimeInterval: delay)
            if p.isRunning { kill(p.processIdentifier, SIGKILL); killed += 1 }
            p.waitUntilExit()
            // At this instant each file is plaintext (its original) or encrypted with a key that
            // is durably in the manifest or its journal.
            let known = try keysOnDisk(manifest)
            for (path, hash) in hashes where try sha256(path) != hash {
                #expect(known.contains(path), "\(path) is encrypted but its key is nowhere on disk")
            }
        }
        #expect(killed >= 2, "the runs finished before they could be killed; make the data set bigger")
        let finish = try CLI.run(args)
        #expect(finish.status == 0, "\(finish.stderr)")
        let verify = try CLI.run(["files", "verify", "--manifest", manifest, "--json"])
        #expect(verify.status == 0)
        #expect(verify.stdout.contains("\"verified\":300"))
        let out = try CLI.run(["files", "decrypt", dir.file("data"), "--manifest", manifest, "-o", dir.file("check")])
        #expect(out.status == 0, "\(out.stderr)")
        for (path, hash) in hashes {
            let copy = dir.file("check/" + String(path.dropFirst(dir.path.count + 1)))
            #expect(try sha256(copy) == hash, "\(path) does not decrypt to its original")
        }
        let temps = FileManager.default.enumerator(atPath: dir.file("data"))!.compactMap { $0 as? String }.filter { $0.contains(".sxkit-tmp-") }
        #expect(temps.isEmpty, "temp leftovers: \(temps)")
    }

    /// Paths whose keys are on disk: manifest entries plus journal records.
    func keysOnDisk(_ manifest: String) throws -> Set<String> {
        var paths = Set<String>()
        let folder = (manifest as NSString).deletingLastPathComponent
        if let data = FileManager.default.contents(atPath: manifest),
           let entries = try JSONSerialization.jsonObject(with: data) as? [[String: Any]] {
            for e in entries {
                let p = e["filePath"] as! String
                paths.insert(p.hasPrefix("/") ? p : folder + "/" + p)
            }
        }
        if let journal = FileManager.default.contents(atPath: manifest + ".journal") {
            for line in journal.split(separator: 0x0A) {
                if let r = try? JSONSerialization.jsonObject(with: Data(line)) as? [String: Any], let p = r["filePath"] as? String {
                    paths.insert(p)
                }
            }
        }
        return paths
    }
}
