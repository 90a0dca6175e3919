import Foundation
import SXCore

/// One encoding of the whole output.
struct Candidate {
    var encoded: [UInt8]
    var cost: Int
    var width: Int
    var height: Int
    var format: ImageFormat
    var quality: Int?
    var pixels: Int { width * height }
}

/// What the search settled on before the full-size encode: the image at its output scale and a quality.
private struct Plan {
    var image: VipsImage
    var quality: Int
}

/// One image's search: decode once, predict sizes from sample encodes, encode the output once.
struct Search {
    let source: ImageSource
    let options: ImageCompressionOptions
    /// Every encode: samples, calibration, full-size.
    private(set) var encodes = 0
    /// Encodes of the whole output.
    private(set) var fullSizeEncodes = 0
    /// The decoded image, in memory, upright, 8-bit sRGB (flattened when the output is JPEG).
    private var working: VipsImage?
    private var workingIsFullSize = false
    private var format: ImageFormat = .jpeg
    /// Final-settings bytes ÷ fast-settings bytes for this image, measured on the first sample.
    private var calibration: Double?
    /// bytes ∝ pixels^exponent, measured between two scales when the search visits two.
    private var exponent = ImageCompressor.pixelExponent
    /// The smallest full-size miss, for the last-resort shrink.
    private var smallestFailure: Candidate?
    /// No more decodes: the planned one was redone bigger already (at most once), or a DCT decode was
    /// kept on purpose.
    private var decodeSettled = false
    /// zlib level of full-size PNG encodes (see `encode`).
    private var pngDeflate = 6
    /// Predictions made for images of the current working image, so none is paid for twice.
    private var predicted: [(image: VipsImage, quality: Int, cost: Double)] = []
    /// The last sample cut, in memory, and the image it was cut from.
    private var lastSample: (of: VipsImage, sample: SizeSample)?
    /// The last resize of the working image, in memory, and the scale it was made at.
    private var lastResize: (scale: Double, image: VipsImage)?

    /// Inputs above this many pixels are first looked at smaller, to learn the output scale: a JPEG
    /// with the DCT scaling that still covers the display size (libjpeg never builds the full-size
    /// picture), anything else at a quarter of its size.
    static let probeAbove = 6_000_000
    /// A first JPEG decode at a DCT scaling is kept when the pixels where the start quality fits are at
    /// most this many times its own.
    static let keepDCTDecode = 1.5
    /// 1.8 × `displayLongSide`: a picture this big is shown downscaled on any desktop screen, so past
    /// it quality is worth more than pixels and a JPEG's DCT decode of at least this size is kept
    /// whatever else would fit (bench: the 15 MP upscaled storm at 2400 px, Q 88: SSIM 0.9899 at 1280;
    /// decoded in full and sent at 2704 px, Q 84: 0.9897, for 2.5 times the decoding time).
    static let ampleLongSide = 2304
    /// Above this many bits a pixel a JPEG holds fine detail or grain, which its DCT scaling aliases
    /// (the bench's painting has 7.3; a synthetic 4000 × 3000 gradient with grain, Q 92, has 2.6: SSIM
    /// at 1280 fell from 0.977 to 0.971 through the 1/2 scaling). Smooth pictures, like the bench's
    /// upscaled photographs (1.3 and 1.8), lose nothing by it.
    static let denseBitsPerPixel = 2.0
    /// Predictions aim this far under the budget: the mosaic and the calibration are estimates.
    static let safety = 0.975
    /// A desktop screen's width. Below it every viewer upscales the picture, and on fine texture that
    /// loses more than any quality gains (bench: the 17.9 MP painting at 1231 px wide, Q 84: SSIM 0.73
    /// at 1280; at 1290 px, Q 80: 0.91); above it, pixels help less than quality. So the search keeps
    /// the long side at least this big while quality can give way (down to `minimumQuality`).
    static let displayLongSide = 1280

    init(source: ImageSource, options: ImageCompressionOptions) {
        self.source = source
        self.options = options
    }

    /// Sample encodes still allowed: the full-size encodes keep their share of `maximumEncodes`.
    private var samplesLeft: Int {
        max(0, ImageCompressor.maximumEncodes - ImageCompressor.maximumFullEncodes - (encodes - fullSizeEncodes))
    }

