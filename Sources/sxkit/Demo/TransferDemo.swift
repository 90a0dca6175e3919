import Foundation
import SXCore
import SXCrypto
import SXSample
import SXTransfer

extension DemoSteps {
    /// A sample file planned, sent through a folder relay, received into another folder and compared.
    func runTransferSteps(_ sample: SampleDataDirectory) throws {
        step("19. Plan transfers of the sample files (sxkit transfer plan)")
        let folder = sample.directory.filesFolder!
        let plain = sample.files.filter { !$0.encrypted }.sorted { $0.size > $1.size }
        for f in plain {
            let d = try TransferDecision.forFile(Path.join(folder, f.name))
            say(f.name.padding(toLength: 22, withPad: " ", startingAt: 0) + ByteCount.format(f.size).leftPadded(to: 10)
                + "  \(d.method.rawValue), auto-receive \(d.autoReceive ? "yes" : "no") (\(d.methodLimitName))")
        }

        step("20. Send the largest through a folder relay and receive it (sxkit transfer send / receive --relay DIR)")
        let chosen = plain[0]
        let relayFolder = Path.join(root, "transfer-relay")
        let work = Path.join(root, "transfer-work")
        let inbox = Path.join(root, "transfer-inbox")
        for dir in [relayFolder, work, inbox] { try Folders.create(dir) }
        let relay = FolderRelay(root: relayFolder)
        let sender = TransferSender(relay: relay, options: .init(recipients: 2, descriptionFolder: Path.join(root, "transfer-descriptions"),
                                                                 tempRoot: Path.join(work, "send")))
        let source = Path.join(folder, chosen.name)
        let (sent, sendSeconds) = try timed { try waitFor { try await sender.send(file: source) } }
        say("\(chosen.name): \(sent.chunks) chunk(s), \(ByteCount.format(sent.encryptedSize)) encrypted, in \(String(format: "%.2f", sendSeconds)) s")
        say("descriptions (0600): \(Path.basename(sent.senderDescription)), "
            + sent.recipientDescriptions.map { Path.basename($0) }.joined(separator: ", "))
        let description = try FileDescription.load(sent.recipientDescriptions[0])
        let receiver = TransferReceiver(options: .init(destination: inbox, tempRoot: Path.join(work, "receive")), relays: { _ in relay })
        let recipientPath = sent.recipientDescriptions[0]
        let (got, receiveSeconds) = try timed { try waitFor { try await receiver.receive(description, path: recipientPath) } }
        let same = Hex.encode(SHA256Digest.of(try FileBytes.read(got.path, limit: 256 << 20))) == chosen.sha256
        say("received \(got.fileName) into \(inbox) in \(String(format: "%.2f", receiveSeconds)) s; SHA-256 matches the original: \(same ? "yes" : "NO")")
        guard same else { throw DemoFailure("the received file differs from the original") }

        step("21. Cancel: the sender deletes the chunks; the second recipient is told (sxkit transfer cancel)")
        let deleted = try waitFor { try await TransferSender.cancel(try FileDescription.load(sent.senderDescription), path: sent.senderDescription,
                                                                    relays: { _ in relay }) }
        let second = try FileDescription.load(sent.recipientDescriptions[1])
        do {
            _ = try waitFor { try await receiver.receive(second, path: sent.recipientDescriptions[1]) }
            throw DemoFailure("a cancelled transfer was still received")
        } catch let error as RelayError {
            say("deleted \(deleted) chunk(s); recipient 2: \(error)")
        }
    }
}
