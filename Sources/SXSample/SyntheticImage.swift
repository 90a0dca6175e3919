import SXCore
import SXImages
/// Deterministic, photo-like test images, encoded by libvips: smooth colour gradients, a soft
/// diagonal wave and a little Gaussian noise. The same arguments give the same bytes, in any process;
/// a different seed gives different bytes.
public enum SyntheticImage {
    /// A baseline sRGB JPEG. `quality` is libvips' Q factor, 1...100.
    public static func jpeg(width: Int, height: Int, seed: Int, quality: Int = 90) throws -> [UInt8] {
        let image = try picture(width: width, height: height, seed: seed, alpha: false)
        return try Vips.call("jpegsave_buffer", ["in": .image(image), "Q": .int(quality), "strip": true]).bytes()
    }

    /// An 8-bit sRGB PNG; with `alpha`, a fourth band that fades from half to fully opaque, top to bottom.
    public static func png(width: Int, height: Int, seed: Int, alpha: Bool) throws -> [UInt8] {
        let image = try picture(width: width, height: height, seed: seed, alpha: alpha)
        return try Vips.call("pngsave_buffer", ["in": .image(image), "compression": 6, "strip": true]).bytes()
    }

    /// Width, height and format ("jpeg", "png", …) of encoded image bytes; only the header is decoded.
    public static func header(of bytes: [UInt8]) throws -> (width: Int, height: Int, format: String) {
        let (image, format) = try Vips.load(bytes)
        return (image.width, image.height, format)
    }

    /// The uncoded 8-bit sRGB image (3 bands, or 4 with `alpha`), for tests that drive libvips directly.
    public static func picture(width: Int, height: Int, seed: Int, alpha: Bool) throws -> VipsImage {
        guard width > 0, height > 0 else {
            throw VipsError(operation: "xyz", message: "image size must be positive, got \(width)x\(height)")
        }
        var random = SeedMixer(seed)
        let w = Double(width), h = Double(height)

        // Two uint bands holding each pixel's x and y.
        let xyz = try Vips.image("xyz", ["width": .int(width), "height": .int(height)])
        let x = try Vips.image("extract_band", ["in": .image(xyz), "band": 0])
        let y = try Vips.image("extract_band", ["in": .image(xyz), "band": 1])

        // Red runs across, green down, each rising or falling (seed's choice) over a seed-chosen span.
        let redRamp = random.ramp(over: w, span: 140...200, base: 20...60)
        let red = try Vips.image("linear", ["in": .image(x), "a": .double(redRamp.a), "b": .double(redRamp.b)])
        let greenRamp = random.ramp(over: h, span: 120...190, base: 30...70)
        let green = try Vips.image("linear", ["in": .image(y), "a": .double(greenRamp.a), "b": .double(greenRamp.b)])

        // Blue: a soft diagonal wave, sin((x + y) * frequency + phase), scaled to 60...200.
        let diagonal = try Vips.image("add", ["left": .image(x), "right": .image(y)])
        let degrees = try Vips.image("linear", [
            "in": .image(diagonal), "a": .double(360 * random.unit(1, 3) / (w + h)), "b": .double(random.unit(0, 360)),
        ])
        let wave = try Vips.image("math", ["in": .image(degrees), "math": "sin"])
        let blue = try Vips.image("linear", ["in": .image(wave), "a": 70.0, "b": 130.0])

        // Grain: one band of zero-mean noise added to all three colour bands.
        let rgb = try Vips.image("bandjoin", ["in": .images([red, green, blue])])
        let noise = try Vips.image("gaussnoise", [
            "width": .int(width), "height": .int(height), "sigma": 6.0, "mean": 0.0,
            "seed": .int(Int(Int32(truncatingIfNeeded: seed ^ (seed >> 32)))),
        ])
        let grainy = try Vips.image("add", ["left": .image(rgb), "right": .image(noise)])
        var pixels = try Vips.image("cast", ["in": .image(grainy), "format": "uchar"])  // clips to 0...255

        if alpha {
            let opacity = try Vips.image("linear", ["in": .image(y), "a": .double(127 / h), "b": 128.0, "uchar": true])
            pixels = try Vips.image("bandjoin", ["in": .images([pixels, opacity])])
        }
        return try Vips.image("copy", ["in": .image(pixels), "interpretation": "srgb"])
    }
}

/// Seeded numbers for the generated images.
private struct SeedMixer {
    private var stream: SplitMix64

    init(_ seed: Int) { stream = SplitMix64(seed: UInt64(bitPattern: Int64(seed)) ^ 0x5358_4B49_545F_494D) }

    mutating func next() -> UInt64 { stream.next() }

    /// A value in `low..<high`.
    mutating func unit(_ low: Double, _ high: Double) -> Double {
        low + (high - low) * Double(next() >> 11) / Double(1 << 53)
    }

    /// `linear`'s a and b mapping 0..<extent onto a ramp `span` high above `base`, rising or falling
    /// (values stay within base...base + span either way).
    mutating func ramp(over extent: Double, span: ClosedRange<Double>, base: ClosedRange<Double>) -> (a: Double, b: Double) {
        let height = unit(span.lowerBound, span.upperBound)
        let start = unit(base.lowerBound, base.upperBound)
        let rising = next() & 1 == 0
        return rising ? (height / extent, start) : (-height / extent, start + height)
    }
}
