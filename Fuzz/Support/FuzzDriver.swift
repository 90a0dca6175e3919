import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// The entry point of every fuzz target: libFuzzer's driver in a fuzzing build, the replay tool
/// otherwise.
public enum FuzzDriver {
    static func run(_ fuzz: @escaping (UnsafeRawBufferPointer) -> Void, seeds: () throws -> [(name: String, bytes: [UInt8])]) -> Never {
        #if SXKIT_FUZZ
        // SwiftPM links an executable's `main` to its `@main` type (on Linux it renames the entry point
        // and defines `main` as that name), so libFuzzer's own `main` never runs: this hands the
        // command line to its driver instead, which reads libFuzzer's flags and corpus folders.
        currentFuzz = fuzz
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(LLVMFuzzerRunDriver(&argc, &argv, LLVMFuzzerTestOneInput))
        #else
        exit(replay(Array(CommandLine.arguments.dropFirst()), fuzz: fuzz, seeds: seeds))
        #endif
    }

    /// `TARGET PATH…` runs every file named, and every file in every folder named, through `fuzz`;
    /// `TARGET --write-seeds FOLDER` writes the target's seeds there, one file per seed.
    static func replay(_ arguments: [String], fuzz: (UnsafeRawBufferPointer) -> Void,
                       seeds: () throws -> [(name: String, bytes: [UInt8])]) -> Int32 {
        let tool = Path.basename(CommandLine.arguments.first ?? "fuzz")
        do {
            if arguments.first == "--write-seeds", arguments.count == 2 {
                let folder = arguments[1]
                try Folders.create(folder)
                let all = try seeds()
                for seed in all { try AtomicFileWriter.write(seed.bytes, to: Path.join(folder, seed.name)) }
                print("\(tool): wrote \(all.count) seeds to \(folder)")
                return 0
            }
            guard !arguments.isEmpty, !arguments.contains(where: { $0.hasPrefix("-") }) else {
                standardError("usage: \(tool) PATH... (files or folders to replay) | \(tool) --write-seeds FOLDER\n")
                return 2
            }
            var count = 0
            for path in arguments {
                for file in try inputs(path) {
                    try FileBytes.read(file, limit: 64 << 20).withUnsafeBytes { fuzz($0) }
                    count += 1
                }
            }
            print("\(tool): replayed \(count) inputs")
            return 0
        } catch {
            standardError("\(tool): \(error)\n")
            return 1
        }
    }

    /// A file, or the regular files of a folder (not its hidden ones), in name order.
    static func inputs(_ path: String) throws -> [String] {
        guard Folders.isFolder(path) else { return [path] }
        return try Folders.names(in: path).filter { !$0.hasPrefix(".") }.sorted().map { Path.join(path, $0) }
            .filter { !Folders.isFolder($0) }
    }

    static func standardError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = Glibc.write(2, &bytes, bytes.count)
    }
}

#if SXKIT_FUZZ
/// Set once, before libFuzzer starts; libFuzzer calls back on the thread that started it.
nonisolated(unsafe) private var currentFuzz: ((UnsafeRawBufferPointer) -> Void)?

/// libFuzzer's callback (its own `main`, linked in but never run, names it too).
@_cdecl("LLVMFuzzerTestOneInput")
func LLVMFuzzerTestOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    currentFuzz?(UnsafeRawBufferPointer(start: data, count: size))
    return 0
}

/// `int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*cb)(const uint8_t *, size_t))`, libFuzzer's
/// entry for a program with its own `main`. Pointers and an int only, so Swift's calling convention
/// passes them as C's does.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32
#endif
