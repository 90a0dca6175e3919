import Foundation
import SXCore
import SXCrypto

/// Many small files for the storage, clean and files-folder benchmarks (100,000 is the size):
/// `bulk_NNNNNN.bin`, 1–8 KiB each. Every 10th is a CryptoFile with its key in the chat DB, every
/// 100th is referenced but missing, and every 100th (offset by 50) is on disk but not referenced.
/// Written without fsync: it is sample data, and 100,000 fsyncs would take minutes.
struct BulkFiles {
    var count: Int
    var seed: Int

    struct Made {
        var rows: [SampleDatabases.FileRow] = []
        var files: [SampleDataDirectory.SampleFile] = []
    }

    static func name(_ i: Int) -> String { String(format: "bulk_%06d.bin", i) }

    func write(into folder: String) throws -> Made {
        var made = Made()
        var rng = SplitMix64(seed: UInt64(seed) &* 0x2545_F491 &+ 11)
        var buffer = [UInt8](repeating: 0, count: 8192)
        for i in 0..<count {
            let name = Self.name(i)
            let size = 1024 + Int(rng.next() % 7168)
            for j in stride(from: 0, to: size, by: 8) {
                let word = rng.next()
                for k in 0..<min(8, size - j) { buffer[j + k] = UInt8(truncatingIfNeeded: word >> (8 * UInt64(k))) }
            }
            let plain = Array(buffer[0..<size])
            let missing = i % 100 == 0
            let orphan = i % 100 == 50
            var args: CryptoFileArgs?
            if !missing {
                var bytes = plain
                if i % 10 == 5 {
                    let key = (0..<CryptoFileArgs.keyLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    let nonce = (0..<CryptoFileArgs.nonceLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
                    let fileArgs = try CryptoFileArgs(key: key, nonce: nonce)
                    bytes = CryptoFile.encrypt(plain, args: fileArgs)
                    args = fileArgs
                }
                try Self.writeUnsynced(bytes, to: Path.join(folder, name))
                made.files.append(.init(name: name, size: Int64(size), sha256: Hex.encode(SHA256Digest.of(plain)),
                                        encrypted: args != nil, referenced: !orphan))
            }
            if !orphan {
                made.rows.append(.init(name: name, path: name, size: Int64(size), args: args))
            }
        }
        return made
    }

    private static func writeUnsynced(_ bytes: [UInt8], to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SampleError("cannot create \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        try bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                guard n > 0 else { throw SampleError("cannot write \(path): \(String(cString: strerror(errno)))") }
                done += n
            }
        }
    }
}
