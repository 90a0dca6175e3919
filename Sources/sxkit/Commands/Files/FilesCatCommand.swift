import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXTerminal
import SXCrypto

extension FilesCommand {
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
}
