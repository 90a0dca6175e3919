import Foundation
import SXCore
import SXCrypto
import SXDatabase
import SXSample
import SXTestSupport

/// A small sample data dir for `files encrypt|decrypt --data-dir` tests, with what each file held.
struct FilesSample {
    static let passphrase = "correct horse battery staple"
    static let environment = ["SXKIT_PASSPHRASE": passphrase]

    let temp: TempFolder
    let directory: DataDirectory
    /// The sample's files, with their plaintext hashes.
    let sampleFiles: [SampleDataDirectory.SampleFile]
    var root: String { directory.root }
    var files: String { directory.filesFolder! }
    var chat: String { directory.chatDatabase }
    /// Plaintext SHA-256 of every referenced file on disk, by name.
    var originals: [String: String] {
        Dictionary(uniqueKeysWithValues: sampleFiles.filter { $0.referenced }.map { ($0.name, $0.sha256) })
    }

    init(bulkFiles: Int = 0) throws {
        temp = try TempFolder("sxkit-files")
        let sample = try SampleCopies.create(at: temp.file("data"), options: .init(photos: 1, documents: 5, chatItems: 20, bulkFiles: bulkFiles))
        directory = sample.directory
        sampleFiles = sample.files
    }

    /// A copy of another sample's data dir (cp -a), for one run of a series.
    init(copying other: FilesSample, tag: String) throws {
        temp = try TempFolder("sxkit-files")
        let target = temp.file("data")
        guard shell("cp -a '\(other.root)' '\(target)'") == 0 else { throw UsageError("cp -a failed for \(tag)") }
        directory = DataDirectory(root: target, layout: other.directory.layout, prefix: other.directory.prefix)
        sampleFiles = other.sampleFiles
    }

    func run(_ args: [String], environment: [String: String] = [:], prefix: [String] = []) throws -> CLIResult {
        try CLI.run(args, environment: Self.environment.merging(environment) { $1 }, prefix: prefix)
    }

    /// Runs SQL on the chat DB with the `sqlcipher` shell.
    func sql(_ statements: String) throws {
        let r = try sqlcipherShell(chat, "PRAGMA key = '\(Self.passphrase)';\n\(statements)\n")
        guard r.status == 0, !r.error.contains("Error") else { throw UsageError("sqlcipher: \(r.error)") }
    }

    /// Every `files` row, read-only.
    func rows() throws -> [ChatFileRecord] {
        let (db, _) = try DatabaseOpener.open(chat, passphrase: SecretBytes(Array(Self.passphrase.utf8)), mode: .readOnly)
        var rows: [ChatFileRecord] = []
        try ChatFilesTable.forEach(in: db) { rows.append($0) }
        return rows
    }

    enum FileState: Equatable {
        /// The original bytes, no key in the DB.
        case plaintext
        /// A CryptoFile that the DB key decrypts to the original.
        case encrypted
        /// A CryptoFile that the DB key decrypts to the original only with the key schedule of sxkit
        /// before 0.2.0 (which the SimpleX apps cannot open).
        case encryptedEarlierSchedule
        /// The original bytes, but the DB claims a key: allowed only while a journal covers it.
        case keyClaimedForPlaintext
        /// Not the original, and no DB key decrypts it: a lost file. Never allowed.
        case lost
        case missing
    }

    /// What each referenced file is on disk, checked against the DB rows naming it.
    func states() throws -> [String: FileState] {
        var out: [String: FileState] = [:]
        let originals = self.originals
        for row in try rows() {
            guard let name = row.relativePath, let original = originals[name] else { continue }
            guard let data = FileManager.default.contents(atPath: Path.join(files, name)) else { out[name] = .missing; continue }
            let bytes = [UInt8](data)
            let isOriginal = Hex.encode(SHA256Digest.of(bytes)) == original
            var state: FileState
            if row.isEncrypted {
                let args = try CryptoFileArgs(key: row.cryptoKey!, nonce: row.cryptoNonce!)
                if let plain = try? CryptoFile.decrypt(bytes, args: args), Hex.encode(SHA256Digest.of(plain)) == original {
                    state = .encrypted
                } else if let plain = SecretBoxStream.open(bytes, key: args.key, nonce: args.nonce, schedule: .earlierSxkit),
                          Hex.encode(SHA256Digest.of(plain)) == original {
                    state = .encryptedEarlierSchedule
                } else {
                    state = isOriginal ? .keyClaimedForPlaintext : .lost
                }
            } else {
                state = isOriginal ? .plaintext : .lost
            }
            if let earlier = out[name], earlier != state { state = .lost }
            out[name] = state
        }
        return out
    }

    /// Rewrites up to `count` encrypted files as sxkit before 0.2.0 wrote them: the same DB key and
    /// nonce, used directly (libsodium's secretbox, tag last, computed independently of sxkit).
    /// Returns their names.
    @discardableResult
    func rewriteWithEarlierSchedule(count: Int) throws -> [String] {
        var names: [String] = []
        for row in try rows() where row.isEncrypted && names.count < count {
            guard let name = row.relativePath, originals[name] != nil, !names.contains(name) else { continue }
            let path = Path.join(files, name)
            let plain = try CryptoFile.decrypt([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))), args: CryptoFileArgs(key: row.cryptoKey!, nonce: row.cryptoNonce!))
            try Data(IndependentSecretBox.seal(plain, key: row.cryptoKey!, nonce: row.cryptoNonce!, earlierSxkit: true)).write(to: URL(fileURLWithPath: path))
            names.append(name)
        }
        return names
    }

    var tempLeftovers: [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: files)) ?? []).filter { $0.hasPrefix(".sxkit-tmp-") }
            + ((try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []).filter { $0.hasPrefix(".sxkit-tmp-") || $0.hasSuffix(".files-journal") }
    }
}
