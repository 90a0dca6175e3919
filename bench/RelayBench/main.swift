// The HTTP relay benchmark's client (bench/relay-http): not part of the sxkit product.
//
//   RelayBench create   URL FILE CHUNK STATE        reserve chunks for FILE cut in CHUNK-byte pieces
//   RelayBench upload   URL FILE STATE JOBS         upload them (JOBS at a time) with HTTPChunkRelay
//   RelayBench download URL STATE OUTDIR JOBS       download each to OUTDIR/NNNN
//
// Prints one line: "<operation> <bytes> <seconds>". Digests are computed in `create`, outside the
// timed upload, as a sender has them from encryption.
import Foundation
import SXCore
import SXCrypto
import SXRelayHTTP
import SXTransfer

struct Piece: Codable {
    var offset: Int64
    var length: Int64
    var senderId: String
    var senderKey: String
    var recipientId: String
    var recipientKey: String
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("RelayBench: \(message)\n".utf8))
    exit(2)
}

/// The state keeps each private key as the relay's bearer (base64url of the 32-byte Ed25519 seed), so
/// that curl can use the same state.
func replica(_ id: String, _ key: String) -> ChunkReplica {
    ChunkReplica(id: Base64URL.decode(id)!, key: .ed25519(seed: Base64URL.decode(key)!))
}

func readState(_ path: String) throws -> [Piece] {
    try JSONDecoder().decode([Piece].self, from: Data(contentsOf: URL(fileURLWithPath: path)))
}

/// Runs `body` for every index, at most `jobs` at a time.
func forEach(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        var next = 0
        while next < min(jobs, count) { let i = next; group.addTask { try await body(i) }; next += 1 }
        while try await group.next() != nil, next < count { let i = next; group.addTask { try await body(i) }; next += 1 }
        try await group.waitForAll()
    }
}

let args = CommandLine.arguments
guard args.count >= 5 else { fail("usage: see the comment at the top of main.swift") }
let url = args[2]
let started = Date()
var bytes: Int64 = 0

try await HTTPChunkRelay.with(url: url) { relay in
    switch args[1] {
    case "create":
        let file = args[3], chunk = Int64(args[4])!, state = args[5]
        let size = Int64(try POSIXFile.status(file).st_size)
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: file))
        var pieces: [Piece] = []
        var offset: Int64 = 0
        while offset < size {
            let length = min(chunk, size - offset)
            let data = try handle.read(upToCount: Int(length)) ?? Data()
            let senderKey = ReplicaKey.generate(), recipientKey = ReplicaKey.generate()
            let request = ChunkCreateRequest(size: length, digest: SHA256Digest.of([UInt8](data)), senderKey: senderKey.ed25519PublicKey!,
                                             recipientKeys: [recipientKey.ed25519PublicKey!])
            let created = try await relay.create(request)
            pieces.append(Piece(offset: offset, length: length, senderId: Base64URL.encode(created.senderId), senderKey: Base64URL.encode(senderKey.raw),
                                recipientId: Base64URL.encode(created.recipientIds[0]), recipientKey: Base64URL.encode(recipientKey.raw)))
            offset += length
        }
        try JSONEncoder().encode(pieces).write(to: URL(fileURLWithPath: state))
        bytes = size
    case "upload":
        let file = args[3], pieces = try readState(args[4]), jobs = Int(args[5])!
        try await forEach(pieces.count, jobs: jobs) { i in
            let p = pieces[i]
            try await relay.upload(replica(p.senderId, p.senderKey), from: file, offset: p.offset, length: p.length)
        }
        bytes = pieces.reduce(0) { $0 + $1.length }
    case "download":
        let pieces = try readState(args[3]), folder = args[4], jobs = Int(args[5])!
        try await forEach(pieces.count, jobs: jobs) { i in
            let p = pieces[i]
            try await relay.download(replica(p.recipientId, p.recipientKey),
                                     to: folder + "/" + String(format: "%05d", i))
        }
        bytes = pieces.reduce(0) { $0 + $1.length }
    default:
        fail("unknown operation \(args[1])")
    }
}
print(args[1], bytes, String(format: "%.3f", Date().timeIntervalSince(started)))
