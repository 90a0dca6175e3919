import Foundation
import Synchronization
import SXCore
import SXCrypto

/// Sends a file through a relay: encrypt, and create and upload each chunk as soon as it is
/// encrypted (parallel, bounded, with retries), then write the sender description and one
/// description per recipient. Everything done is recorded in a work folder under `tempRoot`, so
/// running the same send again after an interruption finishes without re-sending finished chunks.
public struct TransferSender: Sendable {
    public struct Options: Sendable {
        public var recipients: Int
        /// Allow files above the 1 GiB soft limit, up to the 5 GiB hard limit.
        /// Not the overwrite rule: that is `outputPolicy`.
        public var aboveSoftLimit: Bool
        /// Where the descriptions go.
        public var descriptionFolder: String
        /// Where the work folder (the send's state, with its key: mode 0700) lives: the data dir's temp folder or --temp-dir.
        public var tempRoot: String
        public var policy: TransferPolicy
        /// Whether descriptions of an earlier send of the same file may be replaced; those of its
        /// recipients beyond `recipients` are then removed, so none outlives the send it belonged to.
        public var outputPolicy = OutputPolicy.refuse
        /// Set when the file is a recipient description standing in for a larger file (a redirect):
        /// it goes as one chunk, and its descriptions say the real file's size and digest
        /// (simplexmq `Agent.hs` 366-380 `xftpSendDescription'`).
        public var redirect: FileDescription.Redirect?
        /// Leave the send's work folder (its finished state) for the caller to remove, when the
        /// caller has more to do after the send: until the caller is done, a rerun then finds the
        /// descriptions this send wrote its own and finishes, instead of refusing them.
        public var keepsWorkFolder = false

        public init(recipients: Int = 1, aboveSoftLimit: Bool = false, descriptionFolder: String, tempRoot: String, policy: TransferPolicy = TransferPolicy()) {
            self.recipients = recipients
            self.aboveSoftLimit = aboveSoftLimit
            self.descriptionFolder = descriptionFolder
            self.tempRoot = tempRoot
            self.policy = policy
        }
    }

    public struct Result: Sendable, Equatable {
        public let senderDescription: String
        public let recipientDescriptions: [String]
        public let encryptedSize: Int64
        /// Chunks uploaded by this run (a resumed run skips the finished ones).
        public let chunksUploaded: Int
        public let chunks: Int
        /// An earlier run sent this very file and wrote these descriptions, then was killed before
        /// it removed all its work: nothing was sent or written (see `completedSend`).
        public var alreadySent = false
    }

    /// Chunk i goes to relay i mod count: spread over the servers like SimpleX's agent spreads them
    /// (it picks at random). A relay that cannot be reached when a chunk is created there hands the
    /// chunk on to the next one, as the agent tries the user's other servers (simplexmq
    /// `src/Simplex/FileTransfer/Agent.hs` 464-485, `createWithNextSrv` through `withNextSrv`); the
    /// state records where each chunk went, so a resumed send finds it.
    public let relays: [any ChunkRelay]
    /// Relays that could not be reached for a chunk in this run: later chunks try them last.
    let unreachable = UnreachableRelays()
    public private(set) var options: Options
    /// What `completedSend` found for a version of a file, so a check before the send and the
    /// send itself encrypt the file once between them.
    let completedSends = CompletedSendMemo()
    /// An interrupted send older than this starts over instead of resuming: half the relays' default
    /// expiry, so chunks uploaded by the first run are still there when the last one is sent.
    public static let resumeWindow: TimeInterval = 24 * 3600

    public init(relays: [any ChunkRelay], options: Options) {
        precondition(!relays.isEmpty, "a send needs a relay")
        self.relays = relays
        self.options = options
    }

    public init(relay: any ChunkRelay, options: Options) {
        self.init(relays: [relay], options: options)
    }

    /// The same sender (sharing what it found), leaving its work folder for the caller to remove.
    func keepingWorkFolder() -> TransferSender {
        var copy = self
        copy.options.keepsWorkFolder = true
        return copy
    }

    /// The relay chunk `index` (0-based) is created on first.
    public func relay(forChunk index: Int) -> any ChunkRelay { relays[index % relays.count] }

    /// The relay chunk `index` is on, as `state` records it.
    func relay(forChunk index: Int, in state: SendState) -> any ChunkRelay {
        guard let recorded = state.chunks[index].relay, relays.indices.contains(recorded) else { return relay(forChunk: index) }
        return relays[recorded]
    }