    private var budget: Int { options.budget }
    private var limit: Double { Double(budget) * Self.safety }
    private var sourceLongSide: Int { max(source.width, source.height) }
    private var minimumPixels: Int {
        let long = sourceLongSide, short = min(source.width, source.height)
        let side = min(long, ImageCompressor.minimumLongSide)
        return side * max(1, short * side / max(long, 1))
    }

    mutating func run() throws -> ([UInt8], Candidate) {
        if let passed = try passThroughAnimation() { return passed }
        try decode()
        let plan = format == .jpeg ? try planJPEG() : try planPNG()
        let best = try finish(plan)
        return (output(best.encoded, format: best.format), best)
    }

    // MARK: Decoding

    /// Decodes the working image once at the size the output will have (or the full size when that is small).
    private mutating func decode() throws {
        guard source.pixels > Self.probeAbove else {
            try adopt(try source.decode(longSide: sourceLongSide), fullSize: true)
            return
        }
        // A JPEG is first decoded with the DCT scaling that still covers the display size; anything
        // else at a quarter of its size. Either way libjpeg never builds the full-size picture.
        let dct = dctShrink(longSide: Self.displayLongSide)
        let wanted: Double
        do {  // a scope of its own: the first look is released before a bigger decode
            let first = try dct.map { try source.decode(dctShrink: $0, longSide: sourceLongSide) }
                ?? source.decode(longSide: (sourceLongSide + 3) / 4)
            try adopt(first, fullSize: max(first.width, first.height) >= sourceLongSide)
            if workingIsFullSize { return }
            // Where would the start quality just fit? Bytes at this size and at half of it give this
            // picture's exponent (from ≈ 0.4 for smooth gradients to 1 for fine texture);
            // extrapolating with a little less than it, plus a margin, errs towards decoding too big,
            // which costs a resize, rather than too small, which costs pixels.
            let quality = format == .jpeg ? ImageCompressor.startQuality : ImageCompressor.pngQuality
            let cost = try predict(first, quality: quality)
            let half = try Vips.image("resize", ["in": .image(first), "scale": 0.5])
            let costHalf = try predict(half, quality: quality)
            let pixels = Double(first.width * first.height)
            let measured = log(cost / costHalf) / log(pixels / Double(half.width * half.height))
            exponent = min(1.3, max(0.6, measured))
            let fits = pixels * pow(limit / cost, 1 / min(1, max(0.4, measured - 0.1)))
            // A DCT decode that holds most of what fits, or is ample already, is kept: the quality
            // rises to fill the budget instead (bench: the 9.2 MP upscaled rain drops at 1920 px, Q 87,
            // SSIM 0.9875 at 1280; decoded in full and sent at 2109 px, Q 85, 0.9873), and the bigger
            // decode, most of the time on such inputs, is saved.
            if dct != nil && (fits <= pixels * Self.keepDCTDecode || max(first.width, first.height) >= Self.ampleLongSide) {
                decodeSettled = true
                return
            }
            let display = Double(source.pixels) * pow(min(1, Double(Self.displayLongSide) / Double(sourceLongSide)), 2)
            wanted = max(display, fits * 1.3)
        }
        try decode(pixels: wanted)
    }

    /// Decodes again at about `wanted` pixels (at most the source's), unless the working image is
    /// already that big.
    private mutating func decode(pixels wanted: Double) throws {
        let have = Double(try workingImage().width * workingImage().height)
        if wanted <= have * 1.1 || workingIsFullSize { return }
        let long = min(sourceLongSide, Int((Double(sourceLongSide) * min(1, wanted / Double(source.pixels)).squareRoot()).rounded(.up)))
        working = nil  // the smaller picture goes before the bigger one arrives
        predicted = []
        lastSample = nil
        lastResize = nil
        let decoded = try dctShrink(longSide: long).map { try source.decode(dctShrink: $0, longSide: long) }
            ?? source.decode(longSide: long)
        try adopt(decoded, fullSize: max(decoded.width, decoded.height) >= sourceLongSide)
    }

    /// The JPEG DCT scaling to decode at for a `longSide` box, or nil to let libvips' thumbnail decode:
    /// for files dense with detail it decodes twice as big and reduces with a proper filter, because
    /// the scaled IDCT aliases fine texture and grain (bench: the 17.9 MP painting, SSIM 0.888 at 1280
    /// from a 1/4 scaling against 0.900 through the thumbnail).
    private func dctShrink(longSide: Int) -> Int? {
        guard Double(source.bytes) * 8 <= Double(source.pixels) * Self.denseBitsPerPixel else { return nil }
        return source.dctShrink(longSide: longSide)
    }

