import SXDatabase

/// Decides per entry whether deflate is worth running, from the first bytes of the content rather
/// than the name: a CryptoFile called `IMG_1001.jpg` is random bytes, and a photo called `photo.bin`
/// is still a JPEG. Deflating either costs CPU time and saves nothing (it even grows them slightly).
public enum CompressionChoice {
    /// How many leading bytes the decision looks at.
    public static let sampleSize = DatabaseFileKind.sampleSize

    /// Deflate stays off for entries this close below 4 GiB: incompressible stretches can make the
    /// deflated form larger than the input, past what a non-Zip64 local header can state.
    static let largestDeflatedEntry: Int64 = 0xF000_0000

    /// Formats that are already compressed (or encrypted), by their signatures.
    static let compressedSignatures: [(bytes: [UInt8], offset: Int)] = [
        ([0xFF, 0xD8, 0xFF], 0),                               // JPEG
        ([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], 0), // PNG
        (Array("GIF8".utf8), 0),                               // GIF
        (Array("WEBP".utf8), 8),                               // WebP (RIFF....WEBP)
        (Array("ftyp".utf8), 4),                               // MP4, MOV, HEIC, AVIF, M4A
        ([0x1A, 0x45, 0xDF, 0xA3], 0),                         // Matroska, WebM
        (Array("OggS".utf8), 0),                               // Ogg (Opus, Vorbis)
        (Array("ID3".utf8), 0),                                // MP3 with tags
        ([0xFF, 0xFB], 0),                                     // MP3 frame
        ([0x50, 0x4B, 0x03, 0x04], 0),                         // ZIP (also DOCX, XLSX, APK, JAR)
        ([0x1F, 0x8B], 0),                                     // gzip
        (Array("BZh".utf8), 0),                                // bzip2
        ([0xFD, 0x37, 0x7A, 0x58, 0x5A, 0x00], 0),             // xz
        ([0x28, 0xB5, 0x2F, 0xFD], 0),                         // zstd
        ([0x37, 0x7A, 0xBC, 0xAF, 0x27, 0x1C], 0),             // 7-Zip
        (Array("Rar!".utf8), 0),                               // RAR
    ]

    /// The method for an entry of `size` bytes whose content starts with `sample`.
    /// `compress` false stores everything.
    public static func method(size: Int64, sample: UnsafeRawBufferPointer, compress: Bool) -> ZipMethod {
        guard compress, size > 0, size < largestDeflatedEntry else { return .stored }
        return isIncompressible(sample) ? .stored : .deflate
    }

    /// Whether `sample` starts like an already-compressed format or looks like random bytes (a
    /// CryptoFile, an encrypted database: both are indistinguishable from random by design).
    public static func isIncompressible(_ sample: UnsafeRawBufferPointer) -> Bool {
        for signature in compressedSignatures where sample.count >= signature.offset + signature.bytes.count {
            if zip(sample[signature.offset...], signature.bytes).allSatisfy({ $0 == $1 }) { return true }
        }
        return DatabaseFileKind.looksRandom(sample)
    }
}
