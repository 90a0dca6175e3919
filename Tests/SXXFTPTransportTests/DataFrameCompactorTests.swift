import NIOCore
import NIOEmbedded
import NIOHTTP2
import SXTestSupport
import Testing
@testable import SXXFTPTransport

/// What the relay's streams keep of a DATA payload waiting to be read while many are open: its own
/// bytes, not the decoder's whole buffer (50 concurrent uploads pinned 35-57 MB of those).
@Suite(.ownThreads) struct DataFrameCompactorTests {
    static func payload(_ bytes: ByteBuffer) -> HTTP2Frame.FramePayload { .data(.init(data: .byteBuffer(bytes))) }

    static func bytes(of payload: HTTP2Frame.FramePayload?) -> ByteBuffer? {
        guard case .data(let frame)? = payload, case .byteBuffer(let bytes) = frame.data else { return nil }
        return bytes
    }

    static func baseAddress(_ bytes: ByteBuffer) -> UInt? {
        bytes.withUnsafeReadableBytes { $0.baseAddress.map { UInt(bitPattern: $0) } }
    }

    /// With more than `busyStreams` streams open (these, and whatever other suites run meanwhile).
    @Test func whenBusyASliceOfALargerBufferIsCopiedIntoItsOwnAndAWholeOneIsPassedOn() throws {
        let others = (0..<DataFrameCompactor.busyStreams).map { _ in EmbeddedChannel(handler: DataFrameCompactor()) }
        let channel = EmbeddedChannel(handler: DataFrameCompactor())
        defer { for open in others + [channel] { _ = try? open.finish() } }
        #expect(DataFrameCompactor.openStreams.load(ordering: .relaxed) > DataFrameCompactor.busyStreams)
        // A decoder's 64 KiB buffer, of which a 16 KiB payload is a slice.
        var decoded = ByteBufferAllocator().buffer(capacity: 64 << 10)
        decoded.writeBytes((0..<(64 << 10)).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let slice = try #require(decoded.getSlice(at: 1000, length: 16 << 10))
        try channel.writeInbound(Self.payload(slice))
        let copied = try #require(Self.bytes(of: try channel.readInbound(as: HTTP2Frame.FramePayload.self)))
        #expect(copied == slice)
        #expect(copied.storageCapacity < 2 * copied.readableBytes, "\(copied.storageCapacity)")
        #expect(Self.baseAddress(copied) != Self.baseAddress(slice))

        // A payload that is its whole buffer costs nothing to keep: not copied.
        var whole = ByteBufferAllocator().buffer(capacity: 4096)
        whole.writeBytes([UInt8](repeating: 0xA5, count: 4096))
        try channel.writeInbound(Self.payload(whole))
        let passed = try #require(Self.bytes(of: try channel.readInbound(as: HTTP2Frame.FramePayload.self)))
        #expect(passed == whole && Self.baseAddress(passed) == Self.baseAddress(whole))

        // Other frames go on untouched.
        try channel.writeInbound(HTTP2Frame.FramePayload.rstStream(.cancel))
        guard case .rstStream(.cancel)? = try channel.readInbound(as: HTTP2Frame.FramePayload.self) else {
            Issue.record("the RST_STREAM frame did not come through")
            return
        }
    }

    /// Few streams: passed on as they are. Many: any payload smaller than its buffer is copied, never
    /// an empty one.
    @Test(arguments: [
        (65536, 16384, 1, false), (65536, 16384, DataFrameCompactor.busyStreams, false), (65536, 16384, DataFrameCompactor.busyStreams + 1, true),
        (65536, 40000, 50, true), (16384, 16384, 50, false), (65536, 0, 50, false),
    ])
    func whenAPayloadIsCopied(storage: Int, readable: Int, openStreams: Int, copied: Bool) {
        #expect(DataFrameCompactor.shouldCopy(storage: storage, readable: readable, openStreams: openStreams) == copied)
    }
}
