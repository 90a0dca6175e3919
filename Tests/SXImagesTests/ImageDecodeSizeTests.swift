import SXSample
import CVips
import Foundation
import SXCore
import SXTestSupport
import Testing
@testable import SXImages

/// How big inputs are decoded: libjpeg's DCT scaling for smooth JPEGs, libvips' thumbnail otherwise.
@Suite("Image decode size", .ownThreads)
struct ImageDecodeSizeTests {
    /// A smooth JPEG (few bits a pixel, like an upscaled photograph): a small synthetic picture
    /// enlarged `factor` times, saved at Q 90, optionally with EXIF orientation 6 (turn to view).
    static func smoothJPEG(width: Int, height: Int, factor: Double, orientation: Int? = nil) throws -> [UInt8] {
        let picture = try SyntheticImage.picture(width: width, height: height, seed: 51, alpha: false)
        let big = try Vips.image("resize", ["in": .image(picture), "scale": .double(factor), "kernel": "lanczos3"])
        let copy = try Vips.image("copy", ["in": .image(big)])  // a private image to set metadata on
        if let orientation { vips_image_set_int(copy.pointer, "orientation", Int32(orientation)) }
        return try Vips.call("jpegsave_buffer", ["in": .image(copy), "Q": 90]).bytes()
    }

    @Test func theDCTScalingIsTheSmallestThatCoversTheBox() throws {
        let dir = try TempFolder()
        // Header only: 5000 × 3000 declared, nothing decoded.
        let jpeg = try ImageSource.open(try dir.write("wide.jpg", try Self.smoothJPEG(width: 500, height: 300, factor: 10)))
        #expect(jpeg.width == 5000 && jpeg.height == 3000)
        #expect(jpeg.dctShrink(longSide: 1280) == 2)  // 2500 covers 1280; 1250 would not
        #expect(jpeg.dctShrink(longSide: 1250) == 4)
        #expect(jpeg.dctShrink(longSide: 600) == 8)
        #expect(jpeg.dctShrink(longSide: 2600) == 1)
        let png = try ImageSource.open(try dir.write("p.png", try SyntheticImage.png(width: 64, height: 48, seed: 1, alpha: false)))
        #expect(png.dctShrink(longSide: 32) == nil)
        // CMYK goes through the thumbnail, which converts it with an ICC profile.
        let grey = try SyntheticImage.picture(width: 64, height: 48, seed: 2, alpha: false)
        let four = try Vips.image("bandjoin", ["in": .images([grey, try Vips.image("extract_band", ["in": .image(grey), "band": 0])])])
        let cmyk = try Vips.image("copy", ["in": .image(four), "interpretation": "cmyk"])
        let cmykPath = try dir.write("cmyk.jpg", try Vips.call("jpegsave_buffer", ["in": .image(cmyk)]).bytes())
        #expect(try ImageSource.open(cmykPath).bands == 4)
        #expect(try ImageSource.open(cmykPath).dctShrink(longSide: 32) == nil)
    }

    @Test func aDCTDecodeIsUprightAndResizedOnlyWhenFarBiggerThanTheBox() throws {
        let dir = try TempFolder()
        let path = try dir.write("turned.jpg", try Self.smoothJPEG(width: 400, height: 300, factor: 8, orientation: 6))
        let source = try ImageSource.open(path)
        #expect(source.width == 3200 && source.height == 2400)
        let half = try source.decode(dctShrink: 2, longSide: 1600)
        #expect(half.width == 1200 && half.height == 1600, "\(half.width)x\(half.height)")  // turned to view
        #expect(half.bands == 3)
        let boxed = try source.decode(dctShrink: 1, longSide: 1000)  // 3200 is far over 1000: resized
        #expect(max(boxed.width, boxed.height) == 1000 && boxed.height > boxed.width)
    }

    @Test(arguments: [false, true])
    func aBigSmoothJPEGFitsWithDisplayPixels(dataURI: Bool) throws {
        let dir = try TempFolder()
        // 4800 × 3200 (15.4 MP), turned: decoded with a DCT scaling, never at full size.
        let bytes = try Self.smoothJPEG(width: 600, height: 400, factor: 8, orientation: 6)
        let input = try dir.write("big.jpg", bytes)
        #expect(Double(bytes.count) * 8 / (4800 * 3200) <= Search.denseBitsPerPixel)
        for budget in [261_120, 60 * 1024] {
            let result = try ImageCompressor.compress(input, options: .init(budget: budget, dataURI: dataURI))
            let record = result.record
            #expect(result.bytes.count <= budget, "\(budget): \(result.bytes.count) bytes")
            #expect(record.outputHeight > record.outputWidth, "not turned: \(record.outputWidth)x\(record.outputHeight)")
            #expect(record.encodes <= ImageCompressor.maximumEncodes)
            if budget == 261_120 {
                // At least the display size at a good quality; as a file, at least 2 MP (this picture
                // goes out at 2.25 MP, Q 85; a 1/4 DCT decode, 1200 × 800, would be far short).
                #expect(max(record.outputWidth, record.outputHeight) >= Search.displayLongSide)
                #expect((record.quality ?? 0) >= 80, "q\(record.quality ?? 0)")
                if !dataURI {
                    #expect(record.outputWidth * record.outputHeight >= 2_000_000,
                            "\(record.outputWidth)x\(record.outputHeight) q\(record.quality ?? 0)")
                }
            }
        }
    }
}
