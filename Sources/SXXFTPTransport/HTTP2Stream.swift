import NIOCore
import NIOHPACK
import NIOHTTP2

/// One HTTP/2 stream as async reads and writes of frame payloads.
public typealias HTTP2StreamChannel = NIOAsyncChannel<HTTP2Frame.FramePayload, HTTP2Frame.FramePayload>

/// Why an HTTP/2 exchange did not go as XFTP expects.
public enum HTTP2ExchangeFailure: Error, Sendable, Equatable, CustomStringConvertible {
    case noHeaders
    case status(String)
    case reset(String)
    case closedEarly

    public var description: String {
        switch self {
        case .noHeaders: "the peer sent data before its headers"
        case .status(let status): "the server answered HTTP status \(status)"
        case .reset(let code): "the peer reset the stream (\(code))"
        case .closedEarly: "the stream ended before the message did"
        }
    }
}

/// Reads one message (request or response) from a stream: its headers, then its body in the pieces
/// they arrive in. XFTP reads a body's first 16,384 bytes as its block (`bodyHead`,
/// simplexmq `Transport/HTTP2.hs` `getHTTP2Body`) and streams the rest (a chunk's bytes).
public struct HTTP2MessageReader {
    private var frames: NIOAsyncChannelInboundStream<HTTP2Frame.FramePayload>.AsyncIterator
    private var carried: ByteBuffer?
    public private(set) var ended = false

    public init(_ inbound: NIOAsyncChannelInboundStream<HTTP2Frame.FramePayload>) {
        frames = inbound.makeAsyncIterator()
    }

    /// The message's headers (informational 1xx headers are skipped).
    public mutating func headers() async throws -> HPACKHeaders {
        while let frame = try await frames.next() {
            switch frame {
            case .headers(let headers):
                if let status = headers.headers.first(name: ":status"), status.hasPrefix("1") { continue }
                ended = headers.endStream
                return headers.headers
            case .rstStream(let code): throw HTTP2ExchangeFailure.reset(String(describing: code))
            case .data: throw HTTP2ExchangeFailure.noHeaders
            default: continue
            }
        }
        throw HTTP2ExchangeFailure.closedEarly
    }

    /// The next piece of the body, or nil at its end.
    public mutating func nextData() async throws -> ByteBuffer? {
        if let carried {
            self.carried = nil
            return carried
        }
        while !ended, let frame = try await frames.next() {
            switch frame {
            case .data(let data):
                ended = data.endStream
                guard case .byteBuffer(let buffer) = data.data else { continue }
                if buffer.readableBytes > 0 { return buffer }
            case .headers(let trailers):
                ended = trailers.endStream
            case .rstStream(let code):
                throw HTTP2ExchangeFailure.reset(String(describing: code))
            default:
                continue
            }
        }
        if !ended { throw HTTP2ExchangeFailure.closedEarly }
        return nil
    }

    /// Up to `count` bytes: fewer only when the body ends first.
    public mutating func read(upTo count: Int) async throws -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        while bytes.count < count, var piece = try await nextData() {
            let take = min(count - bytes.count, piece.readableBytes)
            bytes += piece.readBytes(length: take)!
            if piece.readableBytes > 0 { carried = piece }
        }
        return bytes
    }

    /// Reads and drops the rest of the body, but never more than `limit` bytes and the piece that
    /// crosses it: a body longer than declared (or endless) is not read on. Returns how many bytes
    /// were read (more than `limit` when the body was longer).
    public mutating func drain(limit: Int) async throws -> Int {
        var total = 0
        while total <= limit, let piece = try await nextData() { total += piece.readableBytes }
        return total
    }
}

/// The headers XFTP's requests and responses carry: every request is `POST /` (simplexmq
/// `Client.hs` 170, 190, 232).
public enum HTTP2Headers {
    public static func request(authority: String) -> HPACKHeaders {
        [":method": "POST", ":scheme": "https", ":path": "/", ":authority": authority]
    }

    public static func response(status: Int = 200) -> HPACKHeaders { [":status": String(status)] }
}
