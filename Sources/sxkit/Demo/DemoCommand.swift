import ArgumentParser
import Foundation
import SXFileEncryption
import SXCore
import SXTerminal
import SXArchive
import SXCrypto
import SXDatabase
import SXImages
import SXSample

/// Builds a sample data directory and walks every capability that exists, saying what each step did.
struct DemoCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Build a sample SimpleX data directory and walk through what sxkit can do with it.",
        discussion: """
        The sample's databases are SQLCipher 4 with the passphrase "correct horse battery staple"; the \
        walk-through changes it (sxkit db rekey) to "demo: a longer passphrase, with 'quotes' and ünïcode", \
        which then opens every data directory the demo leaves. It says both as it goes, and at the end writes \
        the passphrase the databases open with now to demo-passphrase.txt (0600), for --passphrase-file.

        What it leaves behind: one folder, --dir or a new $TMPDIR/sxkit-demo.XXXXXX, and nothing outside \
        it (its XFTP server is stopped before it ends). The folder is itself the sample data directory \
        (simplex_v1_chat.db, simplex_v1_agent.db, simplex_v1_files/, simplex_v1_assets/, tmp/) and holds \
        what the steps made: imported/ and migrated/ (the profile imported from an archive and moved with \
        migrate send/receive), chats-html/ (the moved profile's chats as HTML pages), \
        simplex-chat-archive.zip, compressed/ (images), outbox/, decrypted/, files-manifest.json and \
        tampered.bin (CryptoFiles), transfer-*/, migrate-*/ and xftp-server/ and xftp-transfer/ \
        (relays, descriptions and received files). Nothing in it is needed afterwards; remove it with \
        rm -rf FOLDER (the last line of the demo names it).
        """
    )

    @Option(name: .long, help: "Folder for the sample data directory (default: a new folder under $TMPDIR).", completion: .directory)
    var dir: String?

    @Option(name: .long, help: "Seed for the generated content.")
    var seed = 1

    @Flag(name: .long, help: "Only build the sample data directory (for experiments and benchmarks); walk nothing.")
    var sampleOnly = false

    @Option(name: .long, help: ArgumentHelp(
        "Grow the sample chat database's history to at least this size (e.g. 500MB, 1GiB).", valueName: "size"))
    var chatDbSize: ByteSizeArgument?

    @Option(name: .long, help: ArgumentHelp(
        "Write this many chat items of conversation (besides those carrying files).", valueName: "count"))
    var chatItems = SampleDataDirectory.Options().chatItems

    @Option(name: .long, help: ArgumentHelp(
        "Add this many small files (1-8 KiB, some encrypted, missing or orphaned) to the sample files folder.", valueName: "count"))
    var bulkFiles = 0

    func validate() throws {
        if chatItems < 0 { throw ValidationError("--chat-items must be 0 or more") }
    }

    func run() throws {
        let root = try dir.map { try DemoSteps.ensureEmptyFolder($0) } ?? DemoSteps.newTempFolder()
        let steps = DemoSteps(root: root, seed: seed, chatDatabaseBytes: chatDbSize?.bytes, bulkFiles: bulkFiles, chatItems: chatItems)
        if sampleOnly {
            let sample = try steps.buildSample()
            let out = ConsoleOutput.standardOutput
            out.writeLine("sample data directory: \(sample.directory.root)")
            let file = try steps.writePassphraseFile(SampleDataDirectory.defaultPassphrase)
            out.writeLine("passphrase of both databases: \(DemoSteps.quoted(SampleDataDirectory.defaultPassphrase)) (also in \(file), for --passphrase-file)")
            out.writeLine("remove it with: rm -rf \(DemoSteps.pasteable(sample.directory.root))")
            return
        }
        try steps.run()
    }
}

/// A size typed as `500MB`, `1GiB` or plain bytes (see `ByteSize`).
struct ByteSizeArgument: ExpressibleByArgument {
    let bytes: Int64
    var defaultValueDescription: String { "\(bytes) bytes" }
    init?(argument: String) {
        guard let bytes = ByteSize.parse(argument) else { return nil }
        self.bytes = bytes
    }
}

struct DemoSteps {
    let root: String
    let seed: Int
    let chatDatabaseBytes: Int64?
    let bulkFiles: Int
    let chatItems: Int
    private let out = ConsoleOutput.standardOutput

    init(root: String, seed: Int, chatDatabaseBytes: Int64? = nil, bulkFiles: Int = 0, chatItems: Int = SampleDataDirectory.Options().chatItems) {
        self.chatItems = chatItems
        self.root = root
        self.seed = seed
        self.chatDatabaseBytes = chatDatabaseBytes
        self.bulkFiles = bulkFiles
    }

