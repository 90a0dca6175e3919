import CZlib

/// Raw DEFLATE (RFC 1951: no zlib or gzip wrapper) through the system zlib, with zlib's defaults
/// (level 6, 15-bit window, memory level 8, default strategy): exactly what simplexmq's
/// `encodeWebURI` does with Haskell's `Codec.Compression.Zlib.Raw.compress`
/// (`src/Simplex/FileTransfer/Client/Main.hs` 587-606), and what xftp-web's `pako.deflateRaw` does.
enum RawDeflate {
    static func compress(_ input: [UInt8]) throws(LinkProblem) -> [UInt8] {
        var stream = z_stream()
        guard deflateInit2_(&stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY,
                            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw .compression("deflateInit2 failed") }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(input.count))))
        let status = input.withUnsafeBytes { source in
            output.withUnsafeMutableBytes { target in
                stream.next_in = UnsafeMutablePointer(mutating: source.baseAddress?.assumingMemoryBound(to: Bytef.self))
                stream.avail_in = uInt(source.count)
                stream.next_out = target.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.avail_out = uInt(target.count)
                return deflate(&stream, Z_FINISH)
            }
        }
        guard status == Z_STREAM_END else { throw .compression("deflate returned \(status)") }
        return Array(output[0..<Int(stream.total_out)])
    }

    /// Inflates at most `limit` bytes; more is refused (a link is small, a bomb is not).
    static func decompress(_ input: [UInt8], limit: Int) throws(LinkProblem) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, -MAX_WBITS, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .compression("inflateInit2 failed")
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var block = [UInt8](repeating: 0, count: 64 * 1024)
        var copy = input
        // (withUnsafeMutableBytes rethrows untyped errors: they are mapped back below.)
        do {
            return try copy.withUnsafeMutableBytes { source -> [UInt8] in
            stream.next_in = source.baseAddress?.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(source.count)
            while true {
                var status: Int32 = Z_OK
                let produced = block.withUnsafeMutableBytes { target in
                    stream.next_out = target.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(target.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return target.count - Int(stream.avail_out)
                }
                guard status == Z_OK || status == Z_STREAM_END else { throw LinkProblem.notCompressed }
                output += block[0..<produced]
                guard output.count <= limit else { throw LinkProblem.tooLong(limit: limit) }
                if status == Z_STREAM_END { return output }
                if produced == 0 && stream.avail_in == 0 { throw LinkProblem.notCompressed }  // cut short
            }
        }
        } catch let problem as LinkProblem {
            throw problem
        } catch {
            throw .notCompressed
        }
    }
}
