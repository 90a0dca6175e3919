import SXSample
import Foundation
import SXImages
import SXTestSupport
import Testing

/// `sxkit image compress` end to end: the batch, its outputs, its report, and its failures.
@Suite(.ownThreads) struct ImageCommandTests {
    @Test func batchKeepsGoingPastFailuresAndNamesEach() throws {
        let dir = try TempFolder()
        try dir.write("in/album/photo.jpg", try SyntheticImage.jpeg(width: 2000, height: 1500, seed: 1))
        try dir.write("in/album/sticker.png", try SyntheticImage.png(width: 400, height: 400, seed: 2, alpha: true))
        try dir.write("in/notes.jpg", Array("not a picture\n".utf8))
        try dir.write("in/empty.png", [])
        let jpeg = try SyntheticImage.jpeg(width: 600, height: 400, seed: 3)
        try dir.write("in/cut.jpg", Array(jpeg.prefix(jpeg.count / 2)))

        let r = try CLI.run(["image", "compress", dir.file("in"), "-o", dir.file("out")])
        #expect(r.status == 3, "\(r.stdout)\(r.stderr)")
        for name in ["notes.jpg", "empty.png", "cut.jpg"] {
            #expect(r.stderr.contains("failed   '\(dir.file("in/\(name)"))'"), "\(name) not named: \(r.stderr)")
        }
        #expect(r.stdout.contains("photo.jpg"))
        #expect(r.stdout.contains("3 FAILED"))
        // Folder structure kept; the transparent one is a PNG.
        for (name, format) in [("out/in/album/photo.jpg", "jpeg"), ("out/in/album/sticker.png", "png")] {
            let bytes = try dir.read(name)
            #expect(bytes.count <= 261_120)
            #expect(try SyntheticImage.header(of: bytes).format == format)
        }
        #expect(!FileManager.default.fileExists(atPath: dir.file("out/in/notes.jpg")))
    }

