import SXCore

extension TransferSender {
    /// Sends a recipient description as a redirect, as SimpleX does when a description is too long
    /// for a link (simplex-chat `Subscriber.hs`: a recipient description of more than one chunk goes as
    /// a file, simplexmq `Agent.hs` 366-380 `xftpSendDescription'`): its YAML, as `direct.yaml`, in one
    /// chunk, whose descriptions carry `redirect` with the real file's size and SHA-512. Returns the
    /// redirect's sender description (written to `senderDescriptionPath`: it cancels the redirect) and
    /// its recipient description, for the link.
    ///
    /// `folder` is the redirect's own work folder, the same for every run of one send (inside that
    /// send's work folder), and is left for the caller to remove with it: a run killed while it sent
    /// the redirect, or after but before its link was written, leaves there what the rerun needs to
    /// finish that redirect or to take it as it is, rather than send another that would stay on its
    /// server with nothing to cancel it.
    public static func sendRedirect(for description: FileDescription, relays: [any ChunkRelay], senderDescriptionPath: String,
                                    folder: String, policy: TransferPolicy = TransferPolicy(),
                                    events: @escaping TransferEventHandler = { _ in }) async throws -> FileDescription {
        precondition(description.party == .recipient)
        try Folders.create(folder, permissions: 0o700)
        let yaml = Path.join(folder, "direct.yaml")
        let text = Array(description.yaml().utf8)
        // Written once: a rerun's send resumes only the very file it began (same size and modification time).
        if (try? FileBytes.read(yaml, limit: text.count + 1)) != text { try AtomicFileWriter.write(text, to: yaml, mode: 0o600) }
        var options = Options(recipients: 1, descriptionFolder: Path.join(folder, "descriptions"), tempRoot: folder, policy: policy)
        let redirect = FileDescription.Redirect(size: description.size, digest: description.digest)
        options.redirect = redirect
        let sender = TransferSender(relays: relays, options: options)
        let paths = sender.descriptionPaths(for: yaml)
        let recipient: FileDescription
        if let sent = try? FileDescription.load(paths.sender), sent.party == .sender, sent.redirect == redirect,
           let done = try? FileDescription.load(paths.recipients[0]), done.party == .recipient, done.redirect == redirect,
           done.digest == sent.digest, done.key == sent.key {
            // Sent by a run killed before its link was written.
            recipient = done
        } else {
            // Anything else there (a run killed while writing them) is not a finished redirect's.
            for path in paths.all { unlink(path) }
            let sent = try await sender.send(file: yaml, events: events)
            recipient = try FileDescription.load(sent.recipientDescriptions[0])
        }
        try AtomicFileWriter.copy(paths.sender, to: senderDescriptionPath, mode: 0o600)
        return recipient
    }
}