    /// Takes `image` as the working image, settling the output format on the first one.
    private mutating func adopt(_ decoded: VipsImage, fullSize: Bool) throws {
        var image = decoded
        do {
            if working == nil && calibration == nil { format = try chooseFormat(image) }
            if format == .jpeg && image.hasAlpha {
                let flat = try Vips.image("flatten", ["in": .image(image), "background": .doubles([255, 255, 255])])
                image = try ImageSource.materialize(try Vips.image("cast", ["in": .image(flat), "format": "uchar"]), operation: "flatten")
            }
        } catch let error as VipsError {
            throw ImageError(path: source.path, reason: .damaged(format: source.format, detail: error.message))
        }
        working = image
        workingIsFullSize = fullSize
        predicted = []
        lastSample = nil
        lastResize = nil
    }

    /// JPEG unless the image has real transparency (some alpha below 255), or `--format` says otherwise.
    private func chooseFormat(_ image: VipsImage) throws -> ImageFormat {
        switch options.format {
        case .jpeg: return .jpeg
        case .png: return .png
        case .auto:
            guard image.hasAlpha else { return .jpeg }
            let alpha = try Vips.image("extract_band", ["in": .image(image), "band": .int(image.bands - 1)])
            return try Vips.call("min", ["in": .image(alpha)]).double("out") < 255 ? .png : .jpeg
        }
    }

    // MARK: Planning

    private mutating func planJPEG() throws -> Plan {
        var image = try workingImage()
        var full = Double(image.width * image.height)
        // A JPEG that fits at full size at its own quality: re-encoding with its own tables is nearly
        // lossless, and any other quality re-quantizes every block (measured: SSIM 1.0000 at the
        // source's Q 85, 0.9969 at Q 87).
        let start = ImageCompressor.startQuality
        var atFull: Double?
        if workingIsFullSize, source.format == "jpeg", let own = JPEGQuality.estimate(path: source.path),
           (ImageCompressor.minimumQuality...ImageCompressor.maximumQuality).contains(own) {
            let cost = try predict(image, quality: own)
            if cost <= limit { return Plan(image: image, quality: own) }
            if own == start { atFull = cost }
        }
        var startCost = try atFull ?? predict(image, quality: start)
        // Decoded too small (the quarter-size look underestimated how many pixels fit): once, bigger.
        if !workingIsFullSize && !decodeSettled && startCost < limit * 0.75 {
            decodeSettled = true
            try decode(pixels: full * pow(limit / startCost, 1 / exponent) * 1.2)
            image = try workingImage()
            full = Double(image.width * image.height)
            startCost = try predict(image, quality: start)
        }
        let fullCost = startCost
        // Aim a little above the scale where the start quality just fits: the result keeps at least
        // the reference loop's pixels and the quality search lands near 80. A resize by a few percent
        // blurs every pixel for little gain, so near full size the quality gives way instead.
        var pixels = fullCost <= limit ? full : full * pow(limit / fullCost, 1 / exponent) * 1.03
        var displayFloor = full * pow(min(1, Double(Self.displayLongSide) / Double(max(image.width, image.height))), 2)
        var fallback: Plan?
        for _ in 0..<3 {
            if pixels >= full * 0.85 { pixels = full }
            let atFloor = pixels <= displayFloor * 1.01
            pixels = max(pixels, displayFloor)
            var scaled = try resized(pixels: Int(pixels))
            var here = Double(scaled.width * scaled.height)
            if here < full && samplesLeft == 0 { break }
            var cost = here >= full ? fullCost : try predict(scaled, quality: start)
            if here < full * 0.9 {
                // Up to 2.5: fine grain or noise vanishes in a downscale, so bytes fall much faster than pixels.
                exponent = min(2.5, max(0.6, log(cost / fullCost) / log(here / full)))
                // One secant step on the scale, so the start quality just fits: at least the reference
                // loop's quality on at least its pixels (it ends under the budget, so with fewer).
                // A scale a little too small is left as it is: the quality search goes above the start
                // quality instead, which looks as good and saves a whole resize (bench: Wood at 2228 px
                // and Q85 against 2277 px and Q84, SSIM 0.9907 at 1280 either way; 21 ms less). Too
                // big would cost quality below the start, so that is corrected from 4 % on.
                let closer = min(full, max(displayFloor, here * pow(limit / cost, 1 / exponent)))
                if (closer / here - 1 > 0.12 || closer / here - 1 < -0.04) && samplesLeft >= 3 {
                    scaled = try resized(pixels: Int(closer))
                    let previous = (here, cost)
                    here = Double(scaled.width * scaled.height)
                    cost = here >= full ? fullCost : try predict(scaled, quality: start)
                    if abs(log(here / previous.0)) > 0.02 {
                        exponent = min(2.5, max(0.6, log(cost / previous.1) / log(here / previous.0)))
                    }
                }
            }
            let found = try bestQuality(scaled, known: (start, cost), samples: 2)
            if let found {
                fallback = Plan(image: scaled, quality: found.quality)
                // Quality well above the start quality, or much room left: pixels are worth more now.
                // Aim again where the start quality fits, with the exponent measured on the way here.
                if here < full && samplesLeft >= 2 && (found.quality > start + 4 || found.cost < limit * 0.8) && cost < limit {
                    pixels = min(full, here * pow(limit / cost, 1 / exponent) * 1.03)
                    if pixels > here * 1.05 { continue }
                }
                if found.quality >= 70 || here <= Double(minimumPixels) || atFloor { break }
            }
            if here <= Double(minimumPixels) { break }
            // Nothing fits at the display size: below it, the usual trade of quality for pixels.
            if atFloor && found == nil { displayFloor = 0 }
            // Too big even at a lowish quality: shrink to where quality 80 (≈ 0.82 × the bytes of 85) fits.
            let aim = here * pow(limit / (cost * 0.82), 1 / exponent)
            pixels = max(Double(minimumPixels), min(aim, here * 0.9))
            if let found, found.quality >= ImageCompressor.minimumQuality, samplesLeft < 3 { break }
        }
        return try fallback ?? Plan(image: resized(pixels: Int(pixels)), quality: ImageCompressor.minimumQuality)
    }

