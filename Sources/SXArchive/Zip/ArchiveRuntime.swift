import CArchive

/// The libarchive library actually loaded into this process.
public enum ArchiveRuntime {
    /// "libarchive 3.6.2".
    public static var version: String { String(cString: archive_version_string()) }
    /// The compression libraries libarchive was built with ("zlib/1.2.13 liblzma/5.4.1 …").
    public static var details: String { String(cString: archive_version_details()) }
}
