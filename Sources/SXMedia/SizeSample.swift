/// A cheap stand-in for an image when predicting how many bytes it encodes to.
///
/// Encoding a reduced copy (a downscale) would mislead: a smaller picture carries more detail per
/// pixel, so its bytes per pixel differ from the full image's by an unknown factor. A mosaic of
/// tiles cut from the image at its real scale keeps the detail per pixel, so its bytes, divided by
/// the fraction of the pixels it holds, predict the whole image's. Tiles are a multiple of 16
/// pixels (a JPEG MCU with 4:2:0 chroma), so tile seams fall on block edges and cost almost nothing.
/// libvips computes lazily: cutting tiles from a resized image resizes only the tiles' pixels.
struct SizeSample {
    /// The pixels to encode: the image itself when it is small, else every other tile of every other row.
    let image: VipsImage
    /// The sample's share of the image's pixels (1 when the sample is the image).
    let fraction: Double

    /// Below this many pixels the image is its own sample: encoding it whole is already cheap.
    static let wholeBelow = 600_000
    static let tile = 128

    init(of image: VipsImage) throws {
        let width = image.width, height = image.height, tile = Self.tile
        let columns = width / tile, rows = height / tile
        guard width * height >= Self.wholeBelow, columns >= 3, rows >= 3 else {
            self.image = image
            fraction = 1
            return
        }
        // Tiles (2i, 2j) of the grid, spread evenly over the whole picture: a quarter of its pixels.
        var tiles: [VipsImage] = []
        for row in stride(from: 0, to: rows, by: 2) {
            for column in stride(from: 0, to: columns, by: 2) {
                tiles.append(try Vips.image("extract_area", [
                    "input": .image(image), "left": .int(column * tile), "top": .int(row * tile),
                    "width": .int(tile), "height": .int(tile),
                ]))
            }
        }
        let across = (columns + 1) / 2
        self.image = try Vips.image("arrayjoin", ["in": .images(tiles), "across": .int(across)])
        fraction = Double(tiles.count * tile * tile) / Double(width * height)
    }

    private init(image: VipsImage, fraction: Double) {
        self.image = image
        self.fraction = fraction
    }

    /// The same sample with its pixels computed into memory, for encoding it more than once.
    func materialized() throws -> SizeSample {
        SizeSample(image: try ImageSource.materialize(image, operation: "sample"), fraction: fraction)
    }

    /// The whole image's predicted encoded size, from the sample's.
    func predict(_ sampleBytes: Int) -> Double { Double(sampleBytes) / fraction }
}
