import SXSample
import CVips
import Foundation
import SXTestSupport
@testable import SXImages

/// Images and checks shared by the compressor tests.
enum Fixtures {
    /// Encodes a synthetic picture with any libvips saver ("webpsave_buffer", "tiffsave_buffer", …).
    static func encoded(_ saver: String, width: Int, height: Int, seed: Int = 1, alpha: Bool = false) throws -> [UInt8] {
        let image = try SyntheticImage.picture(width: width, height: height, seed: seed, alpha: alpha)
        return try Vips.call(saver, ["in": .image(image)]).bytes()
    }

    /// A JPEG whose EXIF says "rotate 90° clockwise to view" (orientation 6), stored `width` × `height`.
    static func rotatedJPEG(width: Int, height: Int) throws -> [UInt8] {
        let picture = try SyntheticImage.picture(width: width, height: height, seed: 3, alpha: false)
        let copy = try Vips.image("copy", ["in": .image(picture)])  // a private image to set metadata on
        vips_image_set_int(copy.pointer, "orientation", 6)
        return try Vips.call("jpegsave_buffer", ["in": .image(copy), "Q": 90]).bytes()
    }

    /// A PNG that declares 50,000 × 50,000 RGB pixels but holds only a valid IHDR and a few bytes of IDAT.
    static func pngBomb() -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return bigEndian(UInt32(data.count)) + body + bigEndian(crc32(body))
        }
        var ihdr = bigEndian(50_000) + bigEndian(50_000)
        ihdr += [8, 2, 0, 0, 0]  // 8-bit, RGB, deflate, adaptive filter, no interlace
        // A zlib stream start (no compression block) that ends long before 7.5 GB of rows.
        let idat: [UInt8] = [0x78, 0x01, 0x00, 0x10, 0x00, 0xEF, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    static func bigEndian(_ value: UInt32) -> [UInt8] { [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    /// What `vipsheader -a` (a tool this project did not write) says about a file; nil when it fails.
    static func vipsheader(_ path: String, all: Bool = false) -> String? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["vipsheader"] + (all ? ["-a"] : []) + [path]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return process.terminationStatus == 0 ? String(decoding: data, as: UTF8.self) : nil
    }

    /// The reference app's loop (FORMATS §9): JPEG at Q 85; while too big, shrink by
    /// min(2, sqrt(size / budget)) and encode again. Returns the final width × height.
    static func referenceLoop(_ bytes: [UInt8], budget: Int) throws -> (width: Int, height: Int, size: Int) {
        var image = try Vips.load(bytes).image
        var encoded = try Vips.call("jpegsave_buffer", ["in": .image(image), "Q": 85]).bytes()
        while encoded.count > budget {
            let factor = min(2, (Double(encoded.count) / Double(budget)).squareRoot())
            // Just over the budget the factor is ≈ 1.0001 and the resize would round to the same
            // size for ever: every pass takes at least one pixel off the long side.
            let long = Double(max(image.width, image.height))
            let scale = min(1 / factor, (long - 1) / long)
            image = try Vips.image("resize", ["in": .image(image), "scale": .double(scale)])
            encoded = try Vips.call("jpegsave_buffer", ["in": .image(image), "Q": 85]).bytes()
        }
        return (image.width, image.height, encoded.count)
    }
}
