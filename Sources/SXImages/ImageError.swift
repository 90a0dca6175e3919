import SXCore

/// Why one image could not be compressed. Each case names the file and reads as a sentence.
public struct ImageError: SXError, Equatable {
    public enum Reason: Sendable, Equatable {
        /// The file has no bytes at all.
        case empty
        /// No libvips loader recognises the bytes (a text file named .jpg, say).
        case notAnImage
        /// A format libvips could read but sxkit does not admit (svg, pdf, bmp through ImageMagick…).
        case unsupportedFormat(String)
        /// open(2) failed; carries strerror's text.
        case unreadable(String)
        /// A loader recognised the format but decoding failed (truncated, corrupt, unsupported variant).
        case damaged(format: String, detail: String)
        /// The header declares more pixels than allowed; nothing was decoded.
        case tooManyPixels(width: Int, height: Int, limit: Int)
        /// A file its decoder must hold whole (`kind` says why) would take `bytes` at once, more than `limit`.
        case tooBigToDecodeWhole(width: Int, height: Int, kind: String, bytes: Int, limit: Int)
        /// Even the smallest allowed size at the lowest allowed quality is over the budget.
        case cannotFit(budget: Int, smallest: Int, longSide: Int)
    }

    public let path: String
    public let reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .empty:
            return "'\(path)' is empty (0 bytes), not an image"
        case .notAnImage:
            return "'\(path)' is not an image this libvips can read (\(VipsRuntime.supportedInputs.joined(separator: ", ")))"
        case .unsupportedFormat(let format):
            return "'\(path)' is a \(format) file, which sxkit does not read; it reads \(VipsRuntime.supportedInputs.joined(separator: ", "))"
        case .unreadable(let cause):
            return "cannot read '\(path)': \(cause)"
        case .damaged(let format, let detail):
            return "'\(path)' is a damaged or truncated \(format) image: \(detail)"
        case .tooManyPixels(let width, let height, let limit):
            return "'\(path)' is \(width)x\(height) = \(Self.megapixels(width * height)), above the limit of "
                + "\(Self.megapixels(limit)); refused without decoding it"
        case .tooBigToDecodeWhole(let width, let height, let kind, let bytes, let limit):
            return "'\(path)' is \(width)x\(height), \(kind): decoding it would take \(ByteCount.format(Int64(bytes))) at once, above the "
                + "limit of \(ByteCount.format(Int64(limit))); refused without decoding it (a baseline JPEG or a non-interlaced PNG of this "
                + "size is read as a stream)"
        case .cannotFit(let budget, let smallest, let longSide):
            return "'\(path)' cannot fit in \(budget) bytes even at \(longSide) px on the long side "
                + "(smallest encoding: \(smallest) bytes)"
        }
    }

    private static func megapixels(_ pixels: Int) -> String {
        pixels >= 1_000_000 ? "\((pixels + 500_000) / 1_000_000) MP" : "\(pixels) pixels"
    }

    public var remedy: Remedy? {
        if case .tooManyPixels = reason { return .raisePixelLimit }
        return nil
    }
}
