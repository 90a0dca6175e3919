import SXSample
import Foundation
import SXTestSupport
import Testing
@testable import SXImages

@Suite("ImageCompressor bad input")
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
