/// One XFTP transmission in its block, as simplexmq writes and reads it with `batch = True` and
/// `implySessId = False` (both fixed for XFTP: `src/Simplex/FileTransfer/Server.hs` 160,
/// `Client.hs` 147):
///
///     block   = pad( 0x01 ‖ Large(authenticator ‖ signed) )        tEncodeBatch1, Protocol.hs 2179-2181
///     authenticator = ByteString (64-byte Ed25519 signature, or empty)   tEncodeAuth, 507-516
///     signed  = ByteString sessionId ‖ ByteString corrId ‖ ByteString entityId ‖ command
///                                                                  encodeTransmissionForAuth, 2186-2205
///
/// The signature covers `signed` exactly as sent (transmissionP, Protocol.hs 1629-1643). Responses
/// carry an empty authenticator. SimpleX's own client sends an empty corrId (`Client.hs` 224).
public struct XFTPTransmission: Sendable, Equatable {
    public var authenticator: [UInt8]
    public var sessionId: [UInt8]
    public var corrId: [UInt8]
    public var entityId: [UInt8]
    /// The command or response bytes (`XFTPCommand.encoded`, `XFTPResponse.encoded`).
    public var command: [UInt8]

    public init(authenticator: [UInt8] = [], sessionId: [UInt8], corrId: [UInt8], entityId: [UInt8], command: [UInt8]) {
        self.authenticator = authenticator
        self.sessionId = sessionId
        self.corrId = corrId
        self.entityId = entityId
        self.command = command
    }

    /// The bytes the authenticator signs: everything after it.
    public func signedPart() throws(XFTPWireError) -> [UInt8] {
        var writer = XFTPWriter(capacity: 64 + command.count)
        try writer.short(sessionId, field: "session id")
        try writer.short(corrId, field: "correlation id")
        try writer.short(entityId, field: "entity id")
        writer.raw(command)
        return writer.bytes
    }

    /// This transmission signed by `sign` (the chunk key's signature of `signedPart`), in its block.
    public static func signedBlock(sessionId: [UInt8], corrId: [UInt8] = [], entityId: [UInt8], command: [UInt8],
                                   sign: ([UInt8]) -> [UInt8]) throws(XFTPWireError) -> [UInt8] {
        var transmission = XFTPTransmission(sessionId: sessionId, corrId: corrId, entityId: entityId, command: command)
        transmission.authenticator = sign(try transmission.signedPart())
        return try transmission.block()
    }

    /// The padded 16,384-byte block.
    public func block() throws(XFTPWireError) -> [UInt8] {
        var inner = XFTPWriter(capacity: 128 + command.count)
        try inner.short(authenticator, field: "authenticator")
        inner.raw(try signedPart())
        var batch = XFTPWriter(capacity: inner.bytes.count + 3)
        batch.byte(1)
        try batch.large(inner.bytes, field: "transmission")
        return try XFTPBlock.pad(batch.bytes)
    }

    /// Parses a block holding one transmission (XFTP refuses batches of more: `Protocol.hs` 383-387).
    public static func parse(block: [UInt8]) throws(XFTPWireError) -> XFTPTransmission {
        var batch = XFTPReader(try XFTPBlock.unpad(block))
        let count = try batch.byte(field: "batch count")
        guard count == 1 else { throw .invalid(field: "batch count", reason: "XFTP carries one transmission per block, not \(count)") }
        var reader = XFTPReader(try batch.large(field: "transmission"))
        try batch.expectEnd(field: "transmission")
        let authenticator = try reader.short(field: "authenticator")
        let sessionId = try reader.short(field: "session id")
        let corrId = try reader.short(field: "correlation id")
        let entityId = try reader.short(field: "entity id")
        return XFTPTransmission(authenticator: authenticator, sessionId: sessionId, corrId: corrId, entityId: entityId, command: reader.rest())
    }
}