    /// The relays to create chunk `index` on, in order: its own first, then the next ones, those
    /// found unreachable in this run last.
    func candidateRelays(forChunk index: Int) -> [Int] {
        let order = (0..<relays.count).map { (index + $0) % relays.count }
        let failed = order.filter { unreachable.contains(relays[$0].address) }
        return order.filter { !failed.contains($0) } + failed
    }

    /// The relays as the state records them: a rerun with other relays starts over.
    var relayIdentity: String { relays.map(\.address.description).joined(separator: " ") }

    /// The work folder of a send: one per (file, size, mtime, relay, recipients), so a rerun finds it.
    public func workFolder(for file: String) throws -> String {
        let st = try POSIXFile.status(file)
        let identity = "\(Path.absolute(file))\n\(st.st_size)\n\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)\n\(relayIdentity)\n\(options.recipients)"
        return Path.join(options.tempRoot, "sxkit-send-" + Hex.encode(SHA256Digest.of(Array(identity.utf8)).prefix(12)))
    }

    public func send(file: String, events: @escaping TransferEventHandler = { _ in }) async throws -> Result {
        do {
            return try await run(file: Path.absolute(file), events: events)
        } catch {
            events(.sndFileError(error: ErrorCause.text(of: error)))
            throw error
        }
    }

    /// The state an interrupted send of this version of `file` left, nil when there is none or it
    /// cannot be resumed (the send then starts over).
    private func resumableState(file: String, status st: stat, warn: (String) -> Void) throws -> SendState? {
        let size = Int64(st.st_size)
        let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
        guard let s = try SendState.load(Path.join(try workFolder(for: file), "state.json")) else { return nil }
        if s.source != file || s.sourceSize != size || s.relay != relayIdentity || s.recipients != options.recipients || s.sourceModified != modified {
            return nil  // belongs to another version of the file: start over
        }
        if Date().timeIntervalSince1970 - (s.started ?? 0) > Self.resumeWindow {
            // Its chunks may have expired on the relay (48 h by default), and a relay does not say
            // which are gone until a recipient asks: sending everything again is the safe answer.
            warn("the interrupted send of '\(file)' began over \(Int(Self.resumeWindow / 3600)) h ago; its chunks may have expired on the relay, so it starts over")
            return nil
        }
        // A state is a file on disk: sizes a send can have (1 to 4 MiB chunks, one record each), or start over.
        guard s.sizes.count == s.chunks.count, !s.sizes.isEmpty, s.sizes.allSatisfy({ (1...(4 << 20)).contains($0) }) else { return nil }
        if s.chunks.contains(where: { c in c.senderKey.map { Base64URL.decode($0).flatMap(ReplicaKey.init(der:)) == nil } ?? false }) {
            return nil  // an earlier sxkit recorded raw keys, which descriptions no longer carry: start over
        }
        return s
    }

    /// Refuses outputs that exist, unless they may be replaced: the descriptions of a send of `file`
    /// and `others` (what a caller writes beside them), except descriptions this very send wrote
    /// before it was killed (see `writtenByThisSend`), which its rerun finishes.
    public func checkOutputs(file: String, others: [String] = []) throws {
        let file = Path.absolute(file)
        if ownsOutputs(file: file) { return }
        let described = completedSend(file: file) != nil
        try options.outputPolicy.check((described ? [] : descriptionPaths(for: file).all) + others)
    }

    /// Whether the outputs of a send of `file` are those of this very send, which its rerun
    /// finishes: its state is complete and its descriptions are there or absent, each exactly what
    /// it writes (`writtenByThisSend`). What a caller wrote beside them after the first check
    /// (links) is then this send's work too: the first run refused any that were there.
    public func ownsOutputs(file: String) -> Bool {
        let file = Path.absolute(file)
        let state = (try? POSIXFile.status(file)).flatMap { st in (try? resumableState(file: file, status: st, warn: { _ in })) ?? nil }
        return writtenByThisSend(state, file: file)
    }

