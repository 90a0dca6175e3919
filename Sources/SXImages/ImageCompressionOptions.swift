import SXCore

/// The encoded format of a compressed image.
public enum ImageFormat: String, Sendable, Equatable, CaseIterable {
    case jpeg, png
    /// An animated GIF that already fits, passed through unchanged (never chosen by `--format`).
    case gif

    /// File-name extension of the output.
    public var fileExtension: String {
        switch self {
        case .jpeg: return "jpg"
        case .png: return "png"
        case .gif: return "gif"
        }
    }

    /// The start of a data URI. SimpleX writes `image/jpg`, not `image/jpeg` (FORMATS §9).
    public var dataURIPrefix: String { "data:image/\(fileExtension);base64," }
}

/// What `--format` asks for.
public enum ImageFormatChoice: String, Sendable, Equatable, CaseIterable {
    /// JPEG for opaque images, PNG for images with real transparency.
    case auto, jpeg, png
}

public struct ImageCompressionOptions: Sendable, Equatable {
    /// The most bytes the output may have: the file, or the whole data-URI string with `dataURI`.
    public var budget: Int
    public var format: ImageFormatChoice
    public var keepMetadata: Bool
    public var dataURI: Bool
    /// Images whose header declares more pixels are refused before any decoding.
    public var maxPixels: Int
    /// The most bytes a decoder may hold at once for an image it cannot decode as a stream (a
    /// progressive JPEG's coefficients, an interlaced PNG, a HEIF, JPEG XL or GIF frame): more is
    /// refused before decoding, so that memory stays bounded for any input the pixel limit admits.
    public var maxWholeDecodeBytes: Int

    public static let defaultMaxPixels = 100_000_000
    /// 160 MiB: with the working image and the encoder beside it, a compression stays under 300 MB.
    public static let defaultMaxWholeDecodeBytes = 160 << 20

    public init(budget: Int = Int(SimpleXLimits.maxImageSize), format: ImageFormatChoice = .auto,
                keepMetadata: Bool = false, dataURI: Bool = false, maxPixels: Int = defaultMaxPixels,
                maxWholeDecodeBytes: Int = defaultMaxWholeDecodeBytes) {
        self.budget = budget
        self.format = format
        self.keepMetadata = keepMetadata
        self.dataURI = dataURI
        self.maxPixels = maxPixels
        self.maxWholeDecodeBytes = maxWholeDecodeBytes
    }

    /// The size `bytes` encoded bytes take against the budget.
    func cost(_ bytes: Int, format: ImageFormat) -> Int {
        dataURI ? format.dataURIPrefix.utf8.count + 4 * ((bytes + 2) / 3) : bytes
    }
}

/// What one compression did.
public struct ImageCompressionRecord: Sendable, Equatable {
    public var inputBytes: Int64
    public var inputWidth: Int
    public var inputHeight: Int
    /// The loader's short name: "jpeg", "png", "webp", "gif", "tiff", "heif", ….
    public var inputFormat: String
    /// Bytes written: the encoded image, or the data-URI string.
    public var outputBytes: Int
    public var outputWidth: Int
    public var outputHeight: Int
    public var outputFormat: ImageFormat
    /// libvips' Q (1...100): JPEG quality, or PNG palette quantisation quality; nil for a GIF passed through.
    public var quality: Int?
    /// Encodes spent on the image in all: sample encodes while searching plus the full-size ones.
    public var encodes: Int
    /// Of those, encodes of the whole output (1 unless the final encode landed over the budget).
    public var fullSizeEncodes: Int
    public var milliseconds: Int
    /// Whether the output is a new encoding or the input kept (see `ImageAction`).
    public var action: ImageAction = .reencoded
}

/// What became of an image: an input already within the budget is kept unless a re-encode is smaller.
public enum ImageAction: String, Sendable, Equatable {
    /// Decoded and encoded anew.
    case reencoded
    /// The input's bytes as they are (`--keep-metadata`, or a file whose metadata cannot be removed losslessly).
    case kept
    /// The input's pixels untouched, its metadata removed losslessly (see `LosslessStrip`).
    case stripped
}

/// The compressed image and what it took.
public struct CompressedImage: Sendable {
    /// The encoded image, or the data-URI string's UTF-8 bytes.
    public var bytes: [UInt8]
    public var record: ImageCompressionRecord
}
