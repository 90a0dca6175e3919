import SXImages
import SXSample
import Testing
import SXTestSupport

/// SXSample's synthetic images: decodable, of the asked size and bands, the same for a seed.
@Suite("SyntheticImage", .ownThreads)
struct SyntheticImageTests {
    @Test func jpegHasMagicAndRequestedSize() throws {
        let bytes = try SyntheticImage.jpeg(width: 97, height: 61, seed: 1)
        #expect(Array(bytes.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let header = try SyntheticImage.header(of: bytes)
        #expect(header.width == 97)
        #expect(header.height == 61)
        #expect(header.format == "jpeg")
    }

    @Test func pngWithAlphaHasFourBands() throws {
        let bytes = try SyntheticImage.png(width: 40, height: 30, seed: 2, alpha: true)
        #expect(Array(bytes.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        let (image, format) = try Vips.load(bytes)
        #expect(format == "png")
        #expect(image.width == 40 && image.height == 30)
        #expect(image.bands == 4)
        #expect(image.hasAlpha)
    }

    @Test func pngWithoutAlphaHasThreeBands() throws {
        let (image, _) = try Vips.load(try SyntheticImage.png(width: 16, height: 9, seed: 2, alpha: false))
        #expect(image.bands == 3)
        #expect(!image.hasAlpha)
    }

    @Test func sameSeedSameBytesDifferentSeedDifferentBytes() throws {
        let first = try SyntheticImage.jpeg(width: 64, height: 48, seed: 7)
        let again = try SyntheticImage.jpeg(width: 64, height: 48, seed: 7)
        let other = try SyntheticImage.jpeg(width: 64, height: 48, seed: 8)
        #expect(first == again)
        #expect(first != other)

        let png = try SyntheticImage.png(width: 32, height: 32, seed: 7, alpha: true)
        #expect(png == (try SyntheticImage.png(width: 32, height: 32, seed: 7, alpha: true)))
        #expect(png != (try SyntheticImage.png(width: 32, height: 32, seed: 8, alpha: true)))
    }

    @Test func qualityChangesOutput() throws {
        let low = try SyntheticImage.jpeg(width: 64, height: 64, seed: 3, quality: 20)
        let high = try SyntheticImage.jpeg(width: 64, height: 64, seed: 3, quality: 95)
        #expect(low.count < high.count)
    }

    @Test func garbageBytesDoNotLoad() {
        #expect(throws: VipsError.self) {
            _ = try SyntheticImage.header(of: Array("definitely not an image".utf8))
        }
        #expect(throws: VipsError.self) {
            _ = try SyntheticImage.header(of: [])
        }
    }
}
