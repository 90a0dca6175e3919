import SXCore

extension TransferSender {
    /// Sends a recipient description as a redirect, as SimpleX does when a description is too long
    /// for a link (simplex-chat `Subscriber.hs`: a recipient description of more than one chunk goes as
    /// a file, simplexmq `Agent.hs` 366-380 `xftpSendDescription'`): its YAML, as `direct.yaml`, in one
    /// chunk, whose descriptions carry `redirect` with the real file's size and SHA-512. Returns the
    /// redirect's sender description (written to `senderDescriptionPath`: it cancels the redirect) and
    /// its recipient description, for the link.
    public static func sendRedirect(for description: FileDescription, relays: [any ChunkRelay], senderDescriptionPath: String,
                                    tempRoot: String, policy: TransferPolicy = TransferPolicy(),
                                    events: @escaping TransferEventHandler = { _ in }) async throws -> FileDescription {
        precondition(description.party == .recipient)
        let privateFolder = try PrivateFolder(label: "redirect", root: tempRoot)
        let folder = privateFolder.path
        defer { privateFolder.remove() }
        let yaml = Path.join(folder, "direct.yaml")
        try AtomicFileWriter.write(Array(description.yaml().utf8), to: yaml, mode: 0o600)
        var options = Options(recipients: 1, descriptionFolder: Path.join(folder, "descriptions"), tempRoot: folder, policy: policy)
        options.redirect = FileDescription.Redirect(size: description.size, digest: description.digest)
        let sent = try await TransferSender(relays: relays, options: options).send(file: yaml, events: events)
        try AtomicFileWriter.copy(sent.senderDescription, to: senderDescriptionPath, mode: 0o600)
        return try FileDescription.load(sent.recipientDescriptions[0])
    }
}
