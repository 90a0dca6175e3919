import NIOHTTP2

/// HTTP/2 settings for bulk chunks: 1 MiB stream windows and a 4 MiB connection window (on
/// loopback or a LAN a window update comes back long before a window is used up, and every byte of
/// window is memory the peer may fill), frames of up to 64 KiB, and outbound buffering of 256 KiB
/// a stream, enough that writing a chunk does not stall on every frame.
public enum HTTP2Tuning {
    public static var configuration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        configuration.connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 256),
            HTTP2Setting(parameter: .initialWindowSize, value: 1 << 20),
            HTTP2Setting(parameter: .maxFrameSize, value: 1 << 16),
        ]
        configuration.connection.targetWindowSize = 4 << 20
        configuration.stream.targetWindowSize = 1 << 20
        configuration.stream.outboundBufferSizeHighWatermark = 256 << 10
        configuration.stream.outboundBufferSizeLowWatermark = 64 << 10
        return configuration
    }
}
