import SXCore
import SXCrypto
import SXDatabase
import SXArchive
import SXImages

/// `sxkit --version`: what is actually loaded, so a bug report says which SQLCipher ran.
enum RuntimeReport {
    static func text() -> String {
        let cipher = SQLCipherRuntime.cipherVersion ?? "not SQLCipher"
        let cipherNote = (try? SQLCipherRuntime.requireSQLCipher4()) == nil ? "  (UNSUPPORTED: databases will be refused)" : ""
        return """
        sxkit \(SXKit.version)
        SQLCipher   \(cipher) (SQLite \(SQLCipherRuntime.sqliteVersion))\(cipherNote)
        libsodium   \(SodiumRuntime.version)
        libcrypto   \(DigestRuntime.version) (SHA-256, SHA-512)
        libarchive  \(ArchiveRuntime.version.replacingOccurrences(of: "libarchive ", with: "")) (\(ArchiveRuntime.details))
        libvips     \(VipsRuntime.version) (reads: \(VipsRuntime.supportedInputs.joined(separator: ", ")))

        """
    }
}
