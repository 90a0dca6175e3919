import Foundation
import Hummingbird
import NIOPosix
import SXCore
import SXCrypto
import SXTransfer
#if canImport(Glibc)
import Glibc
#endif

/// The relay's four endpoints (see HTTPRelayWire). There is deliberately no route that lists chunks:
/// `GET /chunks` falls through to the router's 404.
struct RelayRoutes: Sendable {
    let store: ChunkStore
    /// Bytes read from disk per response buffer, and the most a create body may hold.
    static let readBufferSize = 1 << 20
    /// Bytes of an upload collected before each write to disk.
    static let uploadBlock = 1 << 20
    static let maxCreateBody = 64 * 1024

    func register(on router: Router<BasicRequestContext>) {
        router.post(.init(stringLiteral: HTTPRelayWire.chunksPath)) { request, _ in await create(request) }
        router.put(.init(stringLiteral: HTTPRelayWire.chunksPath + "/:id")) { request, context in
            await respond { try await upload(request, id: try chunkId(context)) }
        }
        router.get(.init(stringLiteral: HTTPRelayWire.chunksPath + "/:id")) { request, context in
            await respond { try download(request, id: try chunkId(context)) }
        }
        router.delete(.init(stringLiteral: HTTPRelayWire.chunksPath + "/:id")) { request, context in
            await respond { try delete(request, id: try chunkId(context)) }
        }
    }

    // MARK: Endpoints

    private func create(_ request: Request) async -> Response {
        await respond {
            let body: ByteBuffer
            do { body = try await request.body.collect(upTo: Self.maxCreateBody) } catch {
                throw StoreFailure.badRequest("the create request is larger than \(Self.maxCreateBody) bytes")
            }
            let parsed: HTTPRelayWire.CreateRequest
            do { parsed = try JSONDecoder().decode(HTTPRelayWire.CreateRequest.self, from: Data(body.readableBytesView)) } catch {
                throw StoreFailure.badRequest("the create request is not valid JSON of the expected shape")
            }
            let created = try store.create(parsed)
            return Self.json(created, status: .created)
        }
    }

    /// Streams the body to a temp file in the store, hashing as it goes; the chunk becomes visible
    /// only after the size and digest match and the bytes are on disk.
    private func upload(_ request: Request, id: String) async throws -> Response {
        let (record, complete) = try store.authorizeSender(id: id, key: try bearerKey(request))
        if complete {
            // A resumed send re-uploading a finished chunk: nothing to do, but read what it sends
            // so the connection stays usable.
            for try await _ in request.body {}
            return Response(status: .ok)
        }
        guard let lengthText = request.headers[.contentLength] else { throw StoreFailure.lengthRequired }
        guard let declared = Int64(lengthText), declared == record.size else {
            throw StoreFailure.sizeMismatch(declared: record.size)
        }
        let (fd, tempPath) = try store.newUploadFile(for: id)
        var published = false
        defer {
            close(fd)
            if !published { unlink(tempPath) }
        }
        // The chunk goes to disk around the page cache (see POSIXFile.writeAllDirect), a block at a
        // time: a relay takes in far more than it could keep in memory, and writes it only once.
        POSIXFile.setDirect(fd, true)
        let block = AlignedBuffer(capacity: Self.uploadBlock)
        let writeBlock = { (bytes: UnsafeRawBufferPointer) throws in
            do { try POSIXFile.writeAllDirect(fd, bytes, path: tempPath) } catch let error as FileSystemError {
                throw error.isNoSpace ? StoreFailure.full : StoreFailure.io(error.description)
            }
        }
        // Every received byte goes through it (SXCrypto's: the CPU's SHA extensions).
        var digest = SHA256Digest()
        var received: Int64 = 0
        for try await buffer in request.body {
            received += Int64(buffer.readableBytes)
            guard received <= record.size else { throw StoreFailure.sizeMismatch(declared: record.size) }
            try buffer.withUnsafeReadableBytes { bytes in
                digest.update(bytes)
                try block.append(bytes, flushingWhenFull: writeBlock)
            }
        }
        guard received == record.size else { throw StoreFailure.sizeMismatch(declared: record.size) }
        guard Base64URL.encode(digest.finish()) == record.digest else { throw StoreFailure.digestMismatch }
        try writeBlock(block.bytes)
        // Flushing and publishing block for disk round trips (the data, then the folder): on NIO's
        // blocking-I/O pool, not on one of the few threads that run every request.
        let store = self.store
        try await NIOThreadPool.singleton.runIfActive {
            guard fdatasync(fd) == 0 else { throw StoreFailure.io("cannot flush the chunk to disk") }
            // On disk now: any page-cache copy (a tail, or a file system without O_DIRECT) is let go,
            // so the next uploads reuse those pages (a recipient downloads hours later, from the disk anyway).
            POSIXFile.adviseNotNeeded(fd)
            try store.commitUpload(id: id, tempPath: tempPath)
        }
        published = true
        return Response(status: .ok)
    }

