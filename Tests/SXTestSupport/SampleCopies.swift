import Foundation
import SXCore
import SXCrypto
import SXSample

/// Sample data directories for tests, each kind built once per test run and copied.
///
/// Why: `SampleDataDirectory.create` encodes several megapixel images with libvips and derives two
/// SQLCipher keys (PBKDF2, 256,000 rounds each), seconds of CPU, and a hundred tests asked for one.
/// The build is deterministic for its options but for the databases' random salts, so a copy (`cp -a`:
/// bytes, modes, times) is the sample a build gives; copies of one kind share the template's salts.
/// Only the sample's own tests (SXSampleTests) build theirs.
public enum SampleCopies {
    /// A copy at `root` of the sample `options` describe; `root` must not hold a data directory yet.
    public static func create(at root: String, options: SampleDataDirectory.Options = .init()) throws -> SampleDataDirectory {
        let template = try Templates.shared.template(for: options)
        let copy = template.relocated(to: root)
        if POSIXFile.exists(copy.directory.chatDatabase) {
            throw CopyError(message: "'\(root)' already holds a SimpleX data directory; choose an empty folder")
        }
        try Folders.create(copy.directory.root)
        try run("/bin/cp", ["-a", template.directory.root + "/.", copy.directory.root])
        return copy
    }

    struct CopyError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }

    private static func run(_ tool: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CopyError(message: "\(tool) \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
    }

    /// The built samples, one folder each under a folder of this process's own, removed at exit.
    private final class Templates: @unchecked Sendable {
        static let shared = Templates()

        private final class Entry: @unchecked Sendable {
            let lock = NSLock()
            var sample: SampleDataDirectory?
        }

        private let lock = NSLock()
        private var entries: [String: Entry] = [:]
        private let root: String

        private init() {
            let base = (NSTemporaryDirectory() as NSString).standardizingPath
            root = base + "/sxkit-samples.\(getpid())"
            templatesRoot = root
            atexit { if let root = templatesRoot { _ = try? FileManager.default.removeItem(atPath: root) } }
        }

        func template(for options: SampleDataDirectory.Options) throws -> SampleDataDirectory {
            let key = Self.key(options)
            let entry: Entry = lock.withLock {
                if let known = entries[key] { return known }
                let made = Entry()
                entries[key] = made
                return made
            }
            // One build per kind; other tests that want the same kind wait for it.
            return try entry.lock.withLock {
                if let sample = entry.sample { return sample }
                let folder = root + "/" + Hex.encode(SHA256Digest.of(Array(key.utf8))).prefix(24)
                try? FileManager.default.removeItem(atPath: folder)
                let sample = try SampleDataDirectory.create(at: folder, options: options)
                entry.sample = sample
                return sample
            }
        }

        /// Every option, the passphrase as hex: two options that differ never share a sample.
        static func key(_ o: SampleDataDirectory.Options) -> String {
            let passphrase = o.passphrase.withUnsafeBytes { Hex.encode(Array($0)) }
            return [o.photos, o.documents, o.seed, o.contacts, o.groups, o.chatItems, o.bulkFiles].map(String.init).joined(separator: ",")
                + ",\(o.chatDatabaseBytes.map(String.init) ?? "-"),\(o.walMode),\(passphrase)"
        }
    }
}

/// Read by the exit handler, which cannot capture.
nonisolated(unsafe) private var templatesRoot: String?
