import SXSample
import Foundation
import SXCore
import SXTestSupport
import Synchronization
import Testing
@testable import SXImages

@Suite("Image search: samples, budgets, encodes", .ownThreads)
struct ImageSearchTests {
    @Test func sizeSampleIsAQuarterMosaicThatPredictsTheWholeEncode() throws {
        let picture = try SyntheticImage.picture(width: 2400, height: 1600, seed: 21, alpha: false)
        let sample = try SizeSample(of: picture)
        #expect(sample.fraction > 0.2 && sample.fraction < 0.3, "fraction \(sample.fraction)")
        #expect(sample.image.width * sample.image.height < picture.width * picture.height / 3)
        // Tile (i, j) of the mosaic is tile (2i, 2j) of the picture, pixel for pixel.
        let tile = SizeSample.tile
        for (i, j) in [(0, 0), (1, 2), (5, 8)] {
            func cut(_ image: VipsImage, _ row: Int, _ column: Int) throws -> VipsImage {
                try Vips.image("extract_area", ["input": .image(image), "left": .int(column * tile), "top": .int(row * tile),
                                                "width": .int(tile), "height": .int(tile)])
            }
            let difference = try Vips.image("subtract", ["left": .image(try cut(sample.image, i, j)), "right": .image(try cut(picture, 2 * i, 2 * j))])
            let magnitude = try Vips.image("abs", ["in": .image(difference)])
            #expect(try Vips.call("max", ["in": .image(magnitude)]).double("out") == 0, "tile (\(i), \(j))")
        }
        for quality in [60, 85, 95] {
            let whole = try Vips.call("jpegsave_buffer", ["in": .image(picture), "Q": .int(quality)]).bytes().count
            let part = try Vips.call("jpegsave_buffer", ["in": .image(sample.image), "Q": .int(quality)]).bytes().count
            let predicted = sample.predict(part)
            #expect(abs(predicted / Double(whole) - 1) < 0.15, "Q\(quality): predicted \(Int(predicted)), whole \(whole)")
        }
        // Small pictures are their own sample: the prediction is the measurement.
        let small = try SyntheticImage.picture(width: 500, height: 400, seed: 22, alpha: false)
        #expect(try SizeSample(of: small).fraction == 1)
    }

    @Test func jpegQualityIsReadFromTheQuantizationTable() throws {
        let dir = try TempFolder()
        for quality in [40, 73, 85, 91, 100] {
            let path = try dir.write("q\(quality).jpg", try SyntheticImage.jpeg(width: 64, height: 48, seed: 1, quality: quality))
            #expect(JPEGQuality.estimate(path: path) == quality)
        }
        let png = try dir.write("p.png", try SyntheticImage.png(width: 64, height: 48, seed: 1, alpha: false))
        #expect(JPEGQuality.estimate(path: png) == nil)
        #expect(JPEGQuality.estimate(path: try dir.write("cut.jpg", [0xFF, 0xD8, 0xFF, 0xDB, 0x00])) == nil)
    }

    @Test func aJPEGThatFitsAtItsOwnQualityKeepsItsSizeAndQuality() throws {
        let dir = try TempFolder()
        let input = try dir.write("fits.jpg", try SyntheticImage.jpeg(width: 1200, height: 800, seed: 23, quality: 78))
        let record = try ImageCompressor.compress(input).record
        #expect(record.outputWidth == 1200 && record.outputHeight == 800)
        #expect(record.quality == 78)
        #expect(record.fullSizeEncodes == 1)
    }