    private func download(_ request: Request, id: String) throws -> Response {
        let (fd, size) = try store.openForDownload(id: id, key: try bearerKey(request))
        let body = ResponseBody(contentLength: Int(size)) { writer in
            defer { close(fd) }
            // Read around the page cache: the chunk was written that way and is sent once; the
            // aligned block is copied into each response buffer.
            POSIXFile.setDirect(fd, true)
            let block = AlignedBuffer(capacity: Self.readBufferSize)
            var sent: Int64 = 0
            while sent < size {
                block.removeAll()
                let want = Int(min(Int64(Self.readBufferSize), size - sent))
                let got = try block.withUnusedCapacity { space in
                    try POSIXFile.readDirect(fd, into: UnsafeMutableRawBufferPointer(rebasing: space[0..<want]), path: "chunk \(id)")
                }
                // The file never shrinks (commits are renames), so a short read means it is damaged:
                // end the response early and let the client see a truncated body.
                guard got == want else { throw StoreFailure.io("chunk \(id) is shorter than recorded") }
                sent += Int64(got)
                var buffer = ByteBufferAllocator().buffer(capacity: got)
                buffer.writeBytes(block.bytes)
                try await writer.write(buffer)
            }
            try await writer.finish(nil)
        }
        var headers = HTTPFields()
        headers[.contentType] = "application/octet-stream"
        return Response(status: .ok, headers: headers, body: body)
    }

    private func delete(_ request: Request, id: String) throws -> Response {
        _ = try store.authorizeSender(id: id, key: try bearerKey(request))
        guard store.remove(id) else { throw StoreFailure.notFound }
        return Response(status: .noContent)
    }

    // MARK: Helpers

    private func chunkId(_ context: BasicRequestContext) throws -> String {
        // An id that cannot exist is "not found", never a path: ids name files in the store.
        guard let id = context.parameters.get("id"), HTTPRelayWire.isWellFormedId(id) else { throw StoreFailure.notFound }
        return id
    }

    /// The public key of the private key presented (the store keeps the hashes of public keys).
    private func bearerKey(_ request: Request) throws -> [UInt8] {
        guard let value = request.headers[.authorization], value.hasPrefix("Bearer "),
              var seed = Base64URL.decode(String(value.dropFirst(7))), seed.count == Ed25519.seedLength else {
            throw StoreFailure.wrongKey
        }
        defer { Wipe.array(&seed) }
        return Ed25519.publicKey(seed: seed)
    }

    private func respond(_ body: () async throws -> Response) async -> Response {
        do { return try await body() } catch let failure as StoreFailure {
            return Self.response(for: failure)
        } catch {
            // The client went away mid-body, or the body stream failed: nothing was published.
            return Self.json(HTTPRelayWire.ErrorBody(error: "the request body could not be read"), status: .badRequest)
        }
    }

    static func response(for failure: StoreFailure) -> Response {
        let (status, body): (HTTPResponse.Status, HTTPRelayWire.ErrorBody) = switch failure {
        case .badRequest(let reason): (.badRequest, .init(error: reason))
        case .notFound: (.notFound, .init(error: "no such chunk (never created, deleted, or expired)"))
        case .wrongKey: (.forbidden, .init(error: "the key does not grant access to this chunk"))
        case .tooLarge(let limit): (.contentTooLarge, .init(error: "chunks are limited to \(limit) bytes", limit: limit))
        case .sizeMismatch(let declared):
            (.contentTooLarge, .init(error: "the body must be exactly the \(declared) bytes declared at create", limit: declared))
        case .lengthRequired: (.lengthRequired, .init(error: "an upload needs a Content-Length"))
        case .digestMismatch: (.unprocessableContent, .init(error: "the bytes do not match the digest declared at create"))
        case .full: (.init(code: 507, reasonPhrase: "Insufficient Storage"), .init(error: "the relay is out of space"))
        case .io(let reason): (.internalServerError, .init(error: reason))
        }
        return json(body, status: status)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let data = (try? JSONEncoder().encode(value)) ?? Data("{}".utf8)
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
