/// Removes metadata from a JPEG or PNG file without decoding or re-encoding a pixel (issue 15, item 11:
/// an input already within the budget is kept, stripped this way, unless a re-encode is smaller).
///
/// JPEG: EXIF and XMP (APP1), IPTC/Photoshop (APP13), the other application segments, comments, and
/// whatever follows the end of the image (multi-picture previews, vendor trailers) go. Kept: JFIF
/// (APP0), the ICC colour profile (APP2 `ICC_PROFILE`, dropping it would change the colours) and
/// Adobe's segment (APP14, which says how to decode the colours). An EXIF orientation other than 1 is
/// kept in a minimal EXIF segment holding that tag alone, so the picture is shown the same way up.
/// PNG: text chunks (tEXt, zTXt, iTXt), tIME and eXIf (unless it says a rotation) go; pixels, palette,
/// transparency and colour chunks stay.
///
/// Returns nil when the file is not a well-formed JPEG or PNG as far as the walk goes: it is then
/// kept as it is.
enum LosslessStrip {
    static func strip(_ bytes: [UInt8]) -> [UInt8]? {
        if bytes.starts(with: [0xFF, 0xD8]) { return jpeg(bytes) }
        if bytes.starts(with: pngSignature) { return png(bytes) }
        return nil
    }

    // MARK: JPEG

    static func jpeg(_ b: [UInt8]) -> [UInt8]? {
        var out: [UInt8] = [0xFF, 0xD8]
        var i = 2
        var orientationWritten = false
        var inScan = false
        while i < b.count {
            if inScan {
                // Entropy-coded data: stuffed FF00, restart markers and fill bytes are data; any other marker ends the scan.
                let start = i
                while i < b.count {
                    if b[i] == 0xFF, i + 1 < b.count, b[i + 1] != 0x00, !(0xD0...0xD7).contains(b[i + 1]), b[i + 1] != 0xFF { break }
                    i += 1
                }
                out += b[start..<i]
                inScan = false
                continue
            }
            guard b[i] == 0xFF else { return nil }
            while i < b.count, b[i] == 0xFF { i += 1 }
            guard i < b.count else { return nil }
            let marker = b[i]
            i += 1
            if marker == 0xD9 {  // end of image: anything after it is dropped
                out += [0xFF, 0xD9]
                return out
            }
            if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                out += [0xFF, marker]
                continue
            }
            guard i + 2 <= b.count else { return nil }
            let length = Int(b[i]) << 8 | Int(b[i + 1])
            guard length >= 2, i + length <= b.count else { return nil }
            let payload = b[(i + 2)..<(i + length)]
            let segment = [0xFF, marker] + b[i..<(i + length)]
            i += length
            switch marker {
            case 0xE0, 0xEE: out += segment  // JFIF, Adobe
            case 0xE2 where payload.starts(with: Array("ICC_PROFILE\0".utf8)): out += segment
            case 0xE1:
                if !orientationWritten, payload.starts(with: Array("Exif\0\0".utf8)),
                   let orientation = tiffOrientation(Array(payload.dropFirst(6))), orientation != 1 {
                    out += minimalEXIF(orientation: orientation)
                    orientationWritten = true
                }
            case 0xE2...0xEF, 0xFE: break  // other application segments, comments
            case 0xDA:
                out += segment
                inScan = true
            default: out += segment  // tables, frame header, restart interval…
            }
        }
        return nil  // no end-of-image marker
    }

    /// The orientation tag (0x0112) of a TIFF structure's first IFD (EXIF's layout), if any.
    static func tiffOrientation(_ t: [UInt8]) -> Int? {
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at + 2 <= t.count else { return nil }
            return little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard let ifd = u32(4), let count = u16(ifd) else { return nil }
        for n in 0..<count {
            let entry = ifd + 2 + 12 * n
            guard let tag = u16(entry) else { return nil }
            if tag == 0x0112, u16(entry + 2) == 3 { return u16(entry + 8) }
        }
        return nil
    }

    /// An APP1 segment with an EXIF block that holds the orientation tag alone (big-endian TIFF).
    static func minimalEXIF(orientation: Int) -> [UInt8] {
        let payload: [UInt8] = Array("Exif\0\0".utf8) + [0x4D, 0x4D, 0x00, 0x2A, 0x00, 0x00, 0x00, 0x08]
            + [0x00, 0x01]  // one entry
            + [0x01, 0x12, 0x00, 0x03, 0x00, 0x00, 0x00, 0x01, UInt8(orientation >> 8 & 0xFF), UInt8(orientation & 0xFF), 0x00, 0x00]
            + [0x00, 0x00, 0x00, 0x00]  // no next IFD
        let length = payload.count + 2
        return [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xFF)] + payload
    }

    // MARK: PNG

    static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static let droppedChunks: Set<String> = ["tEXt", "zTXt", "iTXt", "tIME"]

    static func png(_ b: [UInt8]) -> [UInt8]? {
        var out = pngSignature
        var i = pngSignature.count
        while i + 12 <= b.count {
            let length = Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3])
            guard length >= 0, i + 12 + length <= b.count else { return nil }
            let type = String(decoding: b[(i + 4)..<(i + 8)], as: UTF8.self)
            let chunk = b[i..<(i + 12 + length)]
            i += 12 + length
            if droppedChunks.contains(type) { continue }
            if type == "eXIf", (tiffOrientation(Array(chunk.dropFirst(8).prefix(length))) ?? 1) == 1 { continue }
            out += chunk
            if type == "IEND" { return out }  // anything after the end is dropped
        }
        return nil
    }
}
