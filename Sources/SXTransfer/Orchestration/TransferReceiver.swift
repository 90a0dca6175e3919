import Foundation
import Synchronization
import SXCore
import SXCrypto

/// Receives a file from its recipient description: downloads the chunks (parallel, bounded, with
/// retries), checks each chunk's SHA-256 (fetching a bad one once more), decrypts in file order as the
/// chunks arrive (into a 0600 temp file), checks the whole file's SHA-512 and the tag, and only then
/// places the file — atomically, so the destination never holds partial or unverified plaintext. A
/// rerun after an interruption fetches only what is missing: the first chunk is kept in a work folder
/// under `tempRoot` and the plaintext written so far in its temp file (see `KeptPlaintext`); when the
/// file is decrypted after the download instead, every chunk is kept there until it is read.
public struct TransferReceiver: Sendable {
    public struct Options: Sendable {
        /// A folder (the sender's file name is used) or a file path; nil is the current folder.
        public var destination: String?
        public var tempRoot: String
        public var policy: TransferPolicy
        /// Whether the received file may replace an existing one (atomically, once verified).
        public var outputPolicy = OutputPolicy.refuse
        /// Decrypt each chunk as soon as the chunks before it are here, when the disk has room for
        /// the chunks and the plaintext at once; otherwise (or when false) decrypt after the download.
        public var decryptWhileDownloading = true
        /// Acknowledgements sent at once: each is one small request, and HTTP/2 carries them side by side.
        public var acknowledgementsInFlight = 16

        public init(destination: String? = nil, tempRoot: String, policy: TransferPolicy = TransferPolicy()) {
            self.destination = destination
            self.tempRoot = tempRoot
            self.policy = policy
        }
    }

    public struct Result: Sendable, Equatable {
        public let path: String
        public let fileName: String
        public let fileSize: Int64
        /// Chunks downloaded by this run (a resumed run skips those already here and verified).
        public let chunksDownloaded: Int
        /// The destination already held this very file (byte for byte), as after a run killed once it
        /// had placed it and tidied up: nothing was written.
        public var alreadyPresent = false
    }

    public let options: Options
    /// Opens the relay a replica names.
    public let relays: @Sendable (RelayAddress) throws -> any ChunkRelay
    /// Counts the decryption (its totals are set when it starts); the download is told by events.
    public var decryptProgress: ProgressTracker?

    public init(options: Options, relays: @escaping @Sendable (RelayAddress) throws -> any ChunkRelay) {
        self.options = options
        self.relays = relays
    }

    public func receive(_ description: FileDescription, path: String, events: @escaping TransferEventHandler = { _ in }) async throws -> Result {
        do {
            return try await run(description, path: path, events: events)
        } catch let error as RelayError {
            if error.isGoneFromRelay { events(.rcvFileSndCancelled(error: ErrorCause.text(of: error))) } else { events(.rcvFileError(error: ErrorCause.text(of: error))) }
            throw error
        } catch {
            events(.rcvFileError(error: ErrorCause.text(of: error)))
            throw error
        }
    }

    public func workFolder(for description: FileDescription) -> String {
        let identity = description.digest + (description.chunks.first?.replicas.first?.replica.id ?? [])
        return Path.join(options.tempRoot, "sxkit-receive-" + Hex.encode(SHA256Digest.of(identity).prefix(12)))
    }

    /// Where the description a redirect names is kept, from its download until the file it names is
    /// received (the redirect's own chunk is acknowledged, so gone from the relay, by then).
    public func redirectFolder(for description: FileDescription) -> String { workFolder(for: description) + "-redirect" }

    static let keptRedirectName = "description.yaml"

    /// Removes what receives of `description` keep for a rerun: its work folder and, through a
    /// redirect, the work folder of the file it names. The description a redirect named is removed
    /// too unless `keepingRedirect`: without it a later receive cannot find the file again.
    /// A folder a receive still uses (it holds its lock) is left alone.
    public func removeLeftovers(of description: FileDescription, keepingRedirect: Bool) {
        var folders = [workFolder(for: description)]
        if let named = keptRedirectDescription(for: description) { folders.append(workFolder(for: named)) }
        if description.redirect != nil, !keepingRedirect { folders.append(redirectFolder(for: description)) }
        for folder in folders where POSIXFile.linkStatus(folder) != nil {
            guard let fd = try? ReceiveLeftovers.hold(folder) else { continue }
            try? Folders.remove(folder)
            TempOwnership.release(fd)
        }
    }