    @Test(arguments: [false, true])
    func neverOverTheBudgetAndEncodesAreBounded(dataURI: Bool) throws {
        let dir = try TempFolder()
        // A photo at every budget from tiny to the default; a big one (the quarter-size look first);
        // an alpha PNG (its smallest palette PNG is ≈ 3 KB, so its budgets start above that).
        let cases: [(String, [Int])] = [
            (try dir.write("photo.jpg", try SyntheticImage.jpeg(width: 2400, height: 1600, seed: 24, quality: 92)),
             [3 * 1024, 12 * 1024, 40 * 1024, 120 * 1024, 261_120]),
            (try dir.write("big.jpg", try SyntheticImage.jpeg(width: 4000, height: 2500, seed: 25, quality: 95)), [12 * 1024, 261_120]),
            (try dir.write("alpha.png", try SyntheticImage.png(width: 1200, height: 900, seed: 26, alpha: true)), [12 * 1024, 60 * 1024]),
        ]
        for (input, budgets) in cases {
            for budget in budgets {
                let result = try ImageCompressor.compress(input, options: .init(budget: budget, dataURI: dataURI))
                let record = result.record
                let name = "\(Path.basename(input)) at \(budget)\(dataURI ? " (data URI)" : "")"
                #expect(result.bytes.count <= budget, "\(name): \(result.bytes.count) bytes")
                #expect(record.outputBytes == result.bytes.count)
                #expect(record.encodes <= ImageCompressor.maximumEncodes, "\(name): \(record.encodes) encodes")
                #expect(record.fullSizeEncodes >= 1 && record.fullSizeEncodes <= ImageCompressor.maximumFullEncodes,
                        "\(name): \(record.fullSizeEncodes) full-size encodes")
                #expect(record.fullSizeEncodes <= record.encodes)
            }
        }
    }

    @Test func theFinalEncodeUsuallyLandsFirstTime() throws {
        let dir = try TempFolder()
        var full = 0, images = 0
        for seed in 30..<36 {
            let input = try dir.write("p\(seed).jpg", try SyntheticImage.jpeg(width: 2600, height: 1700, seed: seed, quality: 93))
            let record = try ImageCompressor.compress(input).record
            #expect(record.outputBytes <= 261_120)
            full += record.fullSizeEncodes
            images += 1
        }
        // The prediction aims 2.5 % under the budget; a miss costs one more full-size encode.
        #expect(full <= images + 2, "\(full) full-size encodes for \(images) images")
    }

    @Test func errorMessagesStayWithTheirOwnFileUnderConcurrency() throws {
        let dir = try TempFolder()
        let paths = (0..<24).map { dir.file("missing-\($0).jpg") }
        let messages = Mutex<[Int: String]>([:])
        for _ in 0..<3 {
            ParallelWork.forEach(count: paths.count, jobs: 8) { index in
                do {
                    _ = try Vips.call("jpegload", ["filename": .string(paths[index])])
                    messages.withLock { $0[index] = "loaded?" }
                } catch {
                    messages.withLock { $0[index] = "\(error)" }
                }
            }
            for (index, path) in paths.enumerated() {
                let message = messages.withLock { $0[index] } ?? ""
                #expect(message.contains(path), "\(index): \(message)")
                for (other, otherPath) in paths.enumerated() where other != index {
                    #expect(!message.contains(otherPath + "\""), "\(index) carries \(other)'s text: \(message)")
                }
            }
        }
    }

    @Test func memoryGateKeepsTheEstimatesInFlightUnderItsCap() throws {
        let gate = MemoryGate(capacity: 100)
        let inside = Atomic<Int>(0)
        let most = Atomic<Int>(0)
        ParallelWork.forEach(count: 16, jobs: 6) { index in
            gate.with(bytes: index == 5 ? 250 : 40) {
                let now = inside.add(1, ordering: .relaxed).newValue
                _ = most.max(now, ordering: .relaxed)
                usleep(3000)
                inside.subtract(1, ordering: .relaxed)
            }
        }
        // 40 + 40 fit under 100, a third does not; the 250 one went alone.
        #expect(gate.peak <= 250)
        #expect(most.load(ordering: .relaxed) <= 2)
        #expect(most.load(ordering: .relaxed) >= 1)
    }
}
