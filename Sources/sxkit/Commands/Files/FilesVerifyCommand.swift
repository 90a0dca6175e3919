import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXCrypto

extension FilesCommand {
    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check CryptoFile tags without writing anything.",
            discussion: """
            With --manifest and no paths, every entry of the manifest is checked.

            With no paths and no --manifest or --args-file (--data-dir DIR, default $SXKIT_DATA_DIR, \
            else the desktop app's), every CryptoFile of the data directory's files folder is checked \
            with its key from the chat database, which is only read (as `sxkit check --read-data` \
            does). Files the database references but that are missing, symlinks and rows whose path \
            leaves the files folder are reported as skipped and never opened.
            """
        )

        @Argument(help: "Encrypted files and folders (default with --manifest: all its entries; with neither: the data directory's files folder).",
                  completion: .file())
        var paths: [String] = []

        @OptionGroup var keys: KeySourceOptions

        @OptionGroup var dataDirectory: DataDirectoryOptions
        @OptionGroup var passphrase: PassphraseOptions
        @OptionGroup var jobs: JobsOption
        @OptionGroup var global: GlobalOptions

        /// No paths and no key source: the data directory's files with the chat database's keys.
        var onDataDirectory: Bool { paths.isEmpty && !keys.isGiven }

        func validate() throws {
            if onDataDirectory { return }
            if dataDirectory.dataDir != nil || dataDirectory.filesDir != nil {
                throw ValidationError("the data directory's keys come from its chat database: give --data-dir/--files-dir without --manifest, --args-file or paths")
            }
            try keys.requireOne()
            if keys.argsFile != nil, paths.count != 1 { throw ValidationError("--args-file verifies exactly one file") }
        }

        func run() throws {
            if onDataDirectory {
                let dir = try DataDirFilesRun.resolve(dataDirectory, writes: false)
                let key = try ChatPassphrase.required(for: dir, passphrase)
                return try BatchOutput.run(label: "verify", verb: "verified", options: global, showsProgress: false) { tracker in
                    try ChatCryptoFiles.verify(directory: dir, passphrase: key, jobs: jobs.jobs, progress: tracker)
                }
            }
            try keys.requireExistingManifest()
            let args = try keys.argsFile.map { try ArgsFile.load($0) }
            try BatchOutput.run(label: "verify", verb: "verified", options: global, showsProgress: false) { _ in
                if let args { return BatchReport(items: [CryptoFileBatch.verifyOne(Path.absolute(paths[0]), args: args)]) }
                return try CryptoFileBatch(manifestPath: keys.manifest!, jobs: jobs.jobs).verify(paths)
            }
        }
    }
}
