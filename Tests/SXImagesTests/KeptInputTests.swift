import Foundation
import SXSample
import SXTestSupport
import Testing
@testable import SXImages

/// Issue 15, item 11: an image is never made bigger than its input.
@Suite("KeptInput", .ownThreads)
struct KeptInputTests {
    /// `jpeg` with an EXIF segment (orientation, then words standing for GPS and camera data) and a
    /// comment inserted after its start-of-image marker.
    static func withMetadata(_ jpeg: [UInt8], orientation: Int) -> [UInt8] {
        var exif = LosslessStrip.minimalEXIF(orientation: orientation)
        let secret = Array("GPS 48.8584 N 2.2945 E, camera serial 1234".utf8)
        exif += secret
        let length = exif.count - 2
        exif[2] = UInt8(length >> 8)
        exif[3] = UInt8(length & 0xFF)
        let comment: [UInt8] = [0xFF, 0xFE, 0x00, 0x10] + Array("secret comment".utf8)
        return Array(jpeg.prefix(2)) + exif + comment + Array(jpeg.dropFirst(2))
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let n = Array(needle.utf8)
        return haystack.count >= n.count && (0...(haystack.count - n.count)).contains { Array(haystack[$0..<($0 + n.count)]) == n }
    }

    @Test func stripDropsMetadataAndKeepsTheOrientationAndTheScanBytes() throws {
        let plain = try SyntheticImage.jpeg(width: 320, height: 240, seed: 11, quality: 30)
        let tagged = Self.withMetadata(plain, orientation: 6)
        let stripped = try #require(LosslessStrip.strip(tagged + Array("trailer".utf8)))
        #expect(!Self.contains(stripped, "GPS") && !Self.contains(stripped, "secret") && !Self.contains(stripped, "trailer"))
        #expect(Self.contains(stripped, "Exif"))
        let app1 = try #require((0..<stripped.count - 1).first { stripped[$0] == 0xFF && stripped[$0 + 1] == 0xE1 })
        #expect(LosslessStrip.tiffOrientation(Array(stripped[(app1 + 10)...])) == 6)
        // Orientation 1 needs no EXIF at all: exactly the plain file again.
        #expect(LosslessStrip.strip(Self.withMetadata(plain, orientation: 1)) == LosslessStrip.strip(plain))
        #expect(try SyntheticImage.header(of: stripped).width == 320)
    }

    @Test func aSmallWellCompressedJPEGIsKeptNotReencodedBigger() throws {
        let dir = try TempFolder()
        let plain = try SyntheticImage.jpeg(width: 400, height: 300, seed: 12, quality: 30)
        let input = try dir.write("small.jpg", Self.withMetadata(plain, orientation: 1))
        let result = try ImageCompressor.compress(input)
        #expect(result.record.action == .stripped)
        #expect(result.bytes.count < Int(result.record.inputBytes))
        #expect(!Self.contains(result.bytes, "secret"))
        #expect(result.record.quality == nil && result.record.outputWidth == 400)
        let kept = try ImageCompressor.compress(input, options: .init(keepMetadata: true))
        #expect(kept.record.action == .kept)
        #expect(kept.bytes == (try dir.read("small.jpg")))
    }

    @Test func aPNGWithTextChunksLosesThemAndNothingElse() throws {
        let png = try SyntheticImage.png(width: 64, height: 64, seed: 13, alpha: true)
        // A tEXt chunk after IHDR (its CRC is not checked by the walk).
        let text = Array("Comment\0secret".utf8)
        let chunk = [0, 0, 0, UInt8(text.count)] + Array("tEXt".utf8) + text + [0, 0, 0, 0]
        let ihdrEnd = 8 + 12 + 13
        let tagged = Array(png.prefix(ihdrEnd)) + chunk + Array(png.dropFirst(ihdrEnd))
        let stripped = try #require(LosslessStrip.strip(tagged))
        #expect(!Self.contains(stripped, "secret"))
        #expect(stripped == LosslessStrip.strip(png))
    }
}
