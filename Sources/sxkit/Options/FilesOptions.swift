import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXCrypto

/// `-o DIR` or `--in-place`, exactly one.
struct DestinationOptions: ParsableArguments {
    @Option(name: [.customShort("o"), .customLong("output")], help: "Write results below this folder, keeping the inputs.", completion: .directory)
    var output: String?

    @Flag(name: .customLong("in-place"), help: "Replace each file (crash-safe: a killed run is finished by the next one).")
    var inPlace = false

    @Flag(name: .long, help: "Replace files already under -o DIR (each atomically); without it they are refused before any work.")
    var force = false

    func validate() throws {
        if output != nil, inPlace { throw ValidationError("give exactly one of -o DIR and --in-place") }
        if force, output == nil { throw ValidationError("--force replaces files under -o DIR; give -o DIR (--in-place replaces the inputs already)") }
    }

    var outputPolicy: OutputPolicy { OutputPolicy(replaceExisting: force) }

    var isGiven: Bool { output != nil || inPlace }

    func requireOne() throws {
        if !isGiven { throw ValidationError("give exactly one of -o DIR and --in-place") }
    }

    var destination: BatchDestination { inPlace ? .inPlace : .folder(output!) }
}

/// Where a file's key comes from: a manifest, or one CryptoFileArgs JSON file.
struct KeySourceOptions: ParsableArguments {
    @Option(name: .long, help: "Manifest holding the files' keys.", completion: .file())
    var manifest: String?

    @Option(name: .customLong("args-file"), help: "A CryptoFileArgs JSON file ({\"fileKey\", \"fileNonce\"}), for a single file.", completion: .file())
    var argsFile: String?

    func validate() throws {
        if manifest != nil, argsFile != nil { throw ValidationError("give exactly one of --manifest and --args-file") }
    }

    var isGiven: Bool { manifest != nil || argsFile != nil }

    func requireOne() throws {
        if !isGiven { throw ValidationError("give exactly one of --manifest and --args-file") }
    }
}

/// Reading CryptoFileArgs from `--args-file` or a manifest entry.
enum ArgsFile {
    static func load(_ path: String) throws -> CryptoFileArgs {
        let bytes = try FileBytes.read(path, limit: 64 * 1024)
        do {
            return try JSONDecoder().decode(CryptoFileArgs.self, from: Data(bytes))
        } catch let error as CryptoFileError {
            throw UsageError("args file '\(path)': \(error)")
        } catch {
            throw UsageError("args file '\(path)' is not a CryptoFileArgs JSON object {\"fileKey\": …, \"fileNonce\": …}")
        }
    }

    static func resolve(file: String, manifest: String?, argsFile: String?) throws -> CryptoFileArgs {
        if let argsFile { return try load(argsFile) }
        let m = try CryptoFileManifest.load(manifest!)
        guard let args = m.args(for: Path.absolute(file)) else {
            throw UsageError("'\(file)' is not listed with a key in the manifest \(m.path)")
        }
        return args
    }
}