    /// PNG bytes do not scale from a mosaic (deflate matches across a whole row, and the palette is
    /// chosen for the whole picture), so PNG goes straight to full-size encodes: the first at the
    /// working size, and `finish` shrinks by the measured miss if needed. Only images with real
    /// transparency take this path.
    private mutating func planPNG() throws -> Plan {
        Plan(image: try workingImage(), quality: ImageCompressor.pngQuality)
    }

    /// The highest quality predicted to fit at `image`, from one known (quality, cost) and at most
    /// `samples` more sample encodes; nil when nothing down to `minimumQuality` is predicted to fit.
    /// log(bytes) is close to linear in quality over a few steps, with an image-dependent slope
    /// (≈ 1 % to 10 % a step): the first guess assumes 4 %, later ones use the measured slope, or
    /// interpolate between the nearest fit and miss.
    private mutating func bestQuality(_ image: VipsImage, known: (quality: Int, cost: Double), samples: Int) throws
        -> (quality: Int, cost: Double)?
    {
        let lowest = ImageCompressor.minimumQuality, highest = ImageCompressor.maximumQuality
        var points = [known]
        for _ in 0..<min(samples, samplesLeft) {
            let fit = points.filter { $0.cost <= limit }.max { $0.quality < $1.quality }
            let miss = points.filter { $0.cost > limit }.min { $0.quality < $1.quality }
            var slope = 0.04
            if points.count >= 2 {
                let near = points.sorted { abs(log($0.cost / limit)) < abs(log($1.cost / limit)) }
                let a = near[0], b = near[1]
                if a.quality != b.quality {
                    slope = min(0.15, max(0.005, (log(b.cost) - log(a.cost)) / Double(b.quality - a.quality)))
                }
            }
            var next: Int
            if let fit, let miss {
                if miss.quality - fit.quality <= 1 { break }
                let fraction = (log(limit) - log(fit.cost)) / (log(miss.cost) - log(fit.cost))
                next = fit.quality + Int((Double(miss.quality - fit.quality) * fraction).rounded(.down))
                next = min(miss.quality - 1, max(fit.quality + 1, next))
            } else if let fit {
                if fit.quality >= highest { break }
                next = min(highest, fit.quality + max(1, Int((log(limit / fit.cost) / slope).rounded(.down))))
                // From quality 90 up libvips keeps full-resolution chroma, and the bytes jump by half:
                // a step across that edge from well below it would only learn that it misses.
                if JPEGQuality.fullChromaFrom - 1 > fit.quality && format == .jpeg {
                    next = min(next, JPEGQuality.fullChromaFrom - 1)
                }
            } else if let miss {
                if miss.quality <= lowest { break }
                next = max(lowest, miss.quality - max(1, Int((log(miss.cost / limit) / slope).rounded(.up))))
            } else {
                break
            }
            points.append((next, try predict(image, quality: next)))
        }
        return points.filter { $0.cost <= limit }.max { $0.quality < $1.quality }
    }