    func buildSample() throws -> SampleDataDirectory {
        try SampleDataDirectory.create(at: root, options: .init(seed: seed, chatItems: chatItems, chatDatabaseBytes: chatDatabaseBytes, bulkFiles: bulkFiles))
    }

    func step(_ title: String) { out.writeLine("\n== \(title)") }
    func say(_ text: String) { out.writeLine("   " + text) }

    func run() throws {
        out.write(RuntimeReport.text())

        step("1. Build a sample data directory")
        let sample = try buildSample()
        let data = sample.directory
        say("data directory: \(data.root) (layout: \(data.layout.rawValue))")
        say("databases:      \(Path.basename(data.chatDatabase)), \(Path.basename(data.agentDatabase)) — SQLCipher 4, passphrase \"\(Self.samplePassphrase)\"")
        say("schema:         sxkit's subset of SimpleX's chat and agent tables (STRICT, real columns), SimpleX's \(SimpleXMigrations.chat.count) + \(SimpleXMigrations.agent.count) migration rows, rollback journal as the core leaves it")
        say("files folder:   \(data.filesFolder!)")
        for f in sample.files {
            let state = !f.referenced ? "orphan (not in the chat DB)" : f.encrypted ? "CryptoFile, key in the chat DB" : "plaintext"
            say("  " + f.name.padding(toLength: 22, withPad: " ", startingAt: 0) + ByteCount.format(f.size).leftPadded(to: 10) + "  " + state)
        }
        for name in SampleDataDirectory.missingFiles { say("  " + name.padding(toLength: 32, withPad: " ", startingAt: 0) + "  referenced, missing on disk") }

        let databases = try DatabaseDemo(steps: self, set: DatabaseSet(dataDirectory: data))
        try databases.run()
        try ArchiveDemo(steps: self, source: data, passphrase: DatabaseDemo.newPassphrase).run()
        try runImageStep(sample)
        try runFileSteps(sample)
        try runTransferSteps(sample)
        try runXFTPRelayStep(sample)
        try runCareSteps(sample, passphrase: DatabaseDemo.newPassphrase)
        try runMigrateStep(sample, passphrase: DatabaseDemo.newPassphrase)
        try runChatsStep(DatabaseDemo.newPassphrase)
        try runCheckStep(sample, passphrase: DatabaseDemo.newPassphrase)

        step("Done")
        let file = try writePassphraseFile(DatabaseDemo.newPassphrase)
        say("passphrases: the sample was made with \(Self.quoted(SampleDataDirectory.defaultPassphrase)); since step 4 its databases, "
            + "and those of imported/ and migrated/, open with \(Self.quoted(DatabaseDemo.newPassphrase)) (also in \(file), for --passphrase-file)")
        say("try: sxkit db inspect --data-dir \(DemoSteps.pasteable(root)) --passphrase-file \(DemoSteps.pasteable(file))")
        say("Everything is in \(root). Remove it with: rm -rf \(DemoSteps.pasteable(root))")
    }

    /// A path as one shell word, to paste.
    static func pasteable(_ path: String) -> String { ShellWord.quote(path) }

    /// The passphrase as the demo prints it: in double quotes (it may hold single quotes).
    static func quoted(_ passphrase: SecretBytes) -> String {
        "\"" + String(decoding: passphrase.copyBytes(), as: UTF8.self) + "\""
    }

    /// Writes the passphrase the sample's databases open with now to demo-passphrase.txt (0600, no
    /// newline) in the demo's folder, for --passphrase-file; returns its path.
    func writePassphraseFile(_ passphrase: SecretBytes) throws -> String {
        let file = Path.join(root, "demo-passphrase.txt")
        try AtomicFileWriter.write(passphrase.copyBytes(), to: file, mode: 0o600)
        return file
    }

    static let samplePassphrase = String(decoding: SampleDataDirectory.defaultPassphrase.copyBytes(), as: UTF8.self)

    /// The sample's plaintext photos and PNGs, compressed to the inline limit side by side with the originals.
    func runImageStep(_ sample: SampleDataDirectory) throws {
        step("13. Compress the photos and PNGs to the inline limit (sxkit image compress -o)")
        let folder = sample.directory.filesFolder!
        let images = sample.files.filter { !$0.encrypted && ($0.name.hasSuffix(".jpg") || $0.name.hasSuffix(".png")) }
        let target = Path.join(root, "compressed")
        let batch = ImageBatch(options: ImageCompressionOptions())
        let (items, seconds) = timed { batch.compress(images.map { Path.join(folder, $0.name) }, into: target) }
        say(ImageTable.header)
        for item in items {
            guard let record = item.record else { throw DemoFailure(item.error ?? "an image failed") }
            say(ImageTable.line(name: Path.basename(item.source), record))
        }
        let largest = items.compactMap(\.record).map(\.outputBytes).max() ?? 0
        say("\(items.count) images into \(target) in \(String(format: "%.2f", seconds)) s; "
            + "largest \(largest) bytes, budget \(SimpleXLimits.maxImageSize): \(largest <= SimpleXLimits.maxImageSize ? "every one fits" : "OVER")")
    }

