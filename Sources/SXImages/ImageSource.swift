import CVips
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// One input file, known from its header only: no pixel has been decoded yet.
struct ImageSource {
    let path: String
    let bytes: Int64
    let width: Int
    let height: Int
    /// Loader short name ("jpeg", "png", …).
    let format: String
    /// Frames in the file (GIF, WebP, HEIF can hold several).
    let pages: Int
    /// Bands as stored (a CMYK JPEG has 4).
    let bands: Int
    /// What the decoder must hold at once when it cannot decode this file as a stream, else nil
    /// (with `wholeDecodeKind`, the reason in words).
    var wholeDecodeBytes: Int?
    var wholeDecodeKind = ""

    var pixels: Int { width * height }

    /// Checks the file can be read and is an image, and reads its header. libvips loaders are lazy:
    /// building the load operation parses the header and allocates no pixel memory, so a 50,000 ×
    /// 50,000 "bomb" costs a few kilobytes here and is refused by the caller before decoding.
    static func open(_ path: String) throws -> ImageSource {
        let fd = SXCore.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageError(path: path, reason: .unreadable(String(cString: strerror(errno)))) }
        var st = stat()
        let statted = fstat(fd, &st) == 0
        close(fd)
        guard statted else { throw ImageError(path: path, reason: .unreadable(String(cString: strerror(errno)))) }
        guard st.st_size > 0 else { throw ImageError(path: path, reason: .empty) }