    // MARK: Predicting

    /// The predicted cost (bytes, or data-URI characters) of encoding `image` whole at `quality` with
    /// the final settings: a mosaic sample encoded with fast settings, scaled by the pixel ratio and by
    /// this image's final-to-fast ratio.
    private mutating func predict(_ image: VipsImage, quality: Int) throws -> Double {
        if let known = predicted.first(where: { $0.image === image && $0.quality == quality }) { return known.cost }
        // The same scale is usually asked about at two or three qualities: its sample is cut (and its
        // tiles resized) once, kept in memory, and only encoded again.
        let sample: SizeSample
        if let last = lastSample, last.of === image {
            sample = last.sample
        } else {
            lastSample = nil
            sample = try SizeSample(of: image)
            lastSample = (image, sample)
        }
        let fast = try encode(sample.image, quality: quality, final: false, strip: true)
        if calibration == nil {
            let final = try encode(sample.image, quality: quality, final: true, strip: true)
            calibration = Double(final.count) / Double(max(1, fast.count))
        }
        let bytes = sample.predict(fast.count) * calibration!
        let cost = Double(options.cost(Int(bytes.rounded(.up)), format: format))
        predicted.append((image, quality, cost))
        return cost
    }

    // MARK: The output

    /// Encodes the plan at full size; over the budget, lowers quality (a bounded fallback), then the
    /// scale, until it fits or the minimum size at the minimum quality does not.
    private mutating func finish(_ plan: Plan) throws -> Candidate {
        var image = plan.image
        var quality = plan.quality
        let lowest = format == .png ? quality : ImageCompressor.minimumQuality
        while true {
            let candidate = try encodeOutput(image, quality: quality)
            if candidate.cost <= budget { return candidate }
            if smallestFailure == nil || candidate.pixels <= smallestFailure!.pixels { smallestFailure = candidate }
            // One full-size encode stays in reserve for the last resort below.
            if fullSizeEncodes >= ImageCompressor.maximumFullEncodes - 1
                || candidate.pixels <= minimumPixels && quality <= lowest { break }
            // A PNG just over: zlib's slowest level is ≈ 4 % smaller, often enough to keep every pixel.
            if format == .png && pngDeflate < 9 && Double(candidate.cost) <= Double(budget) * 1.06 {
                pngDeflate = 9
                continue
            }
            // The miss tells how far off the prediction was: step quality down by that much and one
            // more; when quality is spent, shrink instead.
            let steps = max(1, Int((log(Double(candidate.cost) / limit) / 0.04).rounded(.up))) + 1
            if quality - steps >= lowest {
                quality -= steps
            } else {
                quality = lowest
                // PNG lands here on its first miss, with no better model than the exponent: aim just under.
                let shrink = pow(limit / Double(candidate.cost), 1 / exponent) * (format == .png ? 0.97 : 0.9)
                let pixels = max(minimumPixels, Int(Double(candidate.pixels) * min(shrink, 0.95)))
                image = try resized(pixels: pixels)
            }
        }
        // Last resort: the minimum size at the lowest quality, unless that was the miss already.
        if let miss = smallestFailure, miss.pixels > minimumPixels || (miss.quality ?? 0) > lowest {
            let candidate = try encodeOutput(try resized(pixels: minimumPixels), quality: lowest)
            if candidate.cost <= budget { return candidate }
            smallestFailure = candidate
        }
        throw ImageError(path: source.path, reason: .cannotFit(
            budget: budget, smallest: smallestFailure?.cost ?? 0, longSide: ImageCompressor.minimumLongSide))
    }