    private func run(_ description: FileDescription, path: String, events: @escaping TransferEventHandler) async throws -> Result {
        _ = SodiumRuntime.started
        guard description.party == .recipient else { throw TransferError.wrongParty(path: path, expected: .recipient, found: description.party) }
        do {
            try description.validate()
            try description.checkLimits()
        } catch {
            throw TransferError.badDescription(path: path, problem: error)
        }
        guard !description.chunks.isEmpty else { throw TransferError.badDescription(path: path, problem: .noChunks) }
        if let redirect = description.redirect {
            // The redirect's description is kept until the file it names is received: its chunk was
            // acknowledged (gone from the relay), so a run interrupted after it resumes from this copy.
            // SimpleX's agent likewise keeps the named description in its store before it downloads a
            // chunk of it (simplexmq `src/Simplex/FileTransfer/Agent.hs` 318-321, `updateRcvFileRedirect`).
            let folder = redirectFolder(for: description)
            // Held across both receives: a second receive of the same link is refused rather than
            // sharing the folder, and no sweep of stale work folders takes it meanwhile.
            let lock = try ReceiveLeftovers.hold(folder)
            defer { TempOwnership.release(lock) }
            do {
                let named = try await follow(description, redirect: redirect, folder: folder, path: path, events: events)
                CrashPoint.reach("transfer-receive-redirect-followed")
                let result = try await run(named, path: path, events: events)
                try? Folders.remove(folder)
                return result
            } catch let error as RelayError where error.isGoneFromRelay {
                // The sender cancelled the file or it expired: what the link names can no longer be
                // received, and its description (which holds the file's key) is of no more use.
                try? Folders.remove(folder)
                throw error
            } catch {
                rmdir(folder)  // only when empty: a kept description stays for the rerun
                throw error
            }
        }
        let args = try description.cryptoArgs()
        if let done = try await finishPlaced(description, events: events) { return done }
        let (folder, fixedName) = try destination(for: description)
        // Every relay is opened before anything is created: one that cannot be used stops the receive here.
        for server in Set(description.chunks.flatMap { $0.replicas.map(\.server) }) { _ = try relays(server) }
        let work = workFolder(for: description)
        let workLock = try ReceiveLeftovers.hold(work)
        var failed = true
        defer { ReceiveLeftovers.release(work, fd: workLock, failed: failed) }
        // The plaintext an interrupted run kept, locked before the sweep could take it for a stale temp.
        var kept = KeptPlaintext.claim(in: work, folder: folder)
        defer { if let kept { TempOwnership.release(kept.fd) } }
        ReceiveLeftovers.sweep(destination: folder, tempRoot: options.tempRoot)
        events(.rcvFileStart(encryptedSize: description.size, chunks: description.chunks.count))

        let chunkPath: @Sendable (Int) -> String = { Path.join(work, "chunk-\($0 + 1)") }
        // Resume: chunks already here and matching their digest are kept.
        var have: [Int] = []
        for (i, chunk) in description.chunks.enumerated() where Self.matches(chunkPath(i), chunk) { have.append(i) }
        let largest = description.chunks.map(\.size).max() ?? 0
        // Decrypting while downloading keeps only the first chunk on disk (see KeptPlaintext); without
        // room for the plaintext, the chunks are all kept and the file decrypted afterwards, each
        // chunk deleted as it is read.
        let firstMissing = have.contains(0) ? 0 : description.chunks[0].size
        let keptBytes = kept.flatMap { POSIXFile.linkStatus($0.path) }.map { Int64($0.st_size) } ?? 0
        let inOrder = options.decryptWhileDownloading
            && hasRoom(plaintext: description.size - min(keptBytes, description.size), chunks: firstMissing, destination: folder, work: work)
        if !inOrder {
            let missingBytes = description.chunks.indices.reduce(Int64(0)) { have.contains($1) ? $0 : $0 + description.chunks[$1].size }
            try requireRoom(plaintext: description.size, chunks: missingBytes, largestChunk: largest, destination: folder, work: work, path: path)
        }
        // The kept plaintext gives back the chunks it covers, each checked against its digest.
        var regenerator: ChunkRegenerator?
        var regenerated = 0..<0
        // Read through a descriptor of its own: the writer that takes the file over turns O_DIRECT
        // on for its descriptor, which unaligned reads would fail under.
        let keptReader = kept.map { open($0.path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) } ?? -1
        defer { if keptReader >= 0 { close(keptReader) } }
        if kept != nil, inOrder, have.contains(0), keptReader >= 0,
           let plan = ChunkRegenerator(firstChunk: chunkPath(0), chunkSizes: description.chunks.map(\.size), encryptedSize: description.size,
                                       args: args, kept: keptReader) {
            let digests = description.chunks.map(\.digest)
            let count = try await offloaded { try plan.verifiedCount(digests: digests, scratch: AlignedBuffer(capacity: Int(largest))) }
            if count > 0 {
                regenerator = plan
                regenerated = 1..<count  // the first chunk comes from its file
            }
        }
        if regenerator == nil, let claimed = kept {
            unlink(claimed.path)
            TempOwnership.release(claimed.fd)
            kept = nil
            KeptPlaintext.forget(in: work)
        }
        var streamed: (writer: AtomicFileWriter, decryptor: TransferFileDecryptor)?
        // Set for failures that condemn the plaintext written so far (a digest or the tag): it is
        // removed rather than kept for a rerun.
        var discardPlaintext = false
        if inOrder {
            let alreadyWritten = regenerator?.contentBytes(before: regenerated.upperBound) ?? 0
            let writer: AtomicFileWriter
            if let claimed = kept, regenerator != nil {
                kept = nil  // the writer owns its descriptor now
                writer = try AtomicFileWriter(adopting: claimed.path, descriptor: claimed.fd, destination: Path.join(folder, "incoming"),
                                              length: alreadyWritten, mode: 0o600)
            } else {
                // 0600 from its creation: partial plaintext is never readable by others.
                writer = try AtomicFileWriter(destination: Path.join(folder, "incoming"), mode: 0o600)
            }
            writer.bypassPageCache = true
            do {
                // Kept for a rerun however this run stops (an error, Ctrl-C, a kill), until verified.
                try KeptPlaintext.record(writer.tempPath, in: work)
                writer.keepIfInterrupted()
                streamed = (writer, try TransferFileDecryptor(encryptedSize: description.size, args: args, output: writer, name: path,
                                                              progress: decryptProgress, contentAlreadyWritten: alreadyWritten))
                decryptProgress?.setTotals(items: nil, bytes: description.size - Int64(TransferFileCrypto.tagLength))
            } catch {
                writer.abort()
                KeptPlaintext.forget(in: work)
                throw error
            }
        }
        // Downloaded chunks wait in memory until the digest and the decryption took them in order:
        // one buffer more than downloads in flight lets the next download start while the oldest
        // chunk is taken in. A second one (tried for the decryption) made 1 GiB receives no faster
        // (88-94 MB/s against 93-98 with one, alternating runs) and held a chunk (4 MiB) more at the peak.
        let pool = ChunkBufferPool(count: options.policy.parallelChunks + 1, capacity: Int(largest))
        let fileDigest = InOrderFileHasher(segments: description.chunks.indices.map(chunkPath), pool: pool, decryptor: streamed?.decryptor)
        defer {
            // The decryption may still be writing: it stops before its temp file is let go.
            if failed, let streamed {
                fileDigest.drain()
                // Nothing decrypted yet (a relay that refused at once, say): nothing worth keeping.
                if discardPlaintext || streamed.writer.bytesWritten == 0 {
                    streamed.writer.abort()
                    KeptPlaintext.forget(in: work)
                } else {
                    streamed.writer.abandon()
                }
            }
        }
        for i in have where !regenerated.contains(i) { fileDigest.ready(i) }
        if let regenerator {
            for i in regenerated {
                let buffer = await pool.take()
                do {
                    try await offloaded { try regenerator.regenerate(i, into: buffer) }
                } catch {
                    pool.give(buffer)
                    throw error
                }
                fileDigest.ready(i, buffer: buffer)
            }
        }
        let here = Set(have).union(regenerated)
        let counts = ReceiveCounts(received: here.reduce(Int64(0)) { $0 + description.chunks[$1].size })
        if !here.isEmpty { events(.rcvFileProgressXFTP(receivedSize: counts.received.load(ordering: .relaxed), totalSize: description.size)) }
        let relays = self.relays
        let policy = options.policy
        let missing = description.chunks.indices.filter { !here.contains($0) }
        do {
            try await withThrowingTaskGroup(of: Void.self) { group in
                var running = 0
                for i in missing {
                    if running == policy.parallelChunks {
                        try await group.next()
                        running -= 1
                    }
                    // Taken here, in chunk order, never inside the tasks: see ChunkBufferPool.
                    let buffer = await pool.take()
                    running += 1
                    group.addTask {
                        var handedOver = false
                        defer { if !handedOver { pool.give(buffer) } }
                        let chunk = description.chunks[i]
                        let warn: @Sendable (String) -> Void = { events(.rcvFileWarning(warning: "chunk \(i + 1): " + $0)) }
                        var verified = false
                        // A chunk that fails its digest is fetched once more (from the next replica when there is one).
                        for attempt in 0..<2 where !verified {
                            let replica = chunk.replicas[attempt % chunk.replicas.count]
                            let relay = try relays(replica.server)
                            try await policy.withRetries("download", warn: warn) { try await relay.download(replica.replica, into: buffer) }
                            counts.downloads.add(1, ordering: .relaxed)
                            verified = try await offloaded { Self.matches(buffer, chunk) }
                            if !verified && attempt == 0 { warn("its SHA-256 does not match; fetching it again") }
                        }
                        guard verified else { throw TransferError.chunkDigestMismatch(chunk: chunk.number, relay: chunk.replicas[0].server.description) }
                        handedOver = true
                        if inOrder && i > 0 {
                            // Taken by the digest and the decryption only: a rerun gets it back from the
                            // kept plaintext (KeptPlaintext), so it is not written to disk.
                            fileDigest.ready(i, buffer: buffer)
                        } else {
                            // The digest and the decryption take the chunk now, while it is also written
                            // to disk (kept for a resumed run, around the page cache); its buffer goes
                            // back once all three are done with it.
                            let written = fileDigest.ready(i, buffer: buffer, alsoReading: true)
                            defer { written() }
                            let target = chunkPath(i)
                            try await offloaded {
                                let part = target + ".part"
                                do {
                                    try POSIXFile.writeFileDirect(part, buffer.bytes)
                                    guard rename(part, target) == 0 else { throw FileSystemError("rename", path: part) }
                                } catch {
                                    unlink(part)  // a full disk leaves no half chunk behind
                                    throw error
                                }
                            }
                        }
                        let now = counts.received.add(chunk.size, ordering: .relaxed).newValue
                        events(.rcvFileProgressXFTP(receivedSize: now, totalSize: description.size))
                        CrashPoint.reach("transfer-receive-downloaded-chunk")
                    }
                }
                try await group.waitForAll()
            }
        } catch TransferError.chunkDigestMismatch(let chunk, let relay) {
            // The relay keeps serving other bytes than the sender's: no interruption to resume from.
            discardPlaintext = true
            throw TransferError.chunkDigestMismatch(chunk: chunk, relay: relay)
        } catch let error as FileSystemError where error.isNoSpace {
            // A full disk (the first chunk's, in the temp folder): the plaintext would only hold on to
            // space the user must free, and a full disk leaves nothing at the destination.
            discardPlaintext = true
            throw error
        }

        // The whole file's SHA-512 (computed while downloading), before any plaintext is published
        // (and, when decrypting afterwards, before any decryption).
        let segments = description.chunks.indices.map(chunkPath)
        guard ConstantTime.equal(try fileDigest.finish(), description.digest) else {
            for segment in segments { unlink(segment) }
            discardPlaintext = true
            throw TransferError.fileDigestMismatch(path: path)
        }

        // Publish only after the tag checked; until then the plaintext is in a temp file in the
        // destination folder, 0600 from its creation.
        let writer: AtomicFileWriter
        let header: TransferFileHeader
        if let streamed {
            writer = streamed.writer
            do {
                header = try fileDigest.finishDecryption()
            } catch {
                discardPlaintext = true
                throw error
            }
        } else {
            writer = try AtomicFileWriter(destination: Path.join(folder, "incoming"), mode: 0o600)
            writer.bypassPageCache = true
            // The chunks go as they are decrypted: the plaintext takes over their disk space.
            decryptProgress?.setTotals(items: nil, bytes: description.size - Int64(TransferFileCrypto.tagLength))
            header = try TransferFileCrypto.decrypt(segments: segments, encryptedSize: description.size, args: args, to: writer,
                                                    consumingSegments: true, progress: decryptProgress)
        }
        let final = try fixedName.map { Path.join(folder, $0) } ?? Path.join(folder, Self.safeName(header.name))
        var alreadyPresent = false
        do {
            try writer.finishWriting(flush: true)
            try PlacedFile(path: final, fileName: header.name, status: POSIXFile.status(writer.tempPath)).write(into: work)
            if options.outputPolicy.replaceExisting {
                if let st = POSIXFile.linkStatus(final), (st.st_mode & S_IFMT) == S_IFDIR { throw TransferError.destinationExists(path: final) }
                guard rename(writer.tempPath, final) == 0 else { throw FileSystemError("replace", path: final) }
                writer.abort()  // the temp name is gone already; nothing is removed
            } else {
                // link(2) never replaces: an existing file is kept and reported.
                if link(writer.tempPath, final) != 0 {
                    guard errno == EEXIST else { throw FileSystemError("create", path: final) }
                    // The very bytes verified here are already there (a run killed after it had placed
                    // the file and tidied up): done. Anything else is someone's file, kept and reported.
                    guard try FileComparison.identical(final, writer.tempPath) else { throw TransferError.destinationExists(path: final) }
                    alreadyPresent = true
                    // The placed file is that one, not the temp file: a rerun after a kill from here
                    // on finishes from the record instead of downloading again.
                    try PlacedFile(path: final, fileName: header.name, status: POSIXFile.status(final)).write(into: work)
                }
                writer.abort()  // removes the temp name; the file stays under its final name
            }
            try POSIXFile.fsyncDirectory(folder)
        } catch {
            PlacedFile.remove(from: work)
            writer.abort()
            throw error
        }
        let size = try Int64(POSIXFile.status(final).st_size)
        CrashPoint.reach("transfer-receive-placed")
        // The file is here and verified: the relays may forget this recipient (best effort, as the
        // xftp CLI acknowledges after decrypting: simplexmq `Client/Main.hs` 439-441, 470-475). Before
        // the work folder goes, so that a run killed among the acknowledgements is finished by the
        // rerun from `placed.json` rather than asking relays for chunks they have already forgotten.
        await acknowledge(description)
        CrashPoint.reach("transfer-receive-acknowledged")
        try? Folders.remove(work)
        failed = false
        CrashPoint.reach("transfer-receive-work-removed")
        events(.rcvFileComplete(path: final, fileName: header.name, fileSize: size, alreadyPresent: alreadyPresent))
        var result = Result(path: final, fileName: header.name, fileSize: size, chunksDownloaded: counts.downloads.load(ordering: .relaxed))
        result.alreadyPresent = alreadyPresent
        return result
    }

