import Foundation
import SXCore
import SXSample
import SXDatabase
import SXProfileMove
import SXCrypto
import SXTransfer

extension DemoSteps {
    /// The whole profile moved to a second data directory through a folder relay, as `migrate send`
    /// and `migrate receive` do it, then compared: the same rows in every table, the same files.
    func runMigrateStep(_ sample: SampleDataDirectory, passphrase: SecretBytes) throws {
        step("29. Move the whole profile to a second data directory (sxkit migrate send / receive)")
        let source = sample.directory
        let relayFolder = Path.join(root, "migrate-relay")
        let target = DataDirectory(root: Path.join(root, "migrated"), layout: .desktop)
        try Folders.create(relayFolder)
        let relay = FolderRelay(root: relayFolder)
        let sender = DeviceMigrationSender(
            dataDirectory: source, passphrase: passphrase, relays: [relay],
            options: .init(descriptionFolder: Path.join(root, "migrate-descriptions"), tempRoot: source.primaryTempFolder))
        let (sent, sendSeconds) = try timed { try waitFor { try await sender.send() } }
        say("exported and sent \(ByteCount.format(sent.archiveBytes)) as \(sent.transfer.chunks) chunk(s) in \(String(format: "%.2f", sendSeconds)) s")
        let descriptionPath = sent.transfer.recipientDescriptions[0]
        let description = try FileDescription.load(descriptionPath)
        let receiver = DeviceMigrationReceiver(dataDirectory: target, passphrase: passphrase,
                                               options: .init(tempRoot: Path.join(target.root, "tmp")), relays: { _ in relay })
        let (received, receiveSeconds) = try timed { try waitFor { try await receiver.receive(description, path: descriptionPath) } }
        say("received, verified and imported \(received.importReport.entries) entries into \(target.root) in \(String(format: "%.2f", receiveSeconds)) s")
        let sameRows = rowCounts(source, passphrase) == rowCounts(target, passphrase)
        let sameFiles = try fileHashes(source.filesFolder!) == fileHashes(target.filesFolder!)
        say("every table has the same row count: \(sameRows ? "yes" : "NO"); every file has the same SHA-256: \(sameFiles ? "yes" : "NO")")
        guard sameRows, sameFiles, received.importReport.archiveErrors.isEmpty else { throw DemoFailure("the migrated profile differs from the original") }
    }

    private func rowCounts(_ data: DataDirectory, _ passphrase: SecretBytes) -> [[TableRows]?] {
        DatabaseInspector().inspect(DatabaseSet(dataDirectory: data), passphrase: passphrase).databases.map { $0.details?.tables }
    }

    private func fileHashes(_ folder: String) throws -> [String: String] {
        var hashes: [String: String] = [:]
        for name in try Folders.names(in: folder) {
            hashes[name] = Hex.encode(SHA256Digest.of(try FileBytes.read(Path.join(folder, name), limit: 256 << 20)))
        }
        return hashes
    }
}
