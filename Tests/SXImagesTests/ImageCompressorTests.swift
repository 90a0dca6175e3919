import SXSample
import CVips
import Foundation
import SXTestSupport
import Testing
@testable import SXImages

@Suite("ImageCompressor", .ownThreads)
struct ImageCompressorTests {
    static let budget = 261_120

    /// Every input format this libvips reads, as (file name, bytes).
    static func inputs() throws -> [(String, [UInt8])] {
        var list: [(String, [UInt8])] = [
            ("photo.jpg", try SyntheticImage.jpeg(width: 2400, height: 1600, seed: 11)),
            ("opaque.png", try SyntheticImage.png(width: 900, height: 700, seed: 12, alpha: false)),
            ("alpha.png", try SyntheticImage.png(width: 900, height: 700, seed: 13, alpha: true)),
            ("photo.webp", try Fixtures.encoded("webpsave_buffer", width: 1600, height: 1200, seed: 14)),
            ("still.gif", try Fixtures.encoded("gifsave_buffer", width: 640, height: 480, seed: 15)),
            ("scan.tif", try Fixtures.encoded("tiffsave_buffer", width: 1200, height: 900, seed: 16)),
        ]
        if VipsRuntime.supportedInputs.contains("heif/heic/avif"),
           let avif = try? Fixtures.encoded("heifsave_buffer", width: 640, height: 480, seed: 17) {
            list.append(("photo.avif", avif))
        }
        return list
    }

    @Test(arguments: [261_120, 20 * 1024])
    func everyFormatFitsTheBudgetAndVipsheaderReadsIt(budget: Int) throws {
        let dir = try TempFolder()
        for (name, bytes) in try Self.inputs() {
            let input = try dir.write(name, bytes)
            let result = try ImageCompressor.compress(input, options: .init(budget: budget))
            #expect(result.bytes.count <= budget, "\(name): \(result.bytes.count) > \(budget)")
            #expect(result.record.outputBytes == result.bytes.count)
            #expect(result.record.encodes >= 1 && result.record.encodes <= ImageCompressor.maximumEncodes)
            let output = try dir.write("out-\(name).\(result.record.outputFormat.fileExtension)", result.bytes)
            let header = Fixtures.vipsheader(output)
            #expect(header?.contains("\(result.record.outputWidth)x\(result.record.outputHeight)") == true, "\(name): \(header ?? "unreadable")")
        }
    }

    @Test func dataURIStringFitsTheBudget() throws {
        let dir = try TempFolder()
        for (name, bytes) in try Self.inputs() where name == "photo.jpg" || name == "alpha.png" {
            let input = try dir.write(name, bytes)
            for budget in [Self.budget, 20 * 1024] {
                let result = try ImageCompressor.compress(input, options: .init(budget: budget, dataURI: true))
                let text = String(decoding: result.bytes, as: UTF8.self)
                #expect(result.bytes.count <= budget)
                let prefix = name.hasSuffix(".png") ? "data:image/png;base64," : "data:image/jpg;base64,"
                #expect(text.hasPrefix(prefix))
                let decoded = try #require(Data(base64Encoded: String(text.dropFirst(prefix.count))))
                #expect(try SyntheticImage.header(of: [UInt8](decoded)).width == result.record.outputWidth)
            }
        }
    }