    private func run(file: String, events: @escaping TransferEventHandler) async throws -> Result {
        _ = SodiumRuntime.started
        guard options.recipients >= 1 else { throw UsageError("a transfer needs at least one recipient") }
        let st = try POSIXFile.status(file)
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw UsageError("'\(file)' is not a regular file") }
        let size = Int64(st.st_size)
        let decision = try TransferDecision.forFile(file, aboveSoftLimit: options.aboveSoftLimit)
        if let refusal = decision.refusal { throw refusal }
        try OutputFolder.check(options.descriptionFolder)
        let work = try workFolder(for: file)
        let statePath = Path.join(work, "state.json")
        var state = try resumableState(file: file, status: st, warn: { events(.sndFileWarning(warning: $0)) })
        if state == nil, let done = completedSend(file: file) {
            events(.sndFileStart(fileName: FileNameBytes.text(Path.basename(file)), fileSize: size, encryptedSize: done.encryptedSize, chunks: done.chunks))
            events(.sndFileCompleteXFTP(senderDescription: done.senderDescription, recipientDescriptions: done.recipientDescriptions,
                                        chunksUploaded: 0, alreadySent: true))
            return done
        }
        // Where the descriptions go is checked before anything is uploaded. Those this very send
        // wrote before a kill (its state is complete, and they are byte for byte what it writes)
        // are not in the way: the rerun finishes it.
        if !writtenByThisSend(state, file: file) { try options.outputPolicy.check(descriptionPaths(for: file).all) }
        try Folders.create(work, permissions: 0o700)
        let fresh = state == nil
        if fresh {
            // Key and nonce are kept from the start: encryption is deterministic for them, so a
            // resumed send re-encrypts and gets exactly the chunks it uploaded before.
            // The header carries text: a name that is not UTF-8 goes as its UTF-8 reading (U+FFFD for
            // each byte that is not), a name every receiver can write.
            let header = try TransferFileHeader(name: FileNameBytes.text(Path.basename(file)))
            let args = CryptoFileArgs.random()
            let plan: ChunkPlan
            if options.redirect != nil {
                let total = size + Int64(header.bytes.count) + TransferFileCrypto.overhead
                guard let single = ChunkPlan(singleChunkFor: total) else { throw TransferError.redirectTooLarge(bytes: size) }
                plan = single
            } else {
                plan = ChunkPlan(contentSize: size, header: header)
            }
            let modified = Double(st.st_mtim.tv_sec) + Double(st.st_mtim.tv_nsec) / 1e9
            state = SendState(source: file, sourceSize: size, sourceModified: modified, started: Date().timeIntervalSince1970,
                              relay: relayIdentity, recipients: options.recipients,
                              fileName: header.name, key: args.key.withUnsafeBytes { Base64URL.encode($0) }, nonce: Base64URL.encode(args.nonce),
                              fileDigest: nil, sizes: plan.sizes, chunks: plan.sizes.map { _ in SendState.Chunk() })
        }
        let store = try SendStateStore(state!, path: statePath, fresh: fresh)
        let total = state!.sizes.reduce(0, +)
        events(.sndFileStart(fileName: state!.fileName, fileSize: size, encryptedSize: total, chunks: state!.sizes.count))

        let alreadySent = zip(state!.chunks, state!.sizes).filter { $0.0.uploaded }.reduce(Int64(0)) { $0 + $1.1 }
        if alreadySent > 0 { events(.sndFileProgressXFTP(sentSize: alreadySent, totalSize: total)) }
        let uploads: Int
        if state!.fileDigest == nil || state!.chunks.contains(where: { !$0.uploaded }) {
            do {
                uploads = try await encryptAndUpload(file: file, state: state!, store: store, alreadySent: alreadySent, events: events)
            } catch let changed as SourceChanged {
                // The chunks on the relay are of the old content: the next run starts over.
                try? Folders.remove(work)
                throw CryptoFileError.changedWhileReading(path: changed.path)
            }
        } else {
            uploads = 0
        }

