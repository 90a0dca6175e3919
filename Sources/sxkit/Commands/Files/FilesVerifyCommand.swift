import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXCrypto

extension FilesCommand {
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