    /// Tells the relays this recipient has the file (FACK), as the xftp CLI does once the file is
    /// verified; it acknowledges each chunk's first replica, one after another (simplexmq
    /// `Client/Main.hs` 439-441, 470-475). Here every replica of every chunk (a copy this recipient
    /// no longer needs), up to `options.acknowledgementsInFlight` at once: over Tor a round trip takes about
    /// a second, and a 1 GiB file has 256 chunks. A relay that cannot be reached is not asked again
    /// in this run. Best effort: a chunk not acknowledged stays until the relay's expiry.
    private func acknowledge(_ description: FileDescription) async {
        let unreachable = UnreachableRelays()
        let relays = self.relays
        await SideBySide.forEach(description.chunks.flatMap(\.replicas), atOnce: options.acknowledgementsInFlight) { replica in
            guard !unreachable.contains(replica.server), let relay = try? relays(replica.server) else { return }
            do {
                try await relay.acknowledge(replica.replica)
            } catch let error as RelayError where error.isTransient {
                unreachable.record(error, for: replica.server)
            } catch {}
        }
    }

    /// Downloads the file a redirect description names — itself the recipient description of the real
    /// file — and checks it as SimpleX's agent does (simplexmq `src/Simplex/FileTransfer/Agent.hs`
    /// 293-321): a valid recipient description whose size and digest are the redirect's, and no
    /// redirect of its own (simplex-chat forbids chains).
    private func follow(_ outer: FileDescription, redirect: FileDescription.Redirect, folder: String, path: String,
                        events: @escaping TransferEventHandler) async throws -> FileDescription {
        var direct = outer
        direct.redirect = nil
        let file = Path.join(folder, Self.keptRedirectName)
        let receiver = TransferReceiver(options: Options(destination: file, tempRoot: options.tempRoot, policy: options.policy), relays: relays)
        // The redirect's own start and completion are not the user's file's: only its progress is told.
        let progressOnly: TransferEventHandler = { event in
            switch event {
            case .rcvFileStart, .rcvFileComplete: break
            default: events(event)
            }
        }
        if POSIXFile.exists(file) {
            // An earlier run received it (it is placed only once verified); one killed before it had
            // acknowledged the redirect's chunk is finished first.
            _ = try? await receiver.finishPlaced(direct, events: progressOnly)
            if let kept = try? Self.named(by: file, redirect: redirect, path: path) { return kept }
            try? Folders.remove(file)  // not what the redirect names: received again
        }
        // A redirect's file is a description: one chunk as SimpleX sends it (simplexmq `Agent.hs`
        // 442-446, `singleChunkSize`); anything larger is refused before a byte is downloaded.
        guard outer.size <= ChunkPlan.largestChunkSize else {
            throw TransferError.badRedirect(path: path, reason: "the file it names is \(outer.size) bytes, more than a description is sent as (one chunk of at most \(ChunkPlan.largestChunkSize))")
        }
        _ = try await receiver.run(direct, path: path, events: progressOnly)
        do {
            return try Self.named(by: file, redirect: redirect, path: path)
        } catch {
            try? Folders.remove(file)  // not a description of the file the redirect names: nothing to keep
            throw error
        }
    }

