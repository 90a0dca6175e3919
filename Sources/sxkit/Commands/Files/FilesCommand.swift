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
