#if canImport(Glibc)
import Glibc
#endif
import SXCore

/// The links a send writes beside its recipient descriptions, as SimpleX makes them: for recipient
/// description N, `<file>.recipient-N.simplex-link.txt` (`simplex:/file#/?desc=…`, through a
/// redirect when the description is more than one chunk, as the chat does; the redirect's own sender
/// description is `<file>.recipient-N.redirect.sender.yaml`) and `<file>.recipient-N.web-link.txt`
/// (the xftp CLI's `https://<host>/#<fragment>`, never redirected: `Client/Main.hs` 266-272, 600-606).
/// Each is mode 0600, written atomically, one line. They follow the descriptions' overwrite rule: all
/// are checked before anything is uploaded, and a replacing send removes those an earlier send left
/// that this one does not write, so no link outlives the send it belonged to.
public struct SendLinks: Sendable {
    public enum Kind: String, Sendable, CaseIterable {
        case simplex, web
    }

    public struct Link: Sendable, Equatable {
        /// The recipient description the link carries (or carries through its redirect).
        public let recipientDescription: String
        public let kind: Kind
        /// The link itself; it holds the file's key, as the description does.
        public let link: String
        /// The file holding the link.
        public let file: String
        /// The sender description of the redirect the link points to (it cancels the redirect),
        /// when the link needed one.
        public let redirectSenderDescription: String?
    }

    public let sender: TransferSender
    /// The kinds asked for, each once, simplex first.
    public let kinds: [Kind]

    public init(sender: TransferSender, kinds: some Sequence<Kind>) {
        self.sender = sender
        let asked = Set(kinds)
        self.kinds = Kind.allCases.filter(asked.contains)
    }

    /// Suffixes after `<file>.recipient-N`: every file this type writes.
    static let suffixes = [".simplex-link.txt", ".web-link.txt", ".redirect.sender.yaml"]

    /// `<folder>/<file>.recipient-<recipient>.<kind>-link.txt` (recipients count from 1).
    public static func linkFile(folder: String, file: String, recipient: Int, kind: Kind) -> String {
        Path.join(folder, Path.basename(file) + ".recipient-\(recipient).\(kind.rawValue)-link.txt")
    }

    /// `<folder>/<file>.recipient-<recipient>.redirect.sender.yaml`: cancels a simplex link's redirect.
    public static func redirectSenderDescription(folder: String, file: String, recipient: Int) -> String {
        Path.join(folder, Path.basename(file) + ".recipient-\(recipient).redirect.sender.yaml")
    }

