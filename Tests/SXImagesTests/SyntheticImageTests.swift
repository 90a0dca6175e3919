import SXSample
import Testing
import SXImages

@Suite("SyntheticImage")
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

@Suite("Vips operations")
struct VipsOperationTests {
    @Test func unknownOperationIsNamedInTheError() {
        do {
            _ = try Vips.call("no_such_operation_sx")
            Issue.record("expected an error")
        } catch let error as VipsError {
            #expect(error.operation == "no_such_operation_sx")
            #expect(error.description.contains("no_such_operation_sx"))
            #expect(error.exitStatus == .failed)
        } catch {
            Issue.record("unexpected error type: \(error)")
        }
    }

    @Test func unknownArgumentAndWrongTypesThrow() {
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": 4, "height": 4, "nonsense": 1]) }
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": "four", "height": 4]) }
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": 0, "height": 4]) }  // out of range
        #expect(throws: VipsError.self) { _ = try Vips.image("black", ["width": 4]) }  // missing required input
        #expect(throws: VipsError.self) { _ = try Vips.image("cast", ["in": .image(try black()), "format": "nope"]) }
    }

    @Test func scalarArrayBlobAndEnumArgumentsRoundTrip() throws {
        let image = try Vips.image("linear", ["in": .image(try black()), "a": .doubles([1]), "b": .doubles([10, 20, 30])])
        #expect(image.bands == 3)
        let average = try Vips.call("avg", ["in": .image(image)]).double("out")
        #expect(abs(average - 20) < 1e-9)

        let grey = try Vips.image("cast", ["in": .image(image), "format": "uchar"])
        let encoded = try Vips.call("pngsave_buffer", ["in": .image(grey)]).bytes()
        let (decoded, format) = try Vips.load(encoded)
        #expect(format == "png")
        #expect(decoded.width == 8 && decoded.height == 5 && decoded.bands == 3)
    }

    private func black() throws -> VipsImage {
        try Vips.image("black", ["width": 8, "height": 5])
    }
}
