import Foundation
import Testing
import SXCore
import SXCrypto
import SXRelayHTTP
import SXTestSupport
import SXTransfer
@testable import SXRelayServer
#if canImport(Glibc)
import Glibc
#endif

/// The relay going away: clients get `.unavailable` (retryable) and nothing half-uploaded survives.
struct RelayFaultTests {
    @Test func aStoppedRelayIsUnavailable() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 30)
        let created = try await chunk.create(on: relay.client)
        await relay.stopServer()
        for operation in ["create", "upload", "download", "delete"] {
            do {
                switch operation {
                case "create": _ = try await chunk.create(on: relay.client)
                case "upload": try await relay.client.upload(created.sender, from: chunk.path, offset: 0, length: 1000)
                case "download": try await relay.client.download(created.recipients[0], to: folder.file("out"))
                default: try await relay.client.delete(created.sender)
                }
                Issue.record("\(operation) succeeded against a stopped relay")
            } catch let error as RelayError {
                guard case .unavailable = error else { Issue.record("\(operation): \(error)"); continue }
                #expect(error.isTransient)
            }
        }
    }

    @Test func serverStoppedMidUploadLeavesNothingAndTheClientCanRetry() async throws {
        let folder = try TempFolder()
        let store = folder.file("store")
        // A big chunk (allowed for this test) so the upload is surely still running when the server stops.
        let size = 64 * 1024 * 1024
        let first = try await RunningRelay.start(store: store, maxChunkSize: Int64(size))
        let path = folder.file("big")
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        #expect(ftruncate(fd, off_t(size)) == 0)
        close(fd)
        var digest = SHA256Digest()
        let zeros = [UInt8](repeating: 0, count: 1 << 20)
        for _ in 0..<(size >> 20) { zeros.withUnsafeBytes { digest.update($0) } }
        let created = try await first.client.createWithFreshKeys(size: Int64(size), digest: digest.finish())

        let upload = Task { try await first.client.upload(created.sender, from: path, offset: 0, length: Int64(size)) }
        // Stop the server once bytes are arriving in its temp folder.
        let tempFolder = store + "/tmp"
        #expect(await eventually {
            filesBelow(tempFolder).contains { ((try? POSIXFile.status($0).st_size) ?? 0) > 0 }
        })
        await first.stopServer()
        do {
            try await upload.value
            Issue.record("the upload finished although the server stopped")
        } catch let error as RelayError {
            guard case .unavailable = error else { Issue.record("expected .unavailable, got \(error)"); return }
        }
        await first.client.shutdown()
        #expect(await eventually { filesBelow(tempFolder).isEmpty })

        // On restart the chunk is still reserved, not downloadable, and the upload can be retried.
        let second = try await RunningRelay.start(store: store, maxChunkSize: Int64(size))
        defer { Task { await second.stop() } }
        await #expect(throws: RelayError.chunkNotFound(relay: second.url, id: created.recipients[0].idText)) {
            try await second.client.download(created.recipients[0], to: folder.file("out"))
        }
        #expect(filesBelow(store + "/data").isEmpty)
    }

    @Test func aRelayThatHangsUpMidBodyIsUnavailable() async throws {
        // A listener that accepts, reads a little and closes: the client must not hang or report success.
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { _ = bind(listener, $0, length); _ = getsockname(listener, $0, &length) }
        }
        listen(listener, 4)
        let port = UInt16(bigEndian: address.sin_port)
        let hangUp = Thread {
            let connection = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = read(connection, &buffer, buffer.count)
            close(connection)
        }
        hangUp.start()
        defer { close(listener) }

        let folder = try TempFolder()
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 4 * 1024 * 1024, seed: 31)
        try await HTTPChunkRelay.with(url: "http://127.0.0.1:\(port)", timeouts: RunningRelay.testTimeouts) { client in
            let sender = ChunkReplica(id: [UInt8](repeating: 0, count: 16), key: randomKey())
            do {
                try await client.upload(sender, from: chunk.path, offset: 0, length: chunk.request.size)
                Issue.record("the upload succeeded against a relay that hung up")
            } catch let error as RelayError {
                #expect(error.isTransient, "\(error)")
            }
        }
    }

    @Test func aMissingSourceFileIsALocalError() async throws {
        let folder = try TempFolder()
        let relay = try await RunningRelay.start(store: folder.file("store"))
        defer { Task { await relay.stop() } }
        let chunk = try TestChunk(folder: folder, name: "chunk", size: 1000, seed: 32)
        let created = try await chunk.create(on: relay.client)
        await #expect(throws: FileSystemError.self) {
            try await relay.client.upload(created.sender, from: folder.file("missing"), offset: 0, length: 1000)
        }
        await #expect(throws: FileSystemError.self) {
            try await relay.client.upload(created.sender, from: chunk.path, offset: 1, length: 1000)
        }
    }
}
