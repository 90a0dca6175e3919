import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXCrypto

struct FilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "files",
        abstract: "Encrypt and decrypt CryptoFiles (SimpleX local file encryption), one or many.",
        subcommands: [Encrypt.self, Decrypt.self, Cat.self, Verify.self]
    )
}

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

extension FilesCommand {
    struct Encrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Encrypt files and folders (recursively) as CryptoFiles, recording each key in a manifest.",
            discussion: """
            Each file gets a fresh random key and nonce. The manifest is a JSON array of CryptoFile \
            objects ({"filePath", "cryptoArgs": {"fileKey", "fileNonce"}}), mode 0600, merged with an \
            existing one. Under -o DIR, files already there are refused before any work unless --force \
            (files an earlier run wrote with their keys in the same manifest are skipped). Keys reach the manifest's journal on disk before any file is replaced, so a \
            run killed at any instant loses nothing: run the same command again to finish it. \
            Files already listed in the manifest are skipped.

            With no paths (--data-dir DIR, default $SXKIT_DATA_DIR, else the desktop app's), it encrypts \
            the data directory's files folder instead: every plaintext file the chat database references \
            is encrypted in place and its key and nonce are recorded in the database, as the app does \
            with "encrypt local files" on. No manifest: the keys live in the database. Keys are \
            committed to the database before any file is replaced, and a journal beside the database \
            lets the next run settle a killed one. Missing files, symlinks and unsafe paths are \
            reported and never followed. The database must not be open in the app.
            """
        )

        @Argument(help: "Files and folders to encrypt (none: the data directory's files folder).", completion: .file())
        var paths: [String] = []

        @OptionGroup var destination: DestinationOptions

        @Option(name: .long, help: "The manifest that receives the keys (created 0600, merged if present).", completion: .file())
        var manifest: String?

        @OptionGroup var dataDirectory: DataDirectoryOptions
        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var grouping: DataDirGroupOption
        @OptionGroup var jobs: JobsOption
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            if paths.isEmpty {
                if manifest != nil || destination.isGiven {
                    throw ValidationError("the data directory's files are encrypted in place with their keys in the chat database: give no --manifest, -o or --in-place (or give paths)")
                }
            } else {
                if dataDirectory.dataDir != nil || dataDirectory.filesDir != nil {
                    throw ValidationError("give either paths or --data-dir/--files-dir, not both")
                }
                if manifest == nil { throw ValidationError("--manifest is required when encrypting paths") }
                try destination.requireOne()
            }
        }

        func run() throws {
            if paths.isEmpty {
                let dir = try DataDirFilesRun.resolve(dataDirectory, writes: true)
                let key = try passphrase.resolve()
                return try DataDirFilesRun(label: "encrypt", verb: "encrypted", options: global).run { tracker, sink in
                    try grouping.apply(ChatFilesWork(directory: dir, jobs: jobs.jobs, progress: tracker), onOutcome: sink).encrypt(passphrase: key)
                }
            }
            try BatchOutput.run(label: "encrypt", verb: "encrypted", options: global) { tracker in
                var batch = CryptoFileBatch(manifestPath: manifest!, jobs: jobs.jobs, progress: tracker)
                batch.outputPolicy = destination.outputPolicy
                return try batch.encrypt(paths, to: destination.destination)
            }
        }
    }

    struct Decrypt: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Decrypt CryptoFiles listed in a manifest, or one file with --args-file.",
            discussion: """
            The tag is checked before any plaintext reaches its destination: a tampered file fails with \
            "invalid auth tag" and leaves nothing behind. With --in-place the file's entry leaves the \
            manifest once it is decrypted. Decrypted copies under -o are created mode 0600; files already \
            there are refused before any work unless --force.

            With no paths (--data-dir DIR, default $SXKIT_DATA_DIR, else the desktop app's), it works on \
            the data directory's files folder, with the keys the chat database holds: -o DIR writes a \
            decrypted copy of every encrypted file, named after the file's name in the chat (two files \
            with one name become "name (2).ext"), and leaves the database unchanged; copies already there \
            (an earlier export's) are refused before any work unless --force replaces them; --in-place decrypts the files \
            themselves and clears their keys in the database (a killed run is settled by the next one).
            """
        )

        @Argument(help: "Encrypted files and folders (none: the data directory's files folder).", completion: .file())
        var paths: [String] = []

        @OptionGroup var keys: KeySourceOptions

        @OptionGroup var destination: DestinationOptions
        @OptionGroup var dataDirectory: DataDirectoryOptions
        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var grouping: DataDirGroupOption
        @OptionGroup var jobs: JobsOption
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            try destination.requireOne()
            if paths.isEmpty {
                if keys.isGiven { throw ValidationError("the data directory's keys come from its chat database: give no --manifest or --args-file (or give paths)") }
                return
            }
            if dataDirectory.dataDir != nil || dataDirectory.filesDir != nil {
                throw ValidationError("give either paths or --data-dir/--files-dir, not both")
            }
            try keys.requireOne()
            if keys.argsFile != nil, paths.count != 1 { throw ValidationError("--args-file decrypts exactly one file") }
        }

        func run() throws {
            if paths.isEmpty {
                let dir = try DataDirFilesRun.resolve(dataDirectory, writes: destination.inPlace)
                let key = try passphrase.resolve()
                return try DataDirFilesRun(label: "decrypt", verb: destination.inPlace ? "decrypted" : "exported", options: global).run { tracker, sink in
                    let work = grouping.apply(ChatFilesWork(directory: dir, jobs: jobs.jobs, progress: tracker), onOutcome: sink)
                    if let output = destination.output { return try work.export(to: output, passphrase: key, outputPolicy: destination.outputPolicy) }
                    return try work.decryptInPlace(passphrase: key)
                }
            }
            try keys.requireExistingManifest()
            let args = try keys.argsFile.map { try ArgsFile.load($0) }
            try BatchOutput.run(label: "decrypt", verb: "decrypted", options: global) { tracker in
                if let args {
                    return BatchReport(items: [try CryptoFileBatch.decryptOne(paths[0], args: args, to: destination.destination,
                                                                               outputPolicy: destination.outputPolicy, progress: tracker)])
                }
                var batch = CryptoFileBatch(manifestPath: keys.manifest!, jobs: jobs.jobs, progress: tracker)
                batch.outputPolicy = destination.outputPolicy
                return try batch.decrypt(paths, to: destination.destination)
            }
        }
    }

    struct Cat: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write a CryptoFile's plaintext to stdout, after checking its tag.",
            discussion: "Nothing is printed for a tampered file: the whole file is authenticated first."
        )

        @Argument(help: "The encrypted file.", completion: .file())
        var file: String

        @OptionGroup var keys: KeySourceOptions

        func validate() throws { try keys.requireOne() }

        func run() throws {
            try keys.requireExistingManifest()
            let args = try ArgsFile.resolve(file: file, manifest: keys.manifest, argsFile: keys.argsFile)
            let schedule = try CryptoFile.decrypt(file: Path.absolute(file), toDescriptor: ConsoleOutput.standardOutput.descriptor, args: args)
            if schedule == .earlierSxkit {
                ConsoleOutput.standardError.writeLine("sxkit: note: '\(file)' was encrypted by an earlier sxkit with a non-SimpleX key schedule, which the SimpleX apps cannot open; `sxkit files encrypt --data-dir` re-encrypts such files for them")
            }
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check CryptoFile tags without writing anything.",
            discussion: "With --manifest and no paths, every entry of the manifest is checked."
        )

        @Argument(help: "Encrypted files and folders (default with --manifest: all its entries).", completion: .file())
        var paths: [String] = []

        @OptionGroup var keys: KeySourceOptions

        @OptionGroup var jobs: JobsOption
        @OptionGroup var global: GlobalOptions

        func validate() throws {
            try keys.requireOne()
            if keys.argsFile != nil, paths.count != 1 { throw ValidationError("--args-file verifies exactly one file") }
        }

        func run() throws {
            try keys.requireExistingManifest()
            let args = try keys.argsFile.map { try ArgsFile.load($0) }
            try BatchOutput.run(label: "verify", verb: "verified", options: global, showsProgress: false) { _ in
                if let args { return BatchReport(items: [CryptoFileBatch.verifyOne(Path.absolute(paths[0]), args: args)]) }
                return try CryptoFileBatch(manifestPath: keys.manifest!, jobs: jobs.jobs).verify(paths)
            }
        }
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
