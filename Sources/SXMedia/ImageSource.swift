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

    var pixels: Int { width * height }

    /// Checks the file can be read and is an image, and reads its header. libvips loaders are lazy:
    /// building the load operation parses the header and allocates no pixel memory, so a 50,000 ×
    /// 50,000 "bomb" costs a few kilobytes here and is refused by the caller before decoding.
    static func open(_ path: String) throws -> ImageSource {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ImageError(path: path, reason: .unreadable(String(cString: strerror(errno)))) }
        var st = stat()
        let statted = fstat(fd, &st) == 0
        close(fd)
        guard statted else { throw ImageError(path: path, reason: .unreadable(String(cString: strerror(errno)))) }
        guard st.st_size > 0 else { throw ImageError(path: path, reason: .empty) }

        _ = VipsRuntime.started
        guard let found = vips_foreign_find_load(path) else {
            _ = VipsErrorLog.claim(subject: path)  // "not a known file format": said better by ImageError
            throw ImageError(path: path, reason: .notAnImage)
        }
        let nickname = vips_nickname_find(g_type_from_name(found)).map { String(cString: $0) } ?? "load"
        let format = nickname.hasSuffix("load") ? String(nickname.dropLast(4)) : nickname
        let header: VipsImage
        do {
            header = try Vips.call(nickname, ["filename": .string(path)]).image("out")
        } catch let error as VipsError {
            throw ImageError(path: path, reason: .damaged(format: format, detail: error.message))
        }
        return ImageSource(path: path, bytes: Int64(st.st_size), width: header.width, height: header.height,
                           format: format, pages: max(1, Int(vips_image_get_n_pages(header.pointer))))
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

    /// Computes every pixel of `image` into memory; decoding errors surface here.
    static func materialize(_ image: VipsImage, operation: String, subject: String? = nil) throws -> VipsImage {
        guard let copy = vips_image_copy_memory(image.pointer) else { throw VipsError.fromLibvips(operation, subject: subject) }
        return VipsImage(owning: copy)
    }
}