        _ = VipsRuntime.started
        guard let found = FileNameBytes.withPath(path, { vips_foreign_find_load($0) }) ?? Self.findWithOptionalModules(path) else {
            _ = VipsErrorLog.claim(subject: path)  // "not a known file format": said better by ImageError
            throw ImageError(path: path, reason: .notAnImage)
        }
        let nickname = vips_nickname_find(g_type_from_name(found)).map { String(cString: $0) } ?? "load"
        let format = nickname.hasSuffix("load") ? String(nickname.dropLast(4)) : nickname
        guard VipsRuntime.isDocumentedLoader(nickname) else { throw ImageError(path: path, reason: .unsupportedFormat(format)) }
        let header: VipsImage
        do {
            header = try Vips.call(nickname, ["filename": .string(path)]).image("out")
        } catch let error as VipsError {
            throw ImageError(path: path, reason: .damaged(format: format, detail: error.message))
        }
        var source = ImageSource(path: path, bytes: Int64(st.st_size), width: header.width, height: header.height,
                                 format: format, pages: max(1, Int(vips_image_get_n_pages(header.pointer))), bands: header.bands)
        (source.wholeDecodeBytes, source.wholeDecodeKind) = wholeDecode(header, format: format) ?? (nil, "")
        return source
    }

    /// The buffer a loader holds whole, from the header, for the files its library cannot read row
    /// by row: libjpeg keeps a progressive JPEG's every DCT coefficient (2 bytes each, chroma at a
    /// quarter with 4:2:0) even when it decodes scaled down; libpng/spng an interlaced PNG's every
    /// pixel; libheif and libjxl the whole frame; libnsgif a frame as RGBA. Other files stream.
    static func wholeDecode(_ header: VipsImage, format: String) -> (Int, String)? {
        let pixels = header.width * header.height
        let sample = Int(vips_format_sizeof(vips_image_get_format(header.pointer)))
        func int(_ name: String) -> Int32 {
            var value: Int32 = 0
            return vips_image_get_typeof(header.pointer, name) != 0 && vips_image_get_int(header.pointer, name, &value) == 0 ? value : 0
        }
        switch format {
        case "jpeg" where int("jpeg-multiscan") == 1:
            var subsampled = false
            var text: UnsafePointer<CChar>?
            if vips_image_get_typeof(header.pointer, "jpeg-chroma-subsample") != 0,
               vips_image_get_string(header.pointer, "jpeg-chroma-subsample", &text) == 0, let text {
                subsampled = String(cString: text) == "4:2:0"
            }
            let components = header.bands >= 3 && subsampled ? 1.5 : Double(header.bands)
            return (Int(Double(pixels) * components * 2), "a progressive JPEG, whose every coefficient libjpeg holds")
        case "png" where int("interlaced") == 1:
            return (pixels * header.bands * sample, "an interlaced PNG, which is decoded whole")
        case "heif", "jxl":
            return (pixels * header.bands * sample, "a \(format == "heif" ? "HEIF/AVIF" : "JPEG XL") image, which is decoded whole")
        case "gif":
            return (pixels * 4, "a GIF, whose frame is decoded whole")
        default:
            return nil
        }
    }

    /// No built-in loader knows the file: perhaps an optional module's does (HEIC, AVIF, JPEG XL…).
    private static func findWithOptionalModules(_ path: String) -> UnsafePointer<CChar>? {
        guard VipsRuntime.loadOptionalModules() else { return nil }
        _ = VipsErrorLog.claim(subject: path)  // the first try's "not a known file format"
        return FileNameBytes.withPath(path) { vips_foreign_find_load($0) }
    }

    /// Decodes the first frame with shrink-on-load so its long side is at most `longSide`, upright
    /// (EXIF orientation applied), in 8-bit sRGB, held in memory so it can be resized and encoded
    /// repeatedly without decoding the file again.
    func decode(longSide: Int) throws -> VipsImage {
        do {
            // A square box: the long side lands on `longSide` whichever way the image is rotated.
            // fail-on warning: libjpeg only *warns* about corrupt entropy data and fills the damage with
            // grey; sending that picture silently would be worse than naming the file.
            let thumb = try Vips.image("thumbnail", [
                "filename": .string(path), "width": .int(longSide), "height": .int(longSide),
                "size": "down", "fail-on": "warning",
            ])
            let srgb = try Vips.image("colourspace", ["in": .image(thumb), "space": "srgb"])
            let eight = try Vips.image("cast", ["in": .image(srgb), "format": "uchar"])
            return try Self.materialize(eight, operation: "decode", subject: path)
        } catch let error as VipsError {
            throw ImageError(path: path, reason: .damaged(format: format, detail: error.message))
        }
    }

    /// The largest of libjpeg's DCT scalings (1/8, 1/4, 1/2, 1/1) that still decodes a long side of at
    /// least `longSide`, or nil when the file has none: not a JPEG, or a CMYK one (which `decode(longSide:)`
    /// converts through an ICC profile, as libvips' thumbnail does).
    ///
    /// Why not let libvips' thumbnail choose: it leaves a factor of two for its own resize, so a 4800-pixel
    /// JPEG wanted at 2400 is decoded at full size and reduced (measured: 295 ms of CPU against 129 ms for
    /// the 1/2 scaling). The scaled IDCT is a proper low-pass, so the factor of two buys nothing here.
    func dctShrink(longSide: Int) -> Int? {
        guard format == "jpeg", bands == 1 || bands == 3 else { return nil }
        let long = max(width, height)
        return [8, 4, 2].first { (long + $0 - 1) / $0 >= longSide } ?? 1
    }

    /// Decodes a JPEG at 1/`shrink` of its size in the DCT (see `dctShrink`), then, when that is more than
    /// half again the pixels of a `longSide` box, resizes to the box while streaming, so the bigger picture
    /// is never held. Upright, 8-bit sRGB, in memory, like `decode(longSide:)`.
    func decode(dctShrink shrink: Int, longSide: Int) throws -> VipsImage {
        do {
            var image = try Vips.image("jpegload", [
                "filename": .string(path), "shrink": .int(shrink), "access": "sequential", "fail-on": "warning",
            ])
            let long = max(image.width, image.height)
            if long > longSide, Double(long * long) > Double(longSide * longSide) * 1.5 {
                image = try Vips.image("resize", [
                    "in": .image(image), "scale": .double(Double(longSide) / Double(long)), "kernel": "linear",
                ])
            }
            let srgb = try Vips.image("colourspace", ["in": .image(image), "space": "srgb"])
            let eight = try Vips.image("cast", ["in": .image(srgb), "format": "uchar"])
            let decoded = try Self.materialize(eight, operation: "decode", subject: path)
            // After the decode: rotating needs the whole picture, which a sequential read does not give.
            let upright = try Vips.call("autorot", ["in": .image(decoded)], optionalOutputs: ["angle", "flip"])
            var turned = false
            if case .int(let angle)? = upright["angle"], angle != 0 { turned = true }
            if case .bool(true)? = upright["flip"] { turned = true }
            return turned ? try Self.materialize(try upright.image(), operation: "autorot", subject: path) : decoded
        } catch let error as VipsError {
            throw ImageError(path: path, reason: .damaged(format: format, detail: error.message))
        }
    }

    /// Computes every pixel of `image` into memory; decoding errors surface here.
    static func materialize(_ image: VipsImage, operation: String, subject: String? = nil) throws -> VipsImage {
        guard let copy = vips_image_copy_memory(image.pointer) else { throw VipsError.fromLibvips(operation, subject: subject) }
        return VipsImage(owning: copy)
    }
}