    /// libvips' optional modules are opened only when needed: a fresh process given an AVIF must
    /// still find the HEIF loader (and a JPEG-only run never opens them).
    @Test(.enabled(if: VipsRuntime.supportedInputs.contains("heif/heic/avif")))
    func anAVIFIsReadThroughTheOptionalModuleOpenedOnDemand() throws {
        let dir = try TempFolder()
        let picture = try Vips.load(try SyntheticImage.jpeg(width: 900, height: 600, seed: 8)).image
        let avif = try dir.write("photo.avif", try Vips.call("heifsave_buffer", ["in": .image(picture)]).bytes())
        let r = try CLI.run(["image", "compress", avif, "-o", dir.file("out"), "--json", "-q"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("\"inputFormat\":\"heif\""), "\(r.stdout)")
        #expect(try SyntheticImage.header(of: try dir.read("out/photo.jpg")).format == "jpeg")
    }

    @Test func jsonHasOneRecordPerImageAndASummary() throws {
        let dir = try TempFolder()
        let a = try dir.write("a.jpg", try SyntheticImage.jpeg(width: 1600, height: 1200, seed: 4))
        let b = try dir.write("b.jpg", Array("text".utf8))
        let r = try CLI.run(["image", "compress", a, b, "-o", dir.file("out"), "--max-size", "20KiB", "--json"])
        #expect(r.status == 3)
        let lines = r.stdout.split(separator: "\n").map(String.init).filter { !$0.contains("\"type\":\"progress\"") }
        let objects = try lines.map { try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let images = objects.filter { $0["type"] as? String == "image" }
        #expect(images.count == 2)
        let done = try #require(images.first { $0["status"] as? String == "encoded" })
        #expect((done["outputBytes"] as? Int ?? .max) <= 20 * 1024)
        #expect(done["inputWidth"] as? Int == 1600 && done["outputFormat"] as? String == "jpeg")
        for key in ["inputBytes", "inputHeight", "outputWidth", "outputHeight", "quality", "encodes", "fullSizeEncodes"] {
            #expect(done[key] is Int, "missing \(key)")
        }
        #expect(done["seconds"] is NSNumber && done["milliseconds"] == nil)
        #expect(images.contains { $0["status"] as? String == "failed" && ($0["error"] as? String ?? "").contains(b) })
        let summary = try #require(objects.last)
        let counts = summary["counts"] as? [String: Int]
        #expect(summary["type"] as? String == "summary" && counts?["encoded"] == 1 && counts?["failed"] == 1, "\(summary)")
    }

    @Test func stdoutTakesOneImageOrOneDataURI() throws {
        let dir = try TempFolder()
        let a = try dir.write("a.png", try SyntheticImage.png(width: 500, height: 300, seed: 5, alpha: false))
        let raw = try CLI.run(["image", "compress", a, "-o", "-"])
        #expect(raw.status == 0, "\(raw.stderr)")
        #expect(try SyntheticImage.header(of: raw.stdoutBytes).format == "jpeg")
        let uri = try CLI.run(["image", "compress", a, "-o", "-", "--data-uri", "--max-size", "30KiB"])
        #expect(uri.status == 0)
        #expect(uri.stdout.hasPrefix("data:image/jpg;base64,") && uri.stdoutBytes.count <= 30 * 1024)
        let two = try CLI.run(["image", "compress", a, a, "-o", "-"])
        #expect(two.status == 2)
    }

    @Test func dataURIFilesAreTxtAndFit() throws {
        let dir = try TempFolder()
        let a = try dir.write("pic.jpg", try SyntheticImage.jpeg(width: 1200, height: 800, seed: 6))
        let r = try CLI.run(["image", "compress", a, "-o", dir.file("out"), "--data-uri", "--max-size", "20KiB"])
        #expect(r.status == 0, "\(r.stderr)")
        let text = try dir.read("out/pic.txt")
        #expect(text.count <= 20 * 1024)
        #expect(String(decoding: text, as: UTF8.self).hasPrefix("data:image/jpg;base64,"))
    }

    @Test func anInputIsNeverOverwritten() throws {
        let dir = try TempFolder()
        let original = try SyntheticImage.jpeg(width: 900, height: 600, seed: 7)
        let a = try dir.write("a.jpg", original)
        let r = try CLI.run(["image", "compress", a, "-o", dir.path])
        #expect(r.status == 1, "nothing was done")
        #expect(r.stderr.contains("is one of the inputs"))
        #expect(try dir.read("a.jpg") == original)
    }

    @Test func tinyBudgetAndBombAreRefusedPerFile() throws {
        let dir = try TempFolder()
        let a = try dir.write("a.jpg", try SyntheticImage.jpeg(width: 900, height: 600, seed: 8))
        let r = try CLI.run(["image", "compress", a, "-o", dir.file("out"), "--max-size", "100"])
        #expect(r.status == 1, "its one image failed: nothing was done")
        #expect(r.stderr.contains("cannot fit in 100 bytes"))
        let big = try CLI.run(["image", "compress", a, "-o", dir.file("out2"), "--max-pixels", "100000"])
        #expect(big.status == 1)
        #expect(big.stderr.contains("above the limit"))
    }

    @Test func unreadableFileIsNamed() throws {
        guard getuid() == 0 else { return }  // needs to become another user; chmod 000 does not stop root
        let dir = try TempFolder()
        chmod(dir.path, 0o755)
        let locked = try dir.write("locked.jpg", try SyntheticImage.jpeg(width: 300, height: 200, seed: 9))
        let open = try dir.write("open.jpg", try SyntheticImage.jpeg(width: 300, height: 200, seed: 10))
        chmod(locked, 0o000)
        chmod(open, 0o644)
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        chmod(dir.file("out"), 0o777)
        let r = try CLI.run(["image", "compress", locked, open, "-o", dir.file("out")],
                            prefix: ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"])
        #expect(r.status == 3, "\(r.stderr)")
        #expect(r.stderr.contains("cannot read '\(locked)': Permission denied"))
        #expect(FileManager.default.fileExists(atPath: dir.file("out/open.jpg")))
    }

    /// Issue 15, item 11: a small, well-compressed JPEG (a re-encode at the quality the budget allows
    /// would be bigger) is kept, its comment removed without re-encoding, and the report says so.
    @Test func anImageWithinTheBudgetIsNeverMadeBigger() throws {
        let dir = try TempFolder()
        let plain = try SyntheticImage.jpeg(width: 400, height: 300, seed: 14, quality: 30)
        let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x10] + Array("secret comment".utf8)
        let input = try dir.write("small.jpg", Array(plain.prefix(2)) + comment + Array(plain.dropFirst(2)))
        let r = try CLI.run(["image", "compress", input, "-o", dir.file("out"), "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"status\":\"stripped\""), "\(r.stdout)")
        let out = try dir.read("out/small.jpg")
        #expect(out.count < (try dir.read("small.jpg")).count)
        #expect(out == plain, "not the input's own bytes without the comment")
        let text = try CLI.run(["image", "compress", input, "-o", dir.file("out2")])
        #expect(text.stdout.contains("stripped"), "\(text.stdout)")
    }
}
