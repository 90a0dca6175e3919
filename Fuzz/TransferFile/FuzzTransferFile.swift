import Foundation
import FuzzSupport
import SXCore
import SXCrypto

/// The decrypted side of CryptoFiles and transfer files: a transfer file's payload size, header
/// (name, extra text) and padding as `TransferFileDecryptor` splits them while chunks arrive, and
/// the in-memory CryptoFile decryption.
///
/// A random ciphertext never gets past the tag, so the input is the plaintext stream instead
/// (`payloadSize ‖ H ‖ content ‖ '#'…`, after one byte that picks how the ciphertext is cut into
/// pieces); it is sealed under a fixed key and then decrypted through the real decryptor.
@main
enum FuzzTransferFile: FuzzTarget {
    /// KEY_A and NONCE_A of Tests/Fixtures/vectors.
    static let args: CryptoFileArgs = {
        do { return try CryptoFileArgs(key: Array(0..<32), nonce: Array(100..<124)) } catch { fatalError("\(error)") }
    }()

    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        guard let selector = bytes.first else { return }
        let plaintext = Array(bytes.dropFirst())
        let sealed = CryptoFile.encrypt(plaintext, args: args)
        // The same bytes as a CryptoFile: they must open, and give the plaintext back.
        precondition((try? CryptoFile.decrypt(sealed, args: args)) == plaintext, "a sealed buffer does not open")
        _ = try? CryptoFile.decrypt(plaintext, args: args)

        let piece = 1 + Int(selector) * 7
        do {
            let output = try AtomicFileWriter(destination: FuzzScratch.path + "/transfer.out", mode: 0o600)
            defer { output.abort() }
            let decryptor = try TransferFileDecryptor(encryptedSize: Int64(sealed.count), args: args, output: output, name: "<fuzz>")
            try sealed.withUnsafeBytes { all in
                var at = 0
                while at < all.count {
                    let end = min(all.count, at + piece)
                    try decryptor.consume(UnsafeRawBufferPointer(rebasing: all[at..<end]))
                    at = end
                }
            }
            _ = try decryptor.finish()
        } catch {
            // Refused: a pass.
        }
    }

    /// The plaintext streams of the transfer vectors (content given in hex), with a little padding.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let json = try FuzzFixtures.bytes("vectors/transfer.json")
        guard let root = try JSONSerialization.jsonObject(with: Data(json)) as? [String: Any],
              let cases = root["cases"] as? [[String: Any]] else { throw FuzzSeedError("vectors/transfer.json has no cases") }
        return cases.compactMap { vector in
            guard let name = vector["name"] as? String, let header = (vector["header_hex"] as? String).map(Hex.decode),
                  let content = (vector["content_hex"] as? String).map(Hex.decode), content.count <= 4096 else { return nil }
            let payload = TransferFileCrypto.bigEndian(Int64(header.count + content.count))
            return ("vector-\(name)", [0x00] + payload + header + content + Array(repeating: 0x23, count: 16))
        }
    }
}
