import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXCrypto

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
}
