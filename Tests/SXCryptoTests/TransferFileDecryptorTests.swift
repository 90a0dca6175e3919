#if canImport(Glibc)
import Glibc
#endif
import SXCore
import SXCrypto
import Testing
import SXTestSupport

@Suite(.ownThreads) struct TransferFileDecryptorTests {
    /// The process's virtual size (`/proc/self/statm`, in pages): a leaked buffer stays mapped,
    /// touched or not, whether malloc took it from the heap or mapped it on its own.
    func virtualBytes() throws -> Int {
        let statm = String(decoding: try FileBytes.read("/proc/self/statm", limit: 4096), as: UTF8.self)
        let pages = try #require(statm.split(separator: " ").first.flatMap { Int($0) })
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    @Test func aRefusedSizeLeavesNoMemoryBehind() throws {
        let folder = try PrivateFolder(label: "decryptor-refusal")
        defer { folder.remove() }
        let args = try CryptoFileArgs(key: Array(0..<32), nonce: Array(100..<124))
        let before = try virtualBytes()
        for _ in 0..<1024 {
            let output = try AtomicFileWriter(destination: Path.join(folder.path, "out"), mode: 0o600)
            defer { output.abort() }
            #expect(throws: TransferFileError.self) {
                try TransferFileDecryptor(encryptedSize: TransferFileCrypto.overhead + 1, args: args, output: output, name: "short")
            }
        }
        // Found by fuzzing: each refusal kept the decryptor's 1 MiB buffer, 1 GiB here (the margin is
        // for the other tests running meanwhile).
        #expect(try virtualBytes() - before < 512 << 20)
    }
}
