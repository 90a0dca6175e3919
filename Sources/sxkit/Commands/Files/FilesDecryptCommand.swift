import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXCrypto

extension FilesCommand {
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
}
