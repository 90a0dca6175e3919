import CVips
import SXCore

/// libvips, started once per process. Images are decoded and encoded only through here.
public enum VipsRuntime {
    /// Starts libvips on first use; later calls are free.
    public static let started: Bool = {
        vips_init("sxkit") == 0
    }()

    /// "8.14.1".
    public static var version: String { String(cString: vips_version_string()) }

    /// Input formats this libvips can decode, by loader name, in a fixed order.
    public static var supportedInputs: [String] {
        _ = started
        let loaders: [(String, String)] = [
            ("jpeg", "jpegload"), ("png", "pngload"), ("webp", "webpload"), ("gif", "gifload"),
            ("tiff", "tiffload"), ("heif/heic/avif", "heifload"), ("jxl", "jxlload"),
        ]
        return loaders.filter { vips_type_find("VipsOperation", $0.1) != 0 }.map(\.0)
    }
}
