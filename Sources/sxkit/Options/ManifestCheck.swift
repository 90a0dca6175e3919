import SXCore
#if canImport(Glibc)
import Glibc
#endif

extension KeySourceOptions {
    /// Commands that read keys (decrypt, verify, cat) need the manifest to be there: a mistyped
    /// `--manifest` is "not done" (exit 1) with a sentence saying so, never "0 files verified" or
    /// every file "not listed". (`files encrypt` creates its manifest, so it does not call this.)
    func requireExistingManifest() throws {
        guard let manifest else { return }
        guard let st = POSIXFile.linkStatus(manifest) else {
            throw ManifestMissing(description: "there is no manifest '\(manifest)': \(String(cString: strerror(errno))); "
                + "give the manifest that `sxkit files encrypt` wrote the files' keys to")
        }
        if st.st_mode & S_IFMT != S_IFREG {
            throw ManifestMissing(description: "the manifest '\(manifest)' is not a regular file")
        }
    }
}

/// The manifest named on the command line is not there (exit 1).
struct ManifestMissing: SXError {
    let description: String
}
