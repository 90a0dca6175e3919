import CVips
import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// libvips, started once per process. Images are decoded and encoded only through here.
public enum VipsRuntime {
    /// Starts libvips on first use; later calls are free.
    public static let started: Bool = {
        // libvips prints decoder warnings ("error in tile 0 x 16") straight to stderr from any thread;
        // sxkit reports each failure as one sentence instead. VIPS_WARNING is libvips' own switch.
        setenv("VIPS_WARNING", "0", 0)
        // glibc gives each thread that allocates its own malloc arena (up to 8 per core) and keeps
        // what is freed there. libvips decodes and encodes on many short-lived worker threads, so a
        // bulk run held hundreds of MB of freed pixel buffers (measured: 505 MB peak for 100 photos;
        // 246 MB with two arenas, same speed). Two arenas: one per core of the machines we target.
        _ = mallopt(M_ARENA_MAX, 2)
        return vips_init("sxkit") == 0
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

extension VipsRuntime {
    /// Sizes libvips for `workers` images at once: one libvips thread each when there are several
    /// (the workers already fill the cores; libvips' own pool on top would oversubscribe them), and
    /// no operation cache (its memory would grow with every distinct file in a batch).
    public static func configure(workers: Int) {
        guard started else { return }
        let cores = ParallelWork.defaultJobs
        vips_concurrency_set(Int32(max(1, cores / max(1, workers))))
        vips_cache_set_max(0)
        vips_cache_set_max_mem(0)
        vips_cache_set_max_files(0)
    }

    /// Hands freed heap pages back to the system between images, so a long batch's peak stays that of
    /// the images in flight rather than of everything it has seen.
    public static func releaseFreedMemory() {
        _ = malloc_trim(0)
    }
}
