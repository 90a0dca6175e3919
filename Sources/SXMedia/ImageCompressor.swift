import Foundation
import SXCore

/// Compresses one image to a byte budget, choosing scale and quality together.
///
/// The reference app encodes at quality 85 and, while too big, shrinks by min(2, sqrt(size/budget)):
/// each step overshoots (smaller images carry more detail per pixel), so it usually ends well under
/// the budget with fewer pixels than would fit. Here one small probe encode measures how many bytes
/// this image costs per pixel, a size model predicts the pixel count at which quality 85 would just
/// fill the budget, and the target is set a little above it; a short binary search on quality at that
/// scale (resizing the already-decoded image in memory, encoding to buffers) then takes the highest
/// quality that fits. Only when quality would have to drop below `minimumQuality` does the scale
/// shrink again; when the best quality is very high, the scale grows once.
public enum ImageCompressor {
    /// Never encode a long side below this; an image that does not fit there is refused.
    public static let minimumLongSide = 64
    /// Encodes spent on one image at most (the probe, quality steps, scale corrections, last-resort shrinks).
    public static let maximumEncodes = 10

    static let minimumQuality = 60
    static let maximumQuality = 95
    static let startQuality = 85
    /// Palette quality for PNG; PNG bytes follow pixels and colours far more than this knob.
    static let pngQuality = 90
    /// Until measured: bytes grow a little slower than pixels (a smaller photo has more detail per pixel).
    static let pixelExponent = 0.85

    public static func compress(_ path: String, options: ImageCompressionOptions = .init()) throws -> CompressedImage {
        let clock = ContinuousClock()
        let start = clock.now
        let source = try ImageSource.open(path)
        guard source.pixels <= options.maxPixels else {
            throw ImageError(path: path, reason: .tooManyPixels(width: source.width, height: source.height, limit: options.maxPixels))
        }
        var search = Search(source: source, options: options)
        let (bytes, candidate) = try search.run()
        let elapsed = start.duration(to: clock.now)
        let record = ImageCompressionRecord(
            inputBytes: source.bytes, inputWidth: source.width, inputHeight: source.height, inputFormat: source.format,
            outputBytes: bytes.count, outputWidth: candidate.width, outputHeight: candidate.height,
            outputFormat: candidate.format, quality: candidate.quality, encodes: search.encodes,
            milliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
        return CompressedImage(bytes: bytes, record: record)
    }
}

/// One encoding that was tried.
struct Candidate {
    var encoded: [UInt8]
    var cost: Int
    var width: Int
    var height: Int
    var format: ImageFormat
    var quality: Int?
    var pixels: Int { width * height }
}

/// The state of one image's search: the decoded working image and what has been encoded.
struct Search {
    let source: ImageSource
    let options: ImageCompressionOptions
    private(set) var encodes = 0
    private var best: Candidate?
    private var smallestFailure: Candidate?
    private var working: VipsImage?
    private var workingIsFullSize = false
    private var format: ImageFormat = .jpeg
    /// The first encode, and bytes ∝ pixels^exponent as measured between it and a later encode at
    /// the same quality (detail per pixel changes with scale differently for every image).
    private var probe: Candidate?
    private var exponent = ImageCompressor.pixelExponent

    init(source: ImageSource, options: ImageCompressionOptions) {
        self.source = source
        self.options = options
    }

    private var budget: Int { options.budget }
    private var minimumPixels: Int {
        let long = max(source.width, source.height), short = min(source.width, source.height)
        let side = min(long, ImageCompressor.minimumLongSide)
        return side * max(1, short * side / max(long, 1))
    }

