import CVips
import Foundation
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
        // libvips loads its optional modules (HEIF/AVIF, JPEG XL, ImageMagick, PDF, OpenSlide) at
        // start: about 17 ms of CPU in every process, which `image compress` of one JPEG pays for
        // nothing. Pointing VIPSHOME at no folder for the start skips them; `loadOptionalModules`
        // opens them when something needs them.
        let folder = optionalModuleFolder
        let original = getenv("VIPSHOME").map { String(cString: $0) }
        if folder != nil { setenv("VIPSHOME", "/dev/null", 1) }
        defer {
            if let original { setenv("VIPSHOME", original, 1) } else { unsetenv("VIPSHOME") }
        }
        return vips_init("sxkit") == 0
    }()

    /// Where libvips keeps its optional modules: `vips-modules-8.14` beside the libvips library this
    /// process loaded (named by dladdr on one of its functions; libvips' own `vips_guess_libdir` would
    /// cache its answer and so defeat the VIPSHOME trick, and reading /proc/self/maps for it cost 4 ms
    /// of every start). Nil when there is no such folder: then libvips loads whatever it finds at
    /// start, as usual.
    private static let optionalModuleFolder: String? = {
        var info = LoadedObject()
        guard let symbol = dlsym(nil, "vips_version"), c_dladdr(symbol, &info) != 0, let file = info.fileName else { return nil }
        let folder = Path.join(Path.parent(String(cString: file)), "vips-modules-\(vips_version(0)).\(vips_version(1))")
        var st = stat()
        return stat(folder, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR ? folder : nil
    }()

    /// Opens libvips' optional modules, once: the first input no built-in loader recognises, the
    /// first operation that is not built in, or the list of what can be read. True when any opened.
    @discardableResult
    public static func loadOptionalModules() -> Bool { optionalModulesLoaded }

    private static let optionalModulesLoaded: Bool = {
        guard started, let folder = optionalModuleFolder,
              let names = try? Folders.names(in: folder) else { return false }
        var opened = false
        for name in names.sorted() where name.hasSuffix(".so") {
            // What libvips does with them: opening runs the module's g_module_check_init, which
            // registers its loaders and savers; modules are never unloaded.
            guard let module = g_module_open(Path.join(folder, name), GModuleFlags(rawValue: G_MODULE_BIND_LAZY.rawValue | G_MODULE_BIND_LOCAL.rawValue)) else { continue }
            g_module_make_resident(module)
            opened = true
        }
        VipsErrorLog.discard()  // a module that cannot load says why; the file it was needed for says more
        return opened
    }()

    /// "8.14.1".
    public static var version: String { String(cString: vips_version_string()) }

    /// Input formats this libvips can decode, by loader name, in a fixed order.
    public static var supportedInputs: [String] {
        loadOptionalModules()
        return documentedLoaders.filter { vips_type_find("VipsOperation", $0.1) != 0 }.map(\.0)
    }

    /// The formats sxkit reads, by name and loader: the only loaders it lets libvips use. libvips
    /// also reads BMP, SVG, PDF, PPM, FITS… through ImageMagick, librsvg, poppler and its own code;
    /// none of them is a picture a chat sends, and each is more attack surface for hostile input.
    static let documentedLoaders: [(String, String)] = [
        ("jpeg", "jpegload"), ("png", "pngload"), ("webp", "webpload"), ("gif", "gifload"),
        ("tiff", "tiffload"), ("heif/heic/avif", "heifload"), ("jxl", "jxlload"),
    ]

    /// Whether `nickname` (a file loader's, e.g. `svgload`) is one of `documentedLoaders`.
    static func isDocumentedLoader(_ nickname: String) -> Bool {
        documentedLoaders.contains { $0.1 == nickname }
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
        if getenv("SXKIT_NOTRIM") == nil { _ = malloc_trim(0) }
    }
}

/// glibc's `Dl_info` (a GNU extension the Glibc module does not export): the object a loaded
/// address belongs to.
private struct LoadedObject {
    var fileName: UnsafePointer<CChar>?
    var base: UnsafeMutableRawPointer?
    var symbolName: UnsafePointer<CChar>?
    var symbolAddress: UnsafeMutableRawPointer?
}

@_silgen_name("dladdr") private func c_dladdr(_ address: UnsafeRawPointer?, _ info: UnsafeMutablePointer<LoadedObject>) -> Int32
