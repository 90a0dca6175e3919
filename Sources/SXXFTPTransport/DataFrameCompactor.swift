import NIOCore
import NIOHTTP2
import Synchronization

/// Gives a DATA payload that reaches a stream a buffer of its own size, once many streams are open
/// at once, instead of leaving it a slice of a larger one.
///
/// NIO's HTTP/2 decoder hands on a DATA payload as a slice of the buffer it decodes into (up to
/// 64 KiB here), and a payload waiting to be read keeps that whole buffer alive. During 50 concurrent
/// 1 MiB uploads the relay held 35-57 MB of those 64 KiB buffers at its peak, whatever the window or
/// frame size (an allocation count by call site: `HTTP2FrameDecoder.append`); with every payload
/// copied as it reaches the stream's pipeline, 10-16 MB. (Payloads that NIO's stream channel keeps
/// before its pipeline, while the async reader is behind, stay slices until they reach it.)
///
/// A copy is not free: copying every payload cost the relay about 10 % more CPU for one bulk upload,
/// where a few streams' waiting payloads are little memory. So payloads are copied only while more
/// than `busyStreams` streams are open in the process.
public final class DataFrameCompactor: ChannelInboundHandler, RemovableChannelHandler {
    public typealias InboundIn = HTTP2Frame.FramePayload
    public typealias InboundOut = HTTP2Frame.FramePayload

    /// Streams open in this process with a compactor: their waiting payloads are what adds up.
    static let openStreams = Atomic<Int>(0)
    static let busyStreams = 8

    public init() {}

    public func handlerAdded(context: ChannelHandlerContext) {
        Self.openStreams.add(1, ordering: .relaxed)
    }

    public func handlerRemoved(context: ChannelHandlerContext) {
        Self.openStreams.subtract(1, ordering: .relaxed)
    }

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let payload = unwrapInboundIn(data)
        guard case .data(var frame) = payload, case .byteBuffer(let bytes) = frame.data,
              Self.shouldCopy(storage: bytes.storageCapacity, readable: bytes.readableBytes,
                              openStreams: Self.openStreams.load(ordering: .relaxed)) else {
            context.fireChannelRead(data)
            return
        }
        var own = context.channel.allocator.buffer(capacity: bytes.readableBytes)
        own.writeImmutableBuffer(bytes)
        frame.data = .byteBuffer(own)
        context.fireChannelRead(wrapInboundOut(.data(frame)))
    }

    static func shouldCopy(storage: Int, readable: Int, openStreams: Int) -> Bool {
        readable > 0 && openStreams > busyStreams && storage > readable
    }
}