    /// CryptoFiles on their own: the sample's plaintext files are copied to an outbox and encrypted,
    /// verified, read, tampered with and decrypted there.
    func runFileSteps(_ sample: SampleDataDirectory) throws {
        let outbox = Path.join(root, "outbox")
        let plain = sample.files.filter { !$0.encrypted }
        try Folders.create(outbox)
        for f in plain { try AtomicFileWriter.copy(Path.join(sample.directory.filesFolder!, f.name), to: Path.join(outbox, f.name), mode: 0o600) }

        step("14. Encrypt an outbox folder in place (sxkit files encrypt --in-place --manifest)")
        let manifest = Path.join(root, "files-manifest.json")
        let batch = CryptoFileBatch(manifestPath: manifest)
        let (enc, encSeconds) = try timed { try batch.encrypt([outbox], to: .inPlace) }
        say("encrypted \(enc.done) files, \(ByteCount.format(enc.bytes)) in \(String(format: "%.2f", encSeconds)) s; keys in \(manifest) (mode 0600)")
        let again = try batch.encrypt([outbox], to: .inPlace)
        say("running it again changes nothing: \(again.skipped) already encrypted, \(again.done) encrypted")

        step("15. Verify every tag (sxkit files verify --manifest)")
        let verified = try batch.verify([])
        say("\(verified.done) of \(verified.items.count) files authentic")

        step("16. Read one file without decrypting it on disk (sxkit files cat)")
        let doc = plain.first { $0.name.hasSuffix(".txt") || $0.name.hasSuffix(".md") || $0.name.hasSuffix(".csv") }!
        let docPath = Path.join(outbox, doc.name)
        let args = try CryptoFileManifest.load(manifest).args(for: docPath)!
        let pipe = Pipe()
        try CryptoFile.decrypt(file: docPath, toDescriptor: pipe.fileHandleForWriting.fileDescriptor, args: args)
        try pipe.fileHandleForWriting.close()
        let firstLine = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").first ?? ""
        say("\(doc.name): \"\(firstLine)\"")

        step("17. Tamper with a copy: the tag catches it, nothing is decrypted")
        let tampered = Path.join(root, "tampered.bin")
        var bytes = try FileBytes.read(docPath, limit: 64 << 20)
        bytes[bytes.count / 2] ^= 0x01
        try AtomicFileWriter.write(bytes, to: tampered)
        let check = CryptoFileBatch.verifyOne(tampered, args: args)
        say("verify: \(check.status.rawValue) — \(check.message ?? "")")

        step("18. Decrypt copies for review (sxkit files decrypt -o) and compare hashes")
        let review = Path.join(root, "decrypted")
        let dec = try batch.decrypt([outbox], to: .folder(review))
        var matching = 0
        for f in plain {
            let copy = try FileBytes.read(Path.join(review, "outbox/" + f.name), limit: 256 << 20)
            if Hex.encode(SHA256Digest.of(copy)) == f.sha256 { matching += 1 }
        }
        say("decrypted \(dec.done) files into \(review); \(matching) of \(plain.count) match the originals' SHA-256")
        guard matching == plain.count else { throw DemoFailure("decrypted copies differ from the originals") }
    }

    static func newTempFolder() throws -> String {
        let base = PrivateFolder.systemTemp
        var template = FileNameBytes.template(base + "/sxkit-demo.XXXXXX")
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw FileSystemError("create a folder in", path: base)
        }
        return FileNameBytes.string(cString: made)
    }

    static func ensureEmptyFolder(_ path: String) throws -> String {
        let absolute = Path.absolute(path)
        try Folders.create(absolute)
        guard try Folders.names(in: absolute).isEmpty else {
            throw UsageError("'\(absolute)' is not empty; the demo builds its sample in an empty folder")
        }
        return absolute
    }
}

extension String {
    func leftPadded(to width: Int) -> String { count >= width ? self : String(repeating: " ", count: width - count) + self }
}

struct DemoFailure: SXError {
    let message: String
    init(_ message: String) { self.message = message }
    var description: String { "demo failed: \(message)" }
}
