import SXSample
import Foundation
import SXTestSupport
import Testing
@testable import SXImages

@Suite("ImageCompressor bad input", .ownThreads)
struct ImageBadInputTests {
    func reason(_ path: String, _ options: ImageCompressionOptions = .init()) -> ImageError.Reason? {
        do {
            _ = try ImageCompressor.compress(path, options: options)
            return nil
        } catch let error as ImageError {
            #expect(error.description.contains(path), "the error names the file: \(error)")
            return error.reason
        } catch {
            Issue.record("not an ImageError: \(error)")
            return nil
        }
    }

    @Test func zeroBytesAndTextAreRefused() throws {
        let dir = try TempFolder()
        #expect(reason(try dir.write("empty.png", [])) == .empty)
        #expect(reason(try dir.write("notes.jpg", Array("just some text, not a picture\n".utf8))) == .notAnImage)
        #expect(reason(dir.file("missing.jpg")) == .unreadable("No such file or directory"))
    }

    @Test("formats libvips reads but sxkit does not admit (PPM, SVG, a BMP through ImageMagick) are refused by name, before decoding")
    func onlyTheDocumentedFormatsAreRead() throws {
        let dir = try TempFolder()
        // PPM: libvips' own loader; SVG: librsvg's (when libvips has it); BMP: ImageMagick's (when its module is there).
        let ppm = Array("P6\n4 4\n255\n".utf8) + [UInt8](repeating: 0x80, count: 48)
        #expect(reason(try dir.write("picture.ppm", ppm)) == .unsupportedFormat("ppm"))
        let svg = Array(#"<svg xmlns="http://www.w3.org/2000/svg" width="40" height="40"><rect width="40" height="40" fill="red"/></svg>"#.utf8)
        let svgReason = reason(try dir.write("drawing.svg", svg))
        #expect(svgReason == .unsupportedFormat("svg") || svgReason == .notAnImage, "\(String(describing: svgReason))")
        var bmp: [UInt8] = Array("BM".utf8) + le32(70) + le32(0) + le32(54) + le32(40) + le32(2) + le32(2) + [1, 0, 24, 0] + le32(0) + le32(16)
        bmp += le32(2835) + le32(2835) + le32(0) + le32(0) + [UInt8](repeating: 0x40, count: 16)
        let bmpReason = reason(try dir.write("old.bmp", bmp))
        #expect(bmpReason == .unsupportedFormat("magick") || bmpReason == .notAnImage, "\(String(describing: bmpReason))")
        #expect(ImageError(path: "picture.ppm", reason: .unsupportedFormat("ppm")).description.hasPrefix("'picture.ppm' is a ppm file, which sxkit does not read; it reads jpeg, png"))
    }

    private func le32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24)] }

    @Test func truncatedAndCorruptJPEGAndPNGAreDamaged() throws {
        let dir = try TempFolder()
        let jpeg = try SyntheticImage.jpeg(width: 800, height: 600, seed: 5)
        let png = try SyntheticImage.png(width: 800, height: 600, seed: 5, alpha: false)
        var corruptJPEG = jpeg
        for i in stride(from: jpeg.count / 3, to: jpeg.count - 2, by: 7) { corruptJPEG[i] = 0xFF }  // markers everywhere
        var corruptPNG = png
        for i in stride(from: 200, to: png.count - 20, by: 97) { corruptPNG[i] ^= 0x5A }  // IDAT CRCs fail
        let cases: [(String, [UInt8])] = [
            ("half.jpg", Array(jpeg.prefix(jpeg.count / 2))), ("corrupt.jpg", corruptJPEG),
            ("half.png", Array(png.prefix(png.count / 2))), ("corrupt.png", corruptPNG),
        ]
        for (name, bytes) in cases {
            let got = reason(try dir.write(name, bytes))
            guard case .damaged(let format, _)? = got else {
                Issue.record("\(name): expected damaged, got \(String(describing: got))")
                continue
            }
            #expect(format == (name.hasSuffix(".jpg") ? "jpeg" : "png"))
        }
    }

    @Test func decompressionBombIsRefusedFromItsHeader() throws {
        let dir = try TempFolder()
        let bomb = try dir.write("bomb.png", Fixtures.pngBomb())
        #expect(Fixtures.vipsheader(bomb)?.contains("50000x50000") == true)
        let before = Self.peakResidentKiB()
        let clock = ContinuousClock()
        let start = clock.now
        #expect(reason(bomb) == .tooManyPixels(width: 50_000, height: 50_000, limit: 100_000_000))
        #expect(start.duration(to: clock.now) < .seconds(2))
        #expect(Self.peakResidentKiB() - before < 64 * 1024, "peak memory grew by more than 64 MiB")
    }

    /// Files a decoder must hold whole (a progressive JPEG's coefficients, an interlaced PNG) are
    /// measured from the header and refused over the limit, before decoding; the same pictures
    /// stored to be read as a stream are compressed.
    @Test func wholeImageDecodesAreBoundedFromTheHeader() throws {
        let dir = try TempFolder()
        let picture = try SyntheticImage.picture(width: 1200, height: 900, seed: 4, alpha: false)
        func save(_ name: String, _ saver: String, interlace: Bool) throws -> String {
            try dir.write(name, try Vips.call(saver, ["in": .image(picture), "interlace": .bool(interlace)]).bytes())
        }
        let progressive = try save("progressive.jpg", "jpegsave_buffer", interlace: true)
        let interlaced = try save("interlaced.png", "pngsave_buffer", interlace: true)
        let baseline = try save("baseline.jpg", "jpegsave_buffer", interlace: false)
        let plain = try save("plain.png", "pngsave_buffer", interlace: false)
        let limit = ImageCompressionOptions(maxWholeDecodeBytes: 1 << 20)
        // 4:2:0 coefficients: 2 bytes each for luma and a quarter each for the two chroma planes.
        guard case .tooBigToDecodeWhole(1200, 900, let kind, let bytes, 1 << 20)? = reason(progressive, limit) else {
            Issue.record("the progressive JPEG was not refused: \(String(describing: reason(progressive, limit)))")
            return
        }
        #expect(kind.contains("progressive JPEG") && bytes == 1200 * 900 * 3, "\(kind) \(bytes)")
        #expect(reason(interlaced, limit) == .tooBigToDecodeWhole(width: 1200, height: 900, kind: "an interlaced PNG, which is decoded whole",
                                                                  bytes: 1200 * 900 * 3, limit: 1 << 20))
        #expect(reason(baseline, limit) == nil && reason(plain, limit) == nil, "streamed files are not bounded by it")
        #expect(reason(progressive) == nil && reason(interlaced) == nil, "the default limit admits them")
        let sentence = ImageError(path: progressive, reason: .tooBigToDecodeWhole(width: 1200, height: 900, kind: kind, bytes: bytes, limit: 1 << 20))
        #expect(sentence.description.contains("decoding it would take 3.09 MiB at once, above the limit of 1.00 MiB; refused without decoding it"),
                "\(sentence.description)")
    }

    @Test func aBudgetNothingFitsIsAClearError() throws {
        let dir = try TempFolder()
        let input = try dir.write("photo.jpg", try SyntheticImage.jpeg(width: 1200, height: 900, seed: 9))
        guard case .cannotFit(let budget, let smallest, let side)? = reason(input, .init(budget: 100)) else {
            Issue.record("expected cannotFit")
            return
        }
        #expect(budget == 100 && smallest > 100 && side == 64)
    }

    static func peakResidentKiB() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss
    }
}
