import Foundation
import SXCore

/// The input itself as a candidate output (issue 15, item 11): a JPEG or PNG already within the
/// budget, in the format the options allow, its metadata removed losslessly unless kept.
struct KeptInput {
    var candidate: Candidate
    /// What is written: the bytes, or their data-URI string.
    var output: [UInt8]
    var action: ImageAction

    static func candidate(_ source: ImageSource, options: ImageCompressionOptions) throws -> KeptInput? {
        let format: ImageFormat
        switch source.format {
        case "jpeg": format = .jpeg
        case "png": format = .png
        default: return nil
        }
        guard source.pages == 1, options.format == .auto || options.format.rawValue == format.rawValue,
              options.cost(Int(source.bytes), format: format) <= options.budget else { return nil }
        let original = try FileBytes.read(source.path, limit: options.budget)
        var bytes = original, action = ImageAction.kept
        if !options.keepMetadata, let stripped = LosslessStrip.strip(original), stripped.count <= original.count {
            bytes = stripped
            action = .stripped
        }
        let candidate = Candidate(encoded: bytes, cost: options.cost(bytes.count, format: format),
                                  width: source.width, height: source.height, format: format, quality: nil)
        let output = options.dataURI ? Array((format.dataURIPrefix + Data(bytes).base64EncodedString()).utf8) : bytes
        return KeptInput(candidate: candidate, output: output, action: action)
    }
}
