/// The header H of a transfer-encrypted file (FORMATS §7): one byte name length, the UTF-8 name, then
/// `0`, or `1` + one byte length + the UTF-8 extra text. The name is stored as given (no normalisation).
/// simplexmq's `FileHeader` (`src/Simplex/FileTransfer/Types.hs` 60-71, `Text` since 2026-03) writes
/// both as UTF-8 and reads them with `safeDecodeUtf8` (`Messaging/Util.hs` 358-361): each byte that
/// is not part of valid UTF-8 becomes '?'. So does `parse` here (earlier SimpleX versions wrote a
/// `String` through `Char8`, one byte per character: such names read with '?' for their
/// non-ASCII characters, as SimpleX reads them).
public struct TransferFileHeader: Sendable, Equatable {
    public static let maxFieldBytes = 255
    /// 8-byte payload size + the longest possible header: how much of a stream can be header.
    static let maxPrefixBytes = 8 + 1 + 255 + 1 + 1 + 255

    public let name: String
    public let extra: String?

    public init(name: String, extra: String? = nil) throws {
        guard name.utf8.count <= Self.maxFieldBytes else { throw TransferFileError.headerFieldTooLong(field: "file name", bytes: name.utf8.count) }
        if let extra, extra.utf8.count > Self.maxFieldBytes {
            throw TransferFileError.headerFieldTooLong(field: "extra text", bytes: extra.utf8.count)
        }
        self.name = name
        self.extra = extra
    }

    public var bytes: [UInt8] {
        var out = [UInt8(name.utf8.count)] + Array(name.utf8)
        if let extra {
            out += [0x31, UInt8(extra.utf8.count)] + Array(extra.utf8)
        } else {
            out.append(0x30)
        }
        return out
    }

    /// Outcome of looking at the first bytes of a decrypted stream.
    enum Parse: Equatable {
        case needMore
        case invalid(String)
        /// The header and its length in bytes (after the 8-byte payload size).
        case complete(TransferFileHeader, length: Int)
    }

    /// Parses H from `bytes`, which start right after the 8-byte payload size.
    static func parse(_ bytes: ArraySlice<UInt8>) -> Parse {
        let b = Array(bytes)
        guard let nameLength = b.first.map(Int.init) else { return .needMore }
        guard b.count >= 2 + nameLength else { return .needMore }
        let name = LenientUTF8.decode(b[1..<(1 + nameLength)])
        switch b[1 + nameLength] {
        case 0x30:
            return .complete(TransferFileHeader(checkedName: name, extra: nil), length: 2 + nameLength)
        case 0x31:
            guard b.count >= 3 + nameLength else { return .needMore }
            let extraLength = Int(b[2 + nameLength])
            let end = 3 + nameLength + extraLength
            guard b.count >= end else { return .needMore }
            let extra = LenientUTF8.decode(b[(3 + nameLength)..<end])
            return .complete(TransferFileHeader(checkedName: name, extra: extra), length: end)
        default:
            return .invalid("the header's extra-field marker is neither '0' nor '1'")
        }
    }

    private init(checkedName: String, extra: String?) {
        name = checkedName
        self.extra = extra
    }
}

/// UTF-8 read as Haskell's `decodeUtf8With (\_ _ -> Just '?')` reads it: valid sequences as they are,
/// every other byte as '?'.
enum LenientUTF8 {
    static func decode(_ bytes: ArraySlice<UInt8>) -> String {
        if let valid = String(validating: bytes, as: UTF8.self) { return valid }
        var scalars = String.UnicodeScalarView()
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let lead = bytes[index]
            let length = lead < 0x80 ? 1 : lead >= 0xC2 && lead <= 0xDF ? 2 : lead >= 0xE0 && lead <= 0xEF ? 3 : lead >= 0xF0 && lead <= 0xF4 ? 4 : 0
            if length > 0, index + length <= bytes.endIndex,
               let one = String(validating: bytes[index..<(index + length)], as: UTF8.self) {
                scalars.append(contentsOf: one.unicodeScalars)
                index += length
            } else {
                scalars.append("?")
                index += 1
            }
        }
        return String(scalars)
    }
}
