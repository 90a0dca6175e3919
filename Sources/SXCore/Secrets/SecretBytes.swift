#if canImport(Glibc)
import Glibc
#endif

/// Key material or a passphrase, wiped from memory when the last reference goes away.
///
/// The bytes live in one private allocation that is never copied by Swift's value semantics;
/// `explicit_bzero` clears it in `deinit`, which the optimiser may not elide.
public final class SecretBytes: @unchecked Sendable {
    // Immutable after init: concurrent reads are safe, hence the unchecked Sendable.
    private let storage: UnsafeMutableRawBufferPointer
    public let count: Int
    public var isEmpty: Bool { count == 0 }

    /// Takes a copy of `bytes`. The caller should wipe its own copy if it holds one.
    public init<C: Collection>(_ bytes: C) where C.Element == UInt8 {
        storage = .allocate(byteCount: Swift.max(bytes.count, 1), alignment: 16)
        _ = UnsafeMutableRawBufferPointer(rebasing: storage[0..<bytes.count]).initializeMemory(as: UInt8.self, from: bytes)
        count = bytes.count
    }

    /// Fills `count` bytes with `fill`, which writes into the fresh buffer (e.g. a CSPRNG).
    public init(count: Int, fill: (UnsafeMutableRawBufferPointer) -> Void) {
        storage = .allocate(byteCount: Swift.max(count, 1), alignment: 16)
        self.count = count
        fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<count]))
    }

    deinit {
        Wipe.bytes(storage)
        storage.deallocate()
    }

    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(rebasing: storage[0..<count]))
    }

    /// A plain copy, for the rare places that must hand bytes to an API taking `[UInt8]`.
    public func copyBytes() -> [UInt8] { withUnsafeBytes { Array($0) } }

    /// Constant-time comparison (length is not secret).
    public func constantTimeEquals(_ other: SecretBytes) -> Bool {
        guard count == other.count else { return false }
        return withUnsafeBytes { a in
            other.withUnsafeBytes { b in
                var diff: UInt8 = 0
                for i in 0..<a.count { diff |= a[i] ^ b[i] }
                return diff == 0
            }
        }
    }
}

/// Clears memory that held secrets, in a way the optimiser may not remove.
public enum Wipe {
    public static func bytes(_ buffer: UnsafeMutableRawBufferPointer) {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return }
        explicit_bzero(base, buffer.count)
    }

    public static func array(_ array: inout [UInt8]) {
        array.withUnsafeMutableBytes { bytes($0) }
    }
}