    /// The description a redirect named, as an interrupted receive of it kept it; nil when none is
    /// kept or it is not the one the redirect names.
    public func keptRedirectDescription(for outer: FileDescription) -> FileDescription? {
        guard let redirect = outer.redirect else { return nil }
        return try? Self.named(by: Path.join(redirectFolder(for: outer), Self.keptRedirectName), redirect: redirect, path: "")
    }

    /// The description in `file`, checked against the redirect that named it.
    private static func named(by file: String, redirect: FileDescription.Redirect, path: String) throws -> FileDescription {
        let bytes = try FileBytes.read(file, limit: TransferReceiverLimits.descriptionBytes)
        guard let text = String(validating: bytes, as: UTF8.self) else { throw TransferError.badRedirect(path: path, reason: "the file it names is not a description (not UTF-8)") }
        let inner: FileDescription
        do {
            inner = try FileDescription.parse(yaml: text)
        } catch {
            throw TransferError.badRedirect(path: path, reason: "the file it names is not a valid description: \(ErrorCause.text(of: error))")
        }
        guard inner.party == .recipient else { throw TransferError.badRedirect(path: path, reason: "the file it names is a sender description") }
        guard inner.redirect == nil else { throw TransferError.badRedirect(path: path, reason: "it names another redirect (chains are not allowed)") }
        guard inner.size == redirect.size else { throw TransferError.badRedirect(path: path, reason: "size mismatch: the description it names is for \(inner.size) bytes, the redirect says \(redirect.size)") }
        guard ConstantTime.equal(inner.digest, redirect.digest) else { throw TransferError.badRedirect(path: path, reason: "digest mismatch between the redirect and the description it names") }
        return inner
    }

