import SXSample
import CVips
import Foundation
import Testing
import SXTestSupport
@testable import SXImages

@Suite("Progressive JPEG (the final encode through libjpeg)", .ownThreads)
struct ProgressiveJPEGTests {
    /// The markers of a JPEG file up to its first scan, then every SOS that follows (scans are found by
    /// their markers: entropy-coded data escapes 0xFF as 0xFF00).
    static func markers(_ bytes: [UInt8]) -> [UInt8] {
        var found: [UInt8] = []
        var i = 2
        while i + 1 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            if marker == 0x00 || marker == 0xFF || (0xD0...0xD7).contains(marker) { i += 1; continue }
            found.append(marker)
            if marker == 0xD9 { break }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            i += 2 + length
        }
        return found
    }

    static func decoded(_ bytes: [UInt8]) throws -> SXImages.VipsImage {
        try ImageSource.materialize(try Vips.call("jpegload_buffer", ["buffer": .bytes(bytes)]).image("out"), operation: "decode")
    }

    @Test("colour: progressive (SOF2), five scans, chroma 4:2:0 below quality 90 and full from 90; libvips reads it back close to the original",
          arguments: [80, 95])
    func colour(quality: Int) throws {
        let picture = try SyntheticImage.picture(width: 640, height: 480, seed: 31, alpha: false)
        let bytes = try ProgressiveJPEG.encode(picture, quality: quality)
        let markers = Self.markers(bytes)
        #expect(markers.contains(0xC2) && !markers.contains(0xC0), "\(markers)")
        #expect(markers.filter { $0 == 0xDA }.count == 5)
        let back = try Self.decoded(bytes)
        #expect(back.width == 640 && back.height == 480 && back.bands == 3)
        var subsampling: UnsafePointer<CChar>?
        #expect(vips_image_get_string(back.pointer, "jpeg-chroma-subsample", &subsampling) == 0)
        #expect(String(cString: subsampling!) == (quality < 90 ? "4:2:0" : "4:4:4"))
        let difference = try Vips.image("subtract", ["left": .image(picture), "right": .image(back)])
        let mean = try Vips.call("avg", ["in": .image(try Vips.image("abs", ["in": .image(difference)]))]).double("out")
        #expect(mean < (quality < 90 ? 4 : 2), "mean absolute difference \(mean)")
    }

    @Test("grey: three scans, one band")
    func grey() throws {
        let picture = try Vips.image("colourspace", ["in": .image(try SyntheticImage.picture(width: 300, height: 200, seed: 32, alpha: false)),
                                                     "space": "b-w"])
        let bytes = try ProgressiveJPEG.encode(picture, quality: 85)
        #expect(Self.markers(bytes).filter { $0 == 0xDA }.count == 3)
        #expect(try Self.decoded(bytes).bands == 1)
    }

    @Test("a picture libjpeg refuses (over 65,500 rows) is a thrown error with libjpeg's reason, not an exit")
    func libjpegErrorsAreThrown() throws {
        let tall = try Vips.image("black", ["width": 1, "height": 70_000])
        let eight = try Vips.image("cast", ["in": .image(tall), "format": "uchar"])
        #expect(ProgressiveJPEG.canEncode(eight))
        do {
            _ = try ProgressiveJPEG.encode(eight, quality: 85)
            Issue.record("encoded a JPEG taller than the format allows")
        } catch let error as VipsError {
            #expect(error.message.contains("65500"), "\(error.message)")
        }
    }
}