    /// An animated GIF that already fits is kept as it is: re-encoding would drop every frame but the first.
    private mutating func passThroughAnimation() throws -> ([UInt8], Candidate)? {
        guard source.format == "gif", source.pages > 1, options.format == .auto,
              options.cost(Int(source.bytes), format: .gif) <= budget
        else { return nil }
        let bytes = try FileBytes.read(source.path, limit: budget)
        let candidate = Candidate(encoded: bytes, cost: options.cost(bytes.count, format: .gif),
                                  width: source.width, height: source.height, format: .gif, quality: nil)
        return (output(bytes, format: .gif), candidate)
    }

    // MARK: Encoding

    private func workingImage() throws -> VipsImage {
        guard let working else { throw VipsError(operation: "resize", message: "no decoded image") }
        return working
    }

    /// The working image scaled to about `pixels` (never up), computed into memory: the scale is
    /// sampled at two or three qualities, then usually encoded whole, and each of those would otherwise
    /// resize again (a lazy resize cut into sample tiles cost 80 ms on a 5 MP photo, against 25 ms for
    /// the whole resize once). The last one is kept, so asking for it again costs nothing.
    private mutating func resized(pixels: Int) throws -> VipsImage {
        let working = try workingImage()
        let have = working.width * working.height
        let wanted = max(pixels, minimumPixels)
        guard wanted < have else { return working }
        let scale = (Double(wanted) / Double(have)).squareRoot()
        if let last = lastResize, last.scale == scale { return last.image }
        lastResize = nil  // the previous scale goes before the next one is computed
        let lazy = try Vips.image("resize", ["in": .image(working), "scale": .double(scale), "kernel": "linear"])
        let image = try ImageSource.materialize(lazy, operation: "resize", subject: source.path)
        lastResize = (scale, image)
        return image
    }

    private mutating func encodeOutput(_ image: VipsImage, quality: Int) throws -> Candidate {
        fullSizeEncodes += 1
        let encoded = try encode(image, quality: quality, final: true, strip: !options.keepMetadata)
        return Candidate(encoded: encoded, cost: options.cost(encoded.count, format: format),
                         width: image.width, height: image.height, format: format, quality: quality)
    }

    /// One encode to memory. `final`: the output's settings (progressive, optimized Huffman tables,
    /// through `ProgressiveJPEG` unless metadata is kept; PNG with zlib level 6, or 9 to save a
    /// shrink). Otherwise fast settings for samples: baseline JPEG with the standard tables (about
    /// 2.5× faster), PNG with zlib level 1.
    /// Samples are always stripped: metadata does not grow with the pixels (kept metadata that does not
    /// fit shows up at the full-size encode, and the fallback makes room for it).
    private mutating func encode(_ image: VipsImage, quality: Int, final: Bool, strip: Bool) throws -> [UInt8] {
        encodes += 1
        switch format {
        case .jpeg, .gif:
            if final && strip && ProgressiveJPEG.canEncode(image) { return try ProgressiveJPEG.encode(image, quality: quality) }
            return try Vips.call("jpegsave_buffer", [
                "in": .image(image), "Q": .int(quality), "interlace": .bool(final), "optimize-coding": .bool(final),
                "strip": .bool(strip),
            ]).bytes()
        case .png:
            // No dithering: on photographic content dither noise doubles the bytes (measured on the
            // bench's alpha image: 974² dithered 257 KB SSIM 0.966, 1344² undithered 188 KB SSIM 0.986).
            // Quantizer effort 1: effort 7 costs 2.5× the time for 6 % fewer bytes.
            // zlib level 6 first: level 9 takes 1.6× the time for ≈ 4 % fewer bytes (bench's alpha
            // image: 395 ms, 186 KB against 245 ms, 194 KB), so `finish` uses it only to save a shrink.
            return try Vips.call("pngsave_buffer", [
                "in": .image(image), "palette": true, "Q": .int(quality), "dither": 0.0, "effort": 1,
                "compression": .int(final ? pngDeflate : 1), "strip": .bool(strip),
            ]).bytes()
        }
    }

    private func output(_ encoded: [UInt8], format: ImageFormat) -> [UInt8] {
        guard options.dataURI else { return encoded }
        return Array((format.dataURIPrefix + Data(encoded).base64EncodedString()).utf8)
    }
}