    mutating func run() throws -> ([UInt8], Candidate) {
        if let passed = try passThroughAnimation() { return passed }

        // Probe at about 3 bits a pixel: small enough to decode and encode quickly, big enough to
        // measure this image's detail.
        let probePixels = clamp(budget * 8 / 3)
        try prepareWorking(pixels: probePixels)
        let qualities = format == .jpeg
            ? (ImageCompressor.minimumQuality...ImageCompressor.maximumQuality)
            : (ImageCompressor.pngQuality...ImageCompressor.pngQuality)
        let startQuality = format == .jpeg ? ImageCompressor.startQuality : ImageCompressor.pngQuality
        let probe = try encode(pixels: probePixels, quality: startQuality)

        var target: Int
        var knownFit: Int?
        if probe.cost <= budget && workingIsFullSize && probe.pixels >= source.pixels {
            target = probe.pixels  // already fits at full size: only quality can improve
            knownFit = probe.quality
        } else {
            // Aim a little above the size where the start quality would just fit, so the
            // result has at least the reference loop's pixels; the quality search absorbs the excess.
            target = clamp(Int(Double(probe.pixels) * pow(Double(budget) / Double(probe.cost), 1 / exponent) * 1.1))
        }
        var grown = false
        while encodes < 8 {
            if target > workingPixels && !workingIsFullSize {
                try prepareWorking(pixels: clamp(target * 3 / 2))
            }
            let step = try searchQuality(pixels: target, in: qualities, start: startQuality, knownFit: knownFit, encodesLeft: 8 - encodes)
            knownFit = nil
            if let fit = step.fit {
                // Plenty of quality to spare and room to grow: trade some of it for pixels, once.
                let q = fit.quality ?? 0
                let roomy = format == .jpeg ? q >= 90 : fit.cost < budget * 3 / 4
                if roomy && !grown && fit.pixels < source.pixels && encodes < 7 {
                    grown = true
                    target = clamp(Int(Double(fit.pixels) * pow(Double(budget) / Double(fit.cost), 1 / exponent)
                        * (format == .jpeg ? 1.15 : 0.95)))
                    if target > fit.pixels { continue }
                }
                break
            }
            guard let failure = step.smallest else { break }
            if failure.pixels <= minimumPixels { break }
            // Re-aim with the measured exponent: a little above where the start quality fits, so the
            // quality search lands near 75-80 rather than at the floor.
            let aimed = clamp(Int(Double(probe.pixels) * pow(Double(budget) / Double(probe.cost), 1 / exponent) * 1.2))
            target = aimed < failure.pixels * 9 / 10 ? aimed
                : clamp(Int(Double(failure.pixels) * pow(Double(budget) / Double(failure.cost), 1 / exponent) * 0.95))
        }
        // Last resort: shrink at the lowest quality until it fits or the minimum size fails.
        while best == nil && encodes < ImageCompressor.maximumEncodes {
            let failure = smallestFailure!
            if failure.pixels <= minimumPixels { break }
            let next = clamp(Int(Double(failure.pixels) * pow(Double(budget) / Double(failure.cost), 1 / exponent) * 0.8))
            _ = try encode(pixels: min(next, failure.pixels * 9 / 10), quality: qualities.lowerBound)
        }
        if best == nil && (smallestFailure.map { $0.pixels > minimumPixels } ?? true) {
            _ = try encode(pixels: minimumPixels, quality: qualities.lowerBound)
        }
        guard let best else {
            throw ImageError(path: source.path, reason: .cannotFit(
                budget: budget, smallest: smallestFailure?.cost ?? 0, longSide: ImageCompressor.minimumLongSide))
        }
        return (output(best.encoded, format: best.format), best)
    }

    // MARK: Steps

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

    /// Searches quality at one scale; returns the best fit there and the smallest miss.
    ///
    /// JPEG bytes grow about exponentially with Q in the useful range (≈ 4 % a step), so each next
    /// guess interpolates log(bytes) between the nearest fit and miss known so far, or extrapolates
    /// from one of them; the guess always lands strictly between them, like a binary search.
    private mutating func searchQuality(pixels: Int, in range: ClosedRange<Int>, start: Int, knownFit: Int?, encodesLeft: Int)
        throws -> (fit: Candidate?, smallest: Candidate?)
    {
        let image = try resized(pixels: pixels)
        var low = knownFit ?? range.lowerBound - 1, high = range.upperBound + 1  // known fit / known miss
        var fit = knownFit == nil ? nil : best, miss: Candidate?
        if high - low <= 1 { return (fit, nil) }
        var quality = knownFit.map { min(high - 1, $0 + guessStep(from: fit!.cost)) } ?? start
        var spent = 0
        let target = log(Double(budget) * 0.98)
        while spent < min(encodesLeft, 4) {
            let candidate = try encode(image, quality: quality)
            spent += 1
            if candidate.cost <= budget {
                low = quality
                fit = candidate
            } else {
                high = quality
                if miss == nil || candidate.cost < miss!.cost { miss = candidate }
                // Far over even at a modest quality: the scale is wrong, not the quality.
                if candidate.cost > budget * 3 / 2 && quality <= 75 { break }
            }
            if high - low <= 1 { break }
            var next: Int
            if let fit, let miss {
                let fraction = (target - log(Double(fit.cost))) / (log(Double(miss.cost)) - log(Double(fit.cost)))
                next = low + Int((Double(high - low) * fraction).rounded(.down))
            } else if let fit {
                next = low + guessStep(from: fit.cost)
            } else {
                next = high - guessStep(from: miss!.cost)
            }
            quality = min(high - 1, max(low + 1, next, range.lowerBound))
            if quality >= high { break }
        }
        return (fit, miss)
    }