    /// The destination folder, and the file name when a file path was given.
    private func destination(for description: FileDescription) throws -> (String, String?) {
        guard let given = options.destination else { return (Path.currentDirectory, nil) }
        let absolute = Path.absolute(given)
        // `-o name/`: a folder, created when missing.
        if OutputFolder.isFolderSyntax(given) {
            try OutputFolder.create(absolute)
            return (absolute, nil)
        }
        if POSIXFile.exists(absolute) {
            if Folders.isFolder(absolute) { return (absolute, nil) }
            // Refused before any download, unless it may be this very file (a run killed once it had
            // placed it and tidied up): then the receive goes on and compares at the end.
            if !options.outputPolicy.replaceExisting && !Self.mayHold(description, absolute) { throw TransferError.destinationExists(path: absolute) }
        }
        return (Path.parent(absolute), Path.basename(absolute))
    }

    /// Whether the file at `path` has a size the description's plaintext can have: the encrypted size
    /// less the stream's overhead, the header (its name kept under 64 KiB here) and the padding (less
    /// than one chunk: simplexmq `Client/Main.hs` `prepareChunkSizes`).
    static func mayHold(_ description: FileDescription, _ path: String) -> Bool {
        guard let st = POSIXFile.linkStatus(path), (st.st_mode & S_IFMT) == S_IFREG else { return false }
        let most = description.size - TransferFileCrypto.overhead
        let largest = description.chunks.map(\.size).max() ?? 0
        return Int64(st.st_size) <= most && Int64(st.st_size) > most - largest - (64 << 10)
    }

