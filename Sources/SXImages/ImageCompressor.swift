import Foundation
import SXCore

/// Compresses one image to a byte budget, choosing scale and quality together.
///
/// The reference app encodes at quality 85 and, while too big, shrinks by min(2, sqrt(size/budget)):
/// each step overshoots (smaller images carry more detail per pixel), so it usually ends well under
/// the budget with fewer pixels than would fit.
///
/// Here the image is decoded once, with shrink-on-load, at about the size it will be sent at (a big
/// input is first looked at smaller to learn that size; a JPEG with libjpeg's DCT scaling, which is
/// often kept), and kept in memory. Every question "how many bytes at this scale and quality?" is
/// answered by encoding a quarter-area mosaic of tiles at that scale with fast baseline coding,
/// scaled up by the pixel ratio and by the image's own progressive-to-baseline ratio (measured once). The search aims a little above the
/// scale where quality 85 fits, then takes the highest quality predicted to fit. Exactly one
/// full-size progressive, optimized encode follows; if it lands over the budget anyway, a bounded
/// fallback encodes again lower. The output never exceeds the budget.
public enum ImageCompressor {
    /// Never encode a long side below this; an image that does not fit there is refused.
    public static let minimumLongSide = 64
    /// Encodes spent on one image at most: sample encodes, the final encode and any fallbacks.
    public static let maximumEncodes = 12
    /// Full-size encodes at most: the final one and the bounded fallbacks after it.
    public static let maximumFullEncodes = 4

    static let minimumQuality = 60
    static let maximumQuality = 95
    static let startQuality = 85
    /// Palette quality for PNG; PNG bytes follow pixels and colours far more than this knob.
    static let pngQuality = 90
    /// Until measured: bytes grow a little slower than pixels (a smaller photo has more detail per pixel).
    static let pixelExponent = 0.85

    public static func compress(_ path: String, options: ImageCompressionOptions = .init()) throws -> CompressedImage {
        try compress(path, options: options, gate: nil)
    }

    /// Memory one image may take while it is compressed, from its header: the working image (at most
    /// the source's pixels; big inputs are decoded smaller, so 12 MP bounds it), plus the encoder's
    /// coefficient buffers and the decoder's rows, ≈ 6 bytes a pixel in all.
    static func estimatedMemory(pixels: Int) -> Int { min(pixels, 12_000_000) * 6 }

    /// `gate`: in a batch, the image waits there until its estimated memory fits next to the others'.
    static func compress(_ path: String, options: ImageCompressionOptions, gate: MemoryGate?) throws -> CompressedImage {
        let clock = ContinuousClock()
        let start = clock.now
        let source = try ImageSource.open(path)
        guard source.pixels <= options.maxPixels else {
            throw ImageError(path: path, reason: .tooManyPixels(width: source.width, height: source.height, limit: options.maxPixels))
        }
        if let whole = source.wholeDecodeBytes, whole > options.maxWholeDecodeBytes {
            throw ImageError(path: path, reason: .tooBigToDecodeWhole(width: source.width, height: source.height, kind: source.wholeDecodeKind,
                                                                      bytes: whole, limit: options.maxWholeDecodeBytes))
        }
        var search = Search(source: source, options: options)
        let kept = try KeptInput.candidate(source, options: options)
        // The search decodes the whole image: a damaged input fails here, kept or not.
        let memory = estimatedMemory(pixels: source.pixels) + (source.wholeDecodeBytes ?? 0)
        var (bytes, candidate) = try gate.map { try $0.with(bytes: memory) { try search.run() } }
            ?? search.run()
        var action = ImageAction.reencoded
        // Never bigger than the input: the input (stripped) stays unless the re-encode is smaller.
        if let kept, kept.candidate.cost <= candidate.cost {
            (bytes, candidate, action) = (kept.output, kept.candidate, kept.action)
        }
        let elapsed = start.duration(to: clock.now)
        let record = ImageCompressionRecord(
            inputBytes: source.bytes, inputWidth: source.width, inputHeight: source.height, inputFormat: source.format,
            outputBytes: bytes.count, outputWidth: candidate.width, outputHeight: candidate.height,
            outputFormat: candidate.format, quality: candidate.quality, encodes: search.encodes,
            fullSizeEncodes: search.fullSizeEncodes,
            milliseconds: Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000),
            action: action)
        return CompressedImage(bytes: bytes, record: record)
    }
}
