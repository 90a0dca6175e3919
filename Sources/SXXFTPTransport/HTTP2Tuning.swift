import NIOHTTP2

/// HTTP/2 settings for bulk chunks: 4 MiB stream windows, so that a 4 MiB chunk flows without
/// waiting for window updates, and a connection window to match several in flight; frames of up to 64 KiB; outbound
/// buffering deep enough that writing a chunk does not stall on every frame.
public enum HTTP2Tuning {
    public static var configuration: NIOHTTP2Handler.Configuration {
        var configuration = NIOHTTP2Handler.Configuration()
        configuration.connection.initialSettings = [
            HTTP2Setting(parameter: .maxConcurrentStreams, value: 256),
            HTTP2Setting(parameter: .initialWindowSize, value: 4 << 20),
            HTTP2Setting(parameter: .maxFrameSize, value: 1 << 16),
        ]
        configuration.connection.targetWindowSize = 16 << 20
        configuration.stream.targetWindowSize = 4 << 20
        configuration.stream.outboundBufferSizeHighWatermark = 1 << 20
        configuration.stream.outboundBufferSizeLowWatermark = 256 << 10
        return configuration
    }
}