        let final = await store.state
        let (senderPath, recipientPaths) = try writeDescriptions(final, file: file)
        events(.sndFileCompleteXFTP(senderDescription: senderPath, recipientDescriptions: recipientPaths, chunksUploaded: uploads, alreadySent: false))
        if !options.keepsWorkFolder {
            try? Folders.remove(work)
            CrashPoint.reach("transfer-send-work-removed")
        }
        return Result(senderDescription: senderPath, recipientDescriptions: recipientPaths, encryptedSize: total,
                      chunksUploaded: uploads, chunks: final.sizes.count)
    }

    /// Encrypts the file on a thread of its own and uploads each chunk as soon as it is complete (at
    /// most `parallelChunks` uploads at once, the next chunk encrypting meanwhile), so the cipher, the
    /// digests and the network all work at the same time and no encrypted copy is written to disk.
    /// Chunks uploaded by an interrupted run are skipped once their digest matches the record.
    /// Returns how many chunks this run uploaded.
    private func encryptAndUpload(file: String, state: SendState, store: SendStateStore, alreadySent: Int64,
                                  events: @escaping TransferEventHandler) async throws -> Int {
        let args = try CryptoFileArgs(key: Base64URL.decode(state.key) ?? [], nonce: Base64URL.decode(state.nonce) ?? [])
        let header = try TransferFileHeader(name: state.fileName)
        let known = state.chunks.map { (digest: $0.digest, uploaded: $0.uploaded) }
        let total = state.sizes.reduce(0, +)
        let policy = options.policy
        let feed = ChunkFeed(inFlight: policy.parallelChunks)
        let encryption = Task {
            try await offloaded {
                defer { feed.finish() }
                return try TransferEncryption.stream(file: file, header: header, args: args, newBuffer: feed.buffer) { index, bytes, digest in
                    if let recorded = known[index].digest, recorded != Base64URL.encode(digest) { throw SourceChanged(path: file) }
                    if known[index].uploaded { return feed.recycle(bytes) }
                    try feed.offer(ChunkFeed.Item(index: index, bytes: bytes, digest: digest))
                }
            }
        }
        let counts = SendCounts(sent: alreadySent)
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for await item in feed.items {
                    group.addTask {
                        defer { feed.release(item.bytes) }
                        do {
                            try await upload(item, store: store, recipients: state.recipients, events: events)
                        } catch {
                            feed.stop()
                            throw error
                        }
                        counts.uploads.add(1, ordering: .relaxed)
                        let now = counts.sent.add(Int64(item.bytes.count), ordering: .relaxed).newValue
                        events(.sndFileProgressXFTP(sentSize: now, totalSize: total))
                        CrashPoint.reach("transfer-send-uploaded-chunk")
                    }
                }
                try await group.waitForAll()
            }
        } catch {
            feed.stop()
            _ = try? await encryption.value  // the encryption thread ends before the error goes up
            throw error
        }
        let encrypted = try await encryption.value
        try await store.update { s in
            s.fileDigest = Base64URL.encode(encrypted.fileDigest)
            for (i, digest) in encrypted.chunkDigests.enumerated() { s.chunks[i].digest = Base64URL.encode(digest) }
        }
        return counts.uploads.load(ordering: .relaxed)
    }

    /// Creates the chunk on the relay (once: the ids are recorded) and uploads its bytes, with retries.
    private func upload(_ item: ChunkFeed.Item, store: SendStateStore, recipients: Int, events: @escaping TransferEventHandler) async throws {
        let i = item.index
        let policy = options.policy
        let warn: @Sendable (String) -> Void = { events(.sndFileWarning(warning: "chunk \(i + 1): " + $0)) }
        var chunk = await store.state.chunks[i]
        if chunk.senderId == nil {
            // A fresh Ed25519 key per replica, as SimpleX's clients make (simplexmq Client/Main.hs 315-316);
            // the relay gets the public halves, the descriptions the private ones.
            let senderKey = ReplicaKey.generate()
            let recipientKeys = (0..<recipients).map { _ in ReplicaKey.generate() }
            let request = ChunkCreateRequest(size: Int64(item.bytes.count), digest: item.digest, senderKey: senderKey.ed25519PublicKey!,
                                             recipientKeys: recipientKeys.map { $0.ed25519PublicKey! }, senderPrivateKey: senderKey)
            let (created, chosen) = try await create(request, forChunk: i, warn: warn)
            guard created.recipientIds.count == recipients else {
                throw RelayError.protocolError(relay: relays[chosen].address.description,
                                               reason: "it answered \(created.recipientIds.count) recipient ids for \(recipients) keys")
            }
            try await store.record(SendStep(chunk: i, digest: Base64URL.encode(item.digest), senderId: Base64URL.encode(created.senderId),
                                            senderKey: senderKey.text,
                                            recipients: zip(created.recipientIds, recipientKeys).map { [Base64URL.encode($0), $1.text] },
                                            relay: chosen))
            chunk = await store.state.chunks[i]
        }
        let relay = self.relay(forChunk: i, in: await store.state)
        let sender = try SendState.replica(id: chunk.senderId, key: chunk.senderKey)
        try await policy.withRetries("upload", warn: warn) { try await relay.upload(sender, bytes: item.bytes) }
        try await store.record(SendStep(chunk: i, uploaded: true))
    }

    /// Creates the chunk on the first of its candidate relays that can be reached, each tried once
    /// in turn; a round in which none could be is retried with the policy's backoff. Returns the
    /// answer and the relay's place in `relays`. Only an unreachable relay hands the chunk on: one
    /// that answers with a refusal (quota, size, authorisation) stops the send with its sentence, as
    /// the agent stops on a permanent error.
    private func create(_ request: ChunkCreateRequest, forChunk i: Int, warn: @escaping @Sendable (String) -> Void) async throws -> (CreatedChunk, Int) {
        try await options.policy.withRetries("create", warn: warn) {
            let candidates = candidateRelays(forChunk: i)
            var failure: RelayError?
            for (k, r) in candidates.enumerated() {
                do {
                    let created = try await relays[r].create(request)
                    unreachable.forget(relays[r].address)
                    return (created, r)
                } catch let error as RelayError where error.isTransient {
                    unreachable.record(error, for: relays[r].address)
                    failure = error
                    if k + 1 < candidates.count {
                        warn("create: \(ErrorCause.text(of: error)); creating it on \(relays[candidates[k + 1]].address.withoutPassword) instead")
                    }
                }
            }
            throw failure!
        }
    }

    /// The descriptions a send of `file` writes, and those an earlier send with more recipients left.
    public func descriptionPaths(for file: String) -> (sender: String, recipients: [String], stale: [String], all: [String]) {
        let stem = Path.join(options.descriptionFolder, Path.basename(file))
        let recipients = (0..<options.recipients).map { stem + ".recipient-\($0 + 1).yaml" }
        let prefix = Path.basename(file) + ".recipient-"
        var stale: [String] = []
        for name in (try? Folders.names(in: options.descriptionFolder)) ?? []
        where name.hasPrefix(prefix) && name.hasSuffix(".yaml") {
            guard let n = Int(name.dropFirst(prefix.count).dropLast(5)), n > options.recipients else { continue }
            stale.append(Path.join(options.descriptionFolder, name))
        }
        stale.sort { $0.count != $1.count ? $0.count < $1.count : $0 < $1 }
        return (stem + ".sender.yaml", recipients, stale, [stem + ".sender.yaml"] + recipients + stale)
    }

    private func writeDescriptions(_ state: SendState, file: String) throws -> (String, [String]) {
        try OutputFolder.create(options.descriptionFolder)
        // Checked before the upload; again here, for descriptions that appeared meanwhile.
        let planned = descriptionPaths(for: file)
        if !writtenByThisSend(state, file: file) { try options.outputPolicy.check(planned.all) }
        let rendered = try renderDescriptions(state, file: file)
        for (path, bytes) in rendered {
            try AtomicFileWriter.write(bytes, to: path, mode: 0o600)
            if path == rendered[0].path { CrashPoint.reach("transfer-send-sender-described") }
        }
        CrashPoint.reach("transfer-send-described")
        // Replaced: the earlier send's extra recipients would otherwise look like this send's.
        for path in planned.stale where unlink(path) != 0 && errno != ENOENT { throw FileSystemError("remove", path: path) }
        return (rendered[0].path, rendered.dropFirst().map(\.path))
    }

    /// True when `state` is a complete send whose descriptions are all there or absent, each one
    /// that is there exactly the bytes it writes (a regular file), and no earlier send's extra
    /// recipient is left: what a run killed while writing its descriptions, or just after, leaves.
    private func writtenByThisSend(_ state: SendState?, file: String) -> Bool {
        guard let state, state.fileDigest != nil, state.chunks.allSatisfy(\.uploaded), descriptionPaths(for: file).stale.isEmpty,
              let rendered = try? renderDescriptions(state, file: file) else { return false }
        return rendered.allSatisfy { path, bytes in
            guard let st = POSIXFile.linkStatus(path) else { return true }
            return (st.st_mode & S_IFMT) == S_IFREG && (try? FileBytes.read(path, limit: bytes.count + 1)) == bytes
        }
    }

    /// The sender description, then each recipient's, as written: mode 0600 YAML (they grant access).
    private func renderDescriptions(_ state: SendState, file: String) throws -> [(path: String, bytes: [UInt8])] {
        // The state is a file on disk: whatever it holds is checked, never trusted to be whole.
        let unreadable = TransferError.stateMismatch(path: "state.json", reason: "it does not describe a finished send")
        guard state.sizes.count == state.chunks.count, !state.sizes.isEmpty, let fileDigest = state.fileDigest.flatMap(Base64URL.decode),
              let key = Base64URL.decode(state.key), let nonce = Base64URL.decode(state.nonce) else { throw unreadable }
        func description(_ party: FileDescription.Party, replica: (SendState.Chunk) throws -> ChunkReplica) throws -> FileDescription {
            let chunks = try state.chunks.enumerated().map { i, c in
                guard let digest = c.digest.flatMap(Base64URL.decode) else { throw unreadable }
                return FileDescription.Chunk(number: i + 1, size: state.sizes[i], digest: digest,
                                             replicas: [.init(server: relay(forChunk: i, in: state).address.withoutPassword, replica: try replica(c))])
            }
            return FileDescription(party: party, size: state.sizes.reduce(0, +), digest: fileDigest, key: key, nonce: nonce,
                                   chunkSize: state.sizes[0], chunks: chunks, redirect: options.redirect)
        }
        let stem = Path.join(options.descriptionFolder, Path.basename(file))
        var rendered = [(path: stem + ".sender.yaml",
                         bytes: Array(try description(.sender) { try SendState.replica(id: $0.senderId, key: $0.senderKey) }.yaml().utf8))]
        for r in 0..<state.recipients {
            let recipient = try description(.recipient) { chunk in
                guard let pair = chunk.recipients, r < pair.count, pair[r].count == 2 else { throw unreadable }
                return try SendState.replica(id: pair[r][0], key: pair[r][1])
            }
            rendered.append((stem + ".recipient-\(r + 1).yaml", Array(recipient.yaml().utf8)))
        }
        return rendered
    }

    /// Deletes every chunk of a sent file from its relays (the sender description is needed).
    /// Recipients then get "not found". Returns how many replicas were deleted.
    public static func cancel(_ description: FileDescription, path: String, relays: (RelayAddress) throws -> any ChunkRelay,
                              policy: TransferPolicy = TransferPolicy()) async throws -> Int {
        guard description.party == .sender else { throw TransferError.wrongParty(path: path, expected: .sender, found: description.party) }
        // Every relay is opened first: one that cannot be used stops the cancel before any request.
        let deletions = try description.chunks.flatMap { chunk in try chunk.replicas.map { (try relays($0.server), $0.replica) } }
        // Side by side, as a receive's acknowledgements go (each is one small request), and each is
        // tried even when another failed: deleting what is already gone succeeds, so a rerun after a
        // failure finishes the rest. A relay found unreachable (after the policy's retries) is not
        // asked again: its other deletions fail at once instead of each waiting out its timeouts.
        let unreachable = UnreachableRelays()
        let outcome = Mutex<(deleted: Int, failure: (any Error & Sendable)?)>((0, nil))
        await SideBySide.forEach(deletions.map { DeletionJob(relay: $0.0, replica: $0.1) }, atOnce: Self.deletionsInFlight) { job in
            let failure: (any Error & Sendable)?
            if let known = unreachable.error(for: job.relay.address) {
                failure = known
            } else {
                do {
                    try await policy.withRetries("delete", warn: { _ in }) { try await job.relay.delete(job.replica) }
                    failure = nil
                } catch {
                    if let error = error as? RelayError, error.isTransient { unreachable.record(error, for: job.relay.address) }
                    failure = error
                }
            }
            outcome.withLock { if let failure { $0.failure = $0.failure ?? failure } else { $0.deleted += 1 } }
        }
        let (deleted, failure) = outcome.withLock { ($0.deleted, $0.failure) }
        if let failure { throw failure }
        return deleted
    }

    /// Deletions sent at once by `cancel`.
    static let deletionsInFlight = 16

    private struct DeletionJob: Sendable {
        let relay: any ChunkRelay
        let replica: ChunkReplica
    }
}

/// Bytes sent (for progress) and chunks uploaded by this run, shared by the upload tasks.
private final class SendCounts: Sendable {
    let sent: Atomic<Int64>
    let uploads = Atomic<Int>(0)
    init(sent: Int64) { self.sent = Atomic(sent) }
}

/// The file no longer encrypts to the chunks recorded by the interrupted send.
private struct SourceChanged: Error {
    let path: String
}