    /// The files a send of `file` may write (every link asked for, and the redirect sender description
    /// each simplex link may need), and those an earlier send left that this one does not write.
    public func outputs(for file: String) -> (planned: [String], stale: [String]) {
        let folder = sender.options.descriptionFolder
        var planned: [String] = []
        for recipient in 1...max(1, sender.options.recipients) {
            for kind in kinds {
                planned.append(Self.linkFile(folder: folder, file: file, recipient: recipient, kind: kind))
                if kind == .simplex { planned.append(Self.redirectSenderDescription(folder: folder, file: file, recipient: recipient)) }
            }
        }
        let prefix = Path.basename(file) + ".recipient-"
        let plannedSet = Set(planned)
        var stale: [String] = []
        for name in (try? Folders.names(in: folder)) ?? [] where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let suffix = Self.suffixes.first(where: { rest.hasSuffix($0) }), Int(rest.dropLast(suffix.count)) != nil else { continue }
            let path = Path.join(folder, name)
            if !plannedSet.contains(path) { stale.append(path) }
        }
        return (planned, stale.sorted())
    }

    /// What is checked before anything is uploaded: a web link needs XFTP servers (it names the
    /// server of the first chunk, which may be any of them), and no output may be in the way unless
    /// the send replaces them.
    public func check(file: String) throws {
        if kinds.contains(.web) {
            for relay in sender.relays {
                if case .sxkit(let location) = relay.address { throw TransferError.webLinkNeedsXFTPServer(relay: location) }
            }
        }
        // A send that finished, links and all, before a kill in its last steps: the rerun is done.
        if let done = sender.completedSend(file: file), existing(for: done, file: file) != nil { return }
        // The descriptions first, so that a refusal names them before the links beside them.
        let outputs = outputs(for: file)
        try sender.checkOutputs(file: file, others: outputs.planned + outputs.stale)
    }

    /// Checks, sends the file, and writes its links. With links, the send's state stays until they
    /// are written: a rerun after a kill among them finds the descriptions and links its own, and
    /// writes the links again.
    public func send(file: String, events: @escaping TransferEventHandler = { _ in }) async throws -> (TransferSender.Result, [Link]) {
        try check(file: file)
        guard !kinds.isEmpty else { return (try await sender.send(file: file, events: events), []) }
        let linking = sender.keepingWorkFolder()
        let resumed = linking.ownsOutputs(file: file)
        let sent = try await linking.send(file: file, events: events)
        let links: [Link]
        if sent.alreadySent, let done = existing(for: sent, file: file) {
            links = done
        } else {
            links = try await make(for: sent, file: file, events: events, replacingOwn: resumed)
        }
        CrashPoint.reach("transfer-send-linked")
        if !sender.options.keepsWorkFolder {
            try? Folders.remove(try linking.workFolder(for: file))
            CrashPoint.reach("transfer-send-linked-work-removed")
        }
        return (sent, links)
    }

    /// The links a completed send left, every one this send writes, when all are there and none
    /// of an earlier send is (see `existingLink`).
    func existing(for sent: TransferSender.Result, file: String) -> [Link]? {
        guard outputs(for: file).stale.isEmpty else { return nil }
        var links: [Link] = []
        for (index, path) in sent.recipientDescriptions.enumerated() {
            guard let description = try? FileDescription.load(path) else { return nil }
            for kind in kinds {
                guard let link = existingLink(kind, recipient: index + 1, description: description, path: path, file: file) else { return nil }
                links.append(link)
            }
        }
        return links
    }

    /// The link of `kind` for recipient description `path`, when its file is there (a regular file
    /// of one line) and carries that description: a web link, and a simplex link without a
    /// redirect, are exactly the ones the description gives (they are deterministic); a redirected
    /// simplex link carries a redirect to this description's size and digest, whose sender
    /// description is beside it (it cancels the redirect).
    func existingLink(_ kind: Kind, recipient: Int, description: FileDescription, path: String, file: String) -> Link? {
        let folder = sender.options.descriptionFolder
        let linkFile = Self.linkFile(folder: folder, file: file, recipient: recipient, kind: kind)
        guard let st = POSIXFile.linkStatus(linkFile), (st.st_mode & S_IFMT) == S_IFREG,
              let bytes = try? FileBytes.read(linkFile, limit: 1 << 20), let text = String(validating: bytes, as: UTF8.self),
              text.hasSuffix("\n"), !text.dropLast().contains("\n") else { return nil }
        let link = String(text.dropLast())
        var redirectSender: String?
        switch kind {
        case .web:
            guard (try? FileDescriptionLink.webLink(description)) == link else { return nil }
        case .simplex where FileDescriptionLink.needsRedirect(description):
            let senderPath = Self.redirectSenderDescription(folder: folder, file: file, recipient: recipient)
            guard let redirect = try? FileDescriptionLink.parse(link).description,
                  redirect.redirect == FileDescription.Redirect(size: description.size, digest: description.digest),
                  let cancels = try? FileDescription.load(senderPath), cancels.party == .sender,
                  cancels.digest == redirect.digest, cancels.key == redirect.key else { return nil }
            redirectSender = senderPath
        case .simplex:
            guard FileDescriptionLink.simplexLink(description) == link else { return nil }
        }
        return Link(recipientDescription: path, kind: kind, link: link, file: linkFile, redirectSenderDescription: redirectSender)
    }

    /// Writes the links of a completed send (sending a redirect for each simplex link that needs one),
    /// then removes the outputs of an earlier send that this one did not write. `replacingOwn`: the
    /// outputs there are this send's (a rerun of it), and are written again.
    public func make(for sent: TransferSender.Result, file: String, events: @escaping TransferEventHandler = { _ in },
                     replacingOwn: Bool = false) async throws -> [Link] {
        let folder = sender.options.descriptionFolder
        let outputs = outputs(for: file)
        // Checked before the upload; again here, for files that appeared meanwhile.
        if !replacingOwn { try sender.options.outputPolicy.check(outputs.planned + outputs.stale) }
        // The redirect's own transfer events would read as a second send: only its warnings pass.
        let redirectEvents: TransferEventHandler = { event in
            if case .sndFileWarning = event { events(event) }
        }
        // Earlier versions sent each redirect from a private folder in the temp root, and a killed run
        // left it there, with the description in it (which holds the file's key).
        PrivateFolder.removeStale(label: "redirect", in: sender.options.tempRoot)
        var links: [Link] = []
        var written: Set<String> = []
        for (index, path) in sent.recipientDescriptions.enumerated() {
            let recipient = index + 1
            let description = try FileDescription.load(path)
            for kind in kinds {
                // A rerun keeps the links its killed run wrote: a redirect sent again would leave
                // the first one on its server with nothing to cancel it.
                if replacingOwn, let done = existingLink(kind, recipient: recipient, description: description, path: path, file: file) {
                    written.insert(done.file)
                    if let redirect = done.redirectSenderDescription { written.insert(redirect) }
                    links.append(done)
                    continue
                }
                let text: String
                var redirectSender: String?
                switch kind {
                case .simplex:
                    var linked = description
                    if FileDescriptionLink.needsRedirect(description) {
                        let senderPath = Self.redirectSenderDescription(folder: folder, file: file, recipient: recipient)
                        // In the send's work folder, which stays until the links are written.
                        let folder = Path.join(try sender.workFolder(for: file), "redirect-\(recipient)")
                        linked = try await TransferSender.sendRedirect(for: description, relays: sender.relays, senderDescriptionPath: senderPath,
                                                                       folder: folder, policy: sender.options.policy, events: redirectEvents)
                        CrashPoint.reach("transfer-send-redirect-sent")
                        redirectSender = senderPath
                        written.insert(senderPath)
                    }
                    text = FileDescriptionLink.simplexLink(linked)
                case .web:
                    do { text = try FileDescriptionLink.webLink(description) } catch { throw TransferError.badLink(source: path, problem: error) }
                }
                let linkFile = Self.linkFile(folder: folder, file: file, recipient: recipient, kind: kind)
                try AtomicFileWriter.write(Array((text + "\n").utf8), to: linkFile, mode: 0o600)
                CrashPoint.reach("transfer-send-link-written")
                written.insert(linkFile)
                links.append(Link(recipientDescription: path, kind: kind, link: text, file: linkFile, redirectSenderDescription: redirectSender))
            }
        }
        // Replaced: an earlier send's links (and redirects) would otherwise look like this send's.
        for path in outputs.planned + outputs.stale where !written.contains(path) {
            if unlink(path) != 0 && errno != ENOENT { throw FileSystemError("remove", path: path) }
        }
        return links
    }
}