    /// Quality steps between `cost` and the budget, at ≈ 4 % more bytes a step; at least 1.
    private func guessStep(from cost: Int) -> Int {
        max(1, Int((abs(log(Double(budget) / Double(cost))) / 0.04).rounded(.down)))
    }

    /// Decodes the working image (once, or again larger) and settles the output format from it.
    private mutating func prepareWorking(pixels: Int) throws {
        let scale = min(1, (Double(pixels) / Double(source.pixels)).squareRoot())
        let long = max(1, Int((Double(max(source.width, source.height)) * scale).rounded(.up)))
        var image = try source.decode(longSide: long)
        workingIsFullSize = long >= max(source.width, source.height)
        let isFirst = working == nil
        do {
            if isFirst { format = try chooseFormat(image) }
            if format == .jpeg && image.hasAlpha {
                let flat = try Vips.image("flatten", ["in": .image(image), "background": .doubles([255, 255, 255])])
                image = try ImageSource.materialize(try Vips.image("cast", ["in": .image(flat), "format": "uchar"]), operation: "flatten")
            }
        } catch let error as VipsError {
            throw ImageError(path: source.path, reason: .damaged(format: source.format, detail: error.message))
        }
        working = image
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

    private var workingPixels: Int { working.map { $0.width * $0.height } ?? 0 }

    /// The working image scaled to about `pixels` (never up).
    private func resized(pixels: Int) throws -> VipsImage {
        guard let working else { throw VipsError(operation: "resize", message: "no decoded image") }
        let have = working.width * working.height
        guard pixels < have else { return working }
        let scale = (Double(pixels) / Double(have)).squareRoot()
        return try Vips.image("resize", ["in": .image(working), "scale": .double(scale)])
    }

    private mutating func encode(pixels: Int, quality: Int) throws -> Candidate {
        try encode(try resized(pixels: pixels), quality: quality)
    }

    private mutating func encode(_ image: VipsImage, quality: Int) throws -> Candidate {
        encodes += 1
        let encoded: [UInt8]
        let strip = !options.keepMetadata
        switch format {
        case .jpeg, .gif:
            encoded = try Vips.call("jpegsave_buffer", [
                "in": .image(image), "Q": .int(quality), "interlace": true, "optimize-coding": true, "strip": .bool(strip),
            ]).bytes()
        case .png:
            encoded = try Vips.call("pngsave_buffer", [
                "in": .image(image), "palette": true, "Q": .int(quality), "compression": 9, "effort": 7, "strip": .bool(strip),
            ]).bytes()
        }
        let candidate = Candidate(encoded: encoded, cost: options.cost(encoded.count, format: format),
                                  width: image.width, height: image.height, format: format, quality: quality)
        if let probe {
            let pixelRatio = Double(candidate.pixels) / Double(probe.pixels)
            if probe.quality == quality, abs(log(pixelRatio)) > 0.2 {
                exponent = min(1.6, max(0.6, log(Double(candidate.cost) / Double(probe.cost)) / log(pixelRatio)))
            }
        } else {
            probe = candidate
        }
        if candidate.cost <= budget {
            if best == nil || Self.better(candidate, than: best!) { best = candidate }
        } else if let known = smallestFailure, known.pixels < candidate.pixels || (known.pixels == candidate.pixels && known.cost <= candidate.cost) {
            // keep the smaller miss: the last-resort shrink starts from it
        } else {
            smallestFailure = candidate
        }
        return candidate
    }

    /// More pixels win (every candidate has at least `minimumQuality`); at equal size, higher quality.
    private static func better(_ a: Candidate, than b: Candidate) -> Bool {
        a.pixels == b.pixels ? (a.quality ?? 0) > (b.quality ?? 0) : a.pixels > b.pixels
    }

    private func clamp(_ pixels: Int) -> Int { min(source.pixels, max(minimumPixels, pixels)) }

    private func output(_ encoded: [UInt8], format: ImageFormat) -> [UInt8] {
        guard options.dataURI else { return encoded }
        return Array((format.dataURIPrefix + Data(encoded).base64EncodedString()).utf8)
    }
}