    @Test func transparencyGivesPNGAndOpaqueGivesJPEG() throws {
        let dir = try TempFolder()
        let alpha = try dir.write("a.png", try SyntheticImage.png(width: 300, height: 200, seed: 1, alpha: true))
        let opaque = try dir.write("o.png", try SyntheticImage.png(width: 300, height: 200, seed: 1, alpha: false))
        // An alpha band that is 255 everywhere is not transparency.
        let picture = try SyntheticImage.picture(width: 300, height: 200, seed: 1, alpha: false)
        let solid = try Vips.image("bandjoin_const", ["in": .image(picture), "c": .doubles([255])])
        let flat = try dir.write("flat.png", try Vips.call("pngsave_buffer", ["in": .image(solid)]).bytes())
        #expect(try SyntheticImage.header(of: try dir.read("flat.png")).format == "png")

        #expect(try ImageCompressor.compress(alpha).record.outputFormat == .png)
        #expect(try ImageCompressor.compress(opaque).record.outputFormat == .jpeg)
        #expect(try ImageCompressor.compress(flat).record.outputFormat == .jpeg)
        let forced = try ImageCompressor.compress(alpha, options: .init(format: .jpeg))
        #expect(forced.record.outputFormat == .jpeg)
        #expect(try SyntheticImage.header(of: forced.bytes).format == "jpeg")
        #expect(try ImageCompressor.compress(opaque, options: .init(format: .png)).record.outputFormat == .png)
    }

    @Test func exifOrientationIsApplied() throws {
        let dir = try TempFolder()
        let input = try dir.write("rotated.jpg", try Fixtures.rotatedJPEG(width: 600, height: 400))
        #expect(Fixtures.vipsheader(input, all: true)?.contains("orientation: 6") == true)
        let result = try ImageCompressor.compress(input)
        #expect(result.record.inputWidth == 600 && result.record.inputHeight == 400)
        #expect(result.record.outputWidth == 400 && result.record.outputHeight == 600)
        let header = try SyntheticImage.header(of: result.bytes)
        #expect(header.width == 400 && header.height == 600)
    }

    @Test func metadataIsStrippedUnlessKept() throws {
        let dir = try TempFolder()
        let input = try dir.write("rotated.jpg", try Fixtures.rotatedJPEG(width: 600, height: 400))
        #expect(Fixtures.vipsheader(input, all: true)?.contains("exif-data") == true)
        let stripped = try dir.write("stripped.jpg", try ImageCompressor.compress(input).bytes)
        let plain = try #require(Fixtures.vipsheader(stripped, all: true))
        for field in ["exif-data", "xmp-data", "icc-profile-data", "iptc-data"] {
            #expect(!plain.contains(field), "\(field) left in the output")
        }
        let kept = try dir.write("kept.jpg", try ImageCompressor.compress(input, options: .init(keepMetadata: true)).bytes)
        #expect(Fixtures.vipsheader(kept, all: true)?.contains("exif-data") == true)
    }

    @Test func atLeastTheReferenceLoopsPixels() throws {
        let dir = try TempFolder()
        for (index, size) in [(4000, 3000), (3000, 2000), (1920, 1080), (1600, 1600)].enumerated() {
            let bytes = try SyntheticImage.jpeg(width: size.0, height: size.1, seed: 40 + index, quality: 92)
            let input = try dir.write("p\(index).jpg", bytes)
            let reference = try Fixtures.referenceLoop(bytes, budget: Self.budget)
            let ours = try ImageCompressor.compress(input).record
            #expect(ours.outputBytes <= Self.budget)
            #expect(ours.outputWidth * ours.outputHeight >= reference.width * reference.height,
                    "\(size): ours \(ours.outputWidth)x\(ours.outputHeight) q\(ours.quality ?? 0), reference \(reference.width)x\(reference.height)")
        }
    }

    @Test func animatedGIFThatFitsIsKeptWhole() throws {
        let dir = try TempFolder()
        let frames = try (0..<3).map { try SyntheticImage.picture(width: 80, height: 60, seed: $0, alpha: false) }
        let strip = try Vips.image("arrayjoin", ["in": .images(frames), "across": 1])
        let tall = try Vips.image("copy", ["in": .image(strip)])
        vips_image_set_int(tall.pointer, "page-height", 60)
        let gif = try Vips.call("gifsave_buffer", ["in": .image(tall)]).bytes()
        let input = try dir.write("anim.gif", gif)
        let result = try ImageCompressor.compress(input)
        #expect(result.record.outputFormat == .gif)
        #expect(result.bytes == gif)
        #expect(Fixtures.vipsheader(try dir.write("out.gif", result.bytes), all: true)?.contains("n-pages: 3") == true)
    }
}