    /// A run killed once its file was in place, before its work folder went, is finished: the file
    /// at the recorded path is the one it placed (same device and inode), and where this run would
    /// put it. Nil otherwise (the receive runs as usual).
    private func finishPlaced(_ description: FileDescription, events: @escaping TransferEventHandler) async throws -> Result? {
        let work = workFolder(for: description)
        guard let placed = PlacedFile.found(in: work) else { return nil }
        let wanted: Bool
        if let given = options.destination {
            let absolute = Path.absolute(given)
            wanted = OutputFolder.isFolderSyntax(given) || Folders.isFolder(absolute)
                ? Path.parent(placed.path) == absolute : placed.path == absolute
        } else {
            wanted = Path.parent(placed.path) == Path.currentDirectory
        }
        guard wanted else { return nil }
        let lock = try ReceiveLeftovers.hold(work)
        await acknowledge(description)
        try? Folders.remove(work)
        TempOwnership.release(lock)
        events(.rcvFileComplete(path: placed.path, fileName: placed.fileName, fileSize: placed.size, alreadyPresent: false))
        return Result(path: placed.path, fileName: placed.fileName, fileSize: placed.size, chunksDownloaded: 0)
    }

    /// The sender's name, used only when it is a plain file name.
    static func safeName(_ name: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else { throw TransferError.unsafeFileName(name) }
        return name
    }

