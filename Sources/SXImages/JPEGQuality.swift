import SXCore
#if canImport(Glibc)
import Glibc
#endif

/// The quality a JPEG was saved at, read from its luminance quantization table.
///
/// Why it matters: re-encoding a decoded JPEG with the very tables it was made with lands almost
/// exactly on the same coefficients (SSIM ≈ 1), while a slightly *higher* quality re-quantizes every
/// block on a different grid and loses more than it gains. When the picture fits the budget at full
/// size and at its own quality, that quality is the best choice.
enum JPEGQuality {
    /// libvips' jpegsave subsamples chroma 4:2:0 below this quality and keeps it whole from it on.
    static let fullChromaFrom = 90

    /// The IJG (libjpeg) quality 1...100 whose scaled standard table equals the file's table 0 exactly,
    /// or nil: not a JPEG, no table before the scan, or tables from another encoder.
    static func estimate(path: String) -> Int? {
        guard let header = try? readHeader(path) else { return nil }
        guard let table = luminanceTable(in: header) else { return nil }
        return (1...100).first { ijgTable(quality: $0) == table }
    }

    /// libjpeg's standard luminance table (Annex K), in zig-zag order as stored in DQT.
    static let standardLuminance: [Int] = [
        16, 11, 12, 14, 12, 10, 16, 14, 13, 14, 18, 17, 16, 19, 24, 40,
        26, 24, 22, 22, 24, 49, 35, 37, 29, 40, 58, 51, 61, 60, 57, 51,
        56, 55, 64, 72, 92, 78, 64, 68, 87, 69, 55, 56, 80, 109, 81, 87,
        95, 98, 103, 104, 103, 62, 77, 113, 121, 112, 100, 120, 92, 101, 103, 99,
    ]

    /// jpeg_quality_scaling and jpeg_add_quant_table with force_baseline.
    static func ijgTable(quality: Int) -> [Int] {
        let scale = quality < 50 ? 5000 / quality : 200 - quality * 2
        return standardLuminance.map { min(255, max(1, ($0 * scale + 50) / 100)) }
    }

    /// Table 0 from the first DQT segments, walking markers until the first scan.
    static func luminanceTable(in bytes: [UInt8]) -> [Int]? {
        guard bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var at = 2
        while at + 4 <= bytes.count {
            guard bytes[at] == 0xFF else { return nil }
            let marker = bytes[at + 1]
            if marker == 0xFF { at += 1; continue }  // fill byte
            if marker == 0xDA || marker == 0xD9 { return nil }  // scan or end: no table 0 before it
            let length = Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
            guard length >= 2, at + 2 + length <= bytes.count else { return nil }
            if marker == 0xDB {
                var p = at + 4
                while p < at + 2 + length {
                    let precision = bytes[p] >> 4, id = bytes[p] & 0x0F
                    let size = precision == 0 ? 64 : 128
                    guard p + 1 + size <= at + 2 + length else { return nil }
                    if id == 0 {
                        guard precision == 0 else { return nil }
                        return bytes[(p + 1)..<(p + 65)].map(Int.init)
                    }
                    p += 1 + size
                }
            }
            at += 2 + length
        }
        return nil
    }

    /// The first bytes of the file: enough for every segment before the scan (APP1 is at most 64 KiB).
    private static func readHeader(_ path: String) throws -> [UInt8] {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while result.count < 256 * 1024 {
            let n = try POSIXFile.read(fd, into: &buffer, path: path)
            if n == 0 { break }
            result.append(contentsOf: buffer[0..<n])
        }
        return result
    }
}
