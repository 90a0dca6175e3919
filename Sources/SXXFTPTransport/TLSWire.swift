import CLibSSL
import NIOCore

/// The bytes between OpenSSL and a NIO channel, as an OpenSSL BIO of its own: OpenSSL reads the
/// ciphertext straight out of the `ByteBuffer` the channel read, and writes its records straight into
/// the `ByteBuffer` that goes to the channel. (A pair of memory BIOs copies every byte once more in
/// each direction: into the read BIO, and out of the write BIO.)
///
/// Used from the channel's event loop only, like the handler that owns it; OpenSSL calls back into
/// it only from inside the handler's own SSL_* calls.
final class TLSWire {
    /// Ciphertext from the network that OpenSSL has not read yet.
    private(set) var inbound: ByteBuffer?
    /// Ciphertext OpenSSL wrote, waiting to go to the network.
    private(set) var outbound: ByteBuffer

    private let allocator: ByteBufferAllocator

    init(allocator: ByteBufferAllocator) {
        self.allocator = allocator
        outbound = allocator.buffer(capacity: 0)
    }

    /// A BIO reading from and writing to this wire. The BIO holds the wire until OpenSSL frees it.
    func makeBIO() -> OpaquePointer? {
        guard let method = Self.method, let bio = BIO_new(method) else { return nil }
        BIO_set_data(bio, Unmanaged.passRetained(self).toOpaque())
        BIO_set_init(bio, 1)
        return bio
    }

    /// Bytes the channel read: taken as they are when nothing is waiting (the usual case, as OpenSSL
    /// reads all it can each time), appended to what waits otherwise.
    func received(_ buffer: ByteBuffer) {
        if var waiting = inbound, waiting.readableBytes > 0 {
            waiting.writeImmutableBuffer(buffer)
            inbound = waiting
        } else {
            inbound = buffer
        }
    }

    /// Makes room for about `bytes` more bytes of records before a write.
    func reserve(_ bytes: Int) {
        outbound.reserveCapacity(minimumWritableBytes: bytes)
    }

    /// What OpenSSL wrote since the last call, or nil when nothing.
    func takeOutbound() -> ByteBuffer? {
        guard outbound.readableBytes > 0 else { return nil }
        defer { outbound = allocator.buffer(capacity: 0) }
        return outbound
    }

    var hasOutbound: Bool { outbound.readableBytes > 0 }

    // MARK: - The BIO method

    private static func wire(of bio: OpaquePointer?) -> TLSWire? {
        guard let bio, let data = BIO_get_data(bio) else { return nil }
        return Unmanaged<TLSWire>.fromOpaque(data).takeUnretainedValue()
    }

    /// Made once: the method is shared by every connection (OpenSSL only reads it).
    nonisolated(unsafe) private static let method: OpaquePointer? = {
        guard let method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "sxkit NIO") else { return nil }
        BIO_meth_set_write(method) { bio, data, length in
            guard let wire = TLSWire.wire(of: bio), let data, length >= 0 else { return -1 }
            sxkit_BIO_clear_retry_flags(bio)
            wire.outbound.writeBytes(UnsafeRawBufferPointer(start: data, count: Int(length)))
            return length
        }
        BIO_meth_set_read(method) { bio, data, length in
            guard let wire = TLSWire.wire(of: bio), let data, length >= 0 else { return -1 }
            sxkit_BIO_clear_retry_flags(bio)
            guard var inbound = wire.inbound, inbound.readableBytes > 0 else {
                // Nothing yet: "try again", not end of file.
                sxkit_BIO_set_retry_read(bio)
                return -1
            }
            let count = min(Int(length), inbound.readableBytes)
            inbound.withUnsafeReadableBytes { bytes in
                UnsafeMutableRawBufferPointer(start: data, count: count).copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[0..<count]))
            }
            inbound.moveReaderIndex(forwardBy: count)
            wire.inbound = inbound.readableBytes > 0 ? inbound : nil
            return Int32(count)
        }
        BIO_meth_set_ctrl(method) { bio, command, _, _ in
            switch command {
            case BIO_CTRL_FLUSH: return 1
            case BIO_CTRL_PENDING: return TLSWire.wire(of: bio).map { Int($0.inbound?.readableBytes ?? 0) } ?? 0
            case BIO_CTRL_WPENDING: return 0  // written straight into `outbound`, never held here
            default: return 0
            }
        }
        BIO_meth_set_destroy(method) { bio in
            guard let bio, let data = BIO_get_data(bio) else { return 1 }
            Unmanaged<TLSWire>.fromOpaque(data).release()
            BIO_set_data(bio, nil)
            return 1
        }
        return method
    }()
}