    /// Whether `destination` can take the plaintext while the chunks still to download are on
    /// `work`'s file system too, with 64 MiB to spare (an unknown answer is no).
    func hasRoom(plaintext: Int64, chunks: Int64, destination: String, work: String) -> Bool {
        let spare: Int64 = 64 << 20
        guard let free = try? FreeSpace.availableBytes(at: destination) else { return false }
        let workFolder = POSIXFile.linkStatus(work) != nil ? work : options.tempRoot
        let shared = POSIXFile.linkStatus(destination).map { d in POSIXFile.linkStatus(workFolder).map { $0.st_dev == d.st_dev } ?? true } ?? true
        let (alongside, overflow1) = (shared ? chunks : 0).addingReportingOverflow(spare)
        let (need, overflow2) = plaintext.addingReportingOverflow(alongside)
        return !overflow1 && !overflow2 && need <= free
    }

    /// Refuses up front when even decrypting after the download cannot fit: the chunks still to
    /// download on `work`'s file system, and the plaintext in `destination`. On one file system the
    /// plaintext takes over the chunks' space as they are read, so one chunk more is all it adds.
    /// Both with `FreeSpace.spareBytes` to spare.
    func requireRoom(plaintext: Int64, chunks: Int64, largestChunk: Int64, destination: String, work: String, path: String) throws {
        let shared = POSIXFile.linkStatus(destination).map { d in POSIXFile.linkStatus(work).map { $0.st_dev == d.st_dev } ?? true } ?? true
        try FreeSpace.require([(chunks, work), (shared ? largestChunk : plaintext, destination)], for: "receiving the file of '\(path)'")
    }

    static func matches(_ buffer: AlignedBuffer, _ chunk: FileDescription.Chunk) -> Bool {
        Int64(buffer.count) == chunk.size && ConstantTime.equal(SHA256Digest.of(buffer.bytes), chunk.digest)
    }

    static func matches(_ path: String, _ chunk: FileDescription.Chunk) -> Bool {
        guard let st = POSIXFile.linkStatus(path), Int64(st.st_size) == chunk.size else { return false }
        var sha = SHA256Digest()
        guard (try? hash(path, { sha.update($0) })) != nil else { return false }
        return ConstantTime.equal(sha.finish(), chunk.digest)
    }

    static func hash(_ path: String, _ update: (UnsafeRawBufferPointer) -> Void) throws {
        let fd = try POSIXFile.open(path, flags: O_RDONLY)
        defer { close(fd) }
        POSIXFile.adviseSequential(fd)
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let n = try POSIXFile.read(fd, into: &buffer, path: path)
            if n == 0 { break }
            buffer.withUnsafeBytes { update(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
        }
    }
}

/// Bytes here (for progress) and chunks downloaded by this run, shared by the download tasks.
private final class ReceiveCounts: Sendable {
    let received: Atomic<Int64>
    let downloads = Atomic<Int>(0)
    init(received: Int64) { self.received = Atomic(received) }
}
