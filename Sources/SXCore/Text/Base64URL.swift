import Foundation

/// RFC 4648 base64url (`-`, `_`) WITH `=` padding, as SimpleX writes keys, nonces and digests.
public enum Base64URL {
    public static func encode<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        // Translate the alphabet on bytes: NSString replacement is slow enough to dominate a
        // manifest of thousands of keys.
        let standard = Data(bytes).base64EncodedData()
        return String(decoding: standard.map { $0 == 0x2B ? 0x2D : $0 == 0x2F ? 0x5F : $0 }, as: UTF8.self)
    }

    /// Strict decode: the url-safe alphabet only, padded to a multiple of 4. Nil for anything else.
    public static func decode(_ text: String) -> [UInt8]? {
        // Padding only at the end: Foundation alone would accept "YQ=A".
        let padding = text.utf8.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        guard text.utf8.count % 4 == 0, padding <= 2,
              text.utf8.dropLast(padding).allSatisfy(isAlphabet) else { return nil }
        let standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }

    /// As SimpleX parses binary fields of descriptions and addresses (simplexmq
    /// `src/Simplex/Messaging/Encoding/String.hs` `base64urlP`, base64-bytestring's URL decoder):
    /// padding optional (but right when present), and canonical: the unused bits of the last
    /// character must be zero. Nil for anything else, including the empty string.
    public static func decodeLenient(_ text: String) -> [UInt8]? {
        let padding = text.utf8.reversed().prefix(while: { $0 == UInt8(ascii: "=") }).count
        let body = text.utf8.dropLast(padding)
        guard !body.isEmpty, body.count % 4 != 1, body.allSatisfy(isAlphabet) else { return nil }
        let padded = String(decoding: body, as: UTF8.self) + String(repeating: "=", count: (4 - body.count % 4) % 4)
        guard padding == 0 || padded.utf8.count == text.utf8.count, let bytes = decode(padded) else { return nil }
        // Canonical: encoding the bytes again gives the same characters.
        guard encode(bytes).utf8.dropLast((4 - body.count % 4) % 4).elementsEqual(body) else { return nil }
        return bytes
    }

    private static func isAlphabet(_ c: UInt8) -> Bool {
        (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x2D || c == 0x5F
    }
}
