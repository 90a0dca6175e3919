import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// Every fault named in the issue, in the library: bad chunks, relays that stop, wrong keys, expiry,
/// cancel, and the size limits.
@Suite(.ownThreads)
struct TransferFaultTests {
    func sendOne(_ f: TransferFixture, relay: any ChunkRelay) async throws -> (TransferSender.Result, FileDescription) {
        let sent = try await f.sender(relay).send(file: f.source)
        return (sent, try FileDescription.load(sent.recipientDescriptions[0]))
    }

    /// A send that the relay cuts off after `uploads` uploads; returns the path of the state it left.
    func interruptedSend(_ f: TransferFixture, after uploads: Int) async throws -> String {
        let flaky = FaultyRelay(FolderRelay(root: f.relayRoot), failAfter: (.upload, uploads))
        await #expect(throws: RelayError.self) { try await f.sender(flaky).send(file: f.source) }
        return Path.join(try f.sender(flaky).workFolder(for: f.source), "state.json")
    }

    /// What the first recipient of `sent` gets from the folder relay.
    func receivedContent(_ f: TransferFixture, _ sent: TransferSender.Result) async throws -> [UInt8] {
        let description = try FileDescription.load(sent.recipientDescriptions[0])
        let got = try await f.receiver(FolderRelay(root: f.relayRoot)).receive(description, path: "d")
        return try f.temp.read("inbox/" + Path.basename(got.path))
    }

    /// Nothing in the inbox, not even a temp file.
    func expectNothingPlaced(_ f: TransferFixture) throws {
        #expect(try f.inbox().isEmpty)
    }

    /// An interrupted receive placed nothing; it kept the plaintext it had, 0600 under a temp name
    /// that no live run holds, for the rerun to resume from.
    func expectOnlyKeptPlaintext(_ f: TransferFixture, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let names = try f.inbox()
        #expect(names.count == 1 && names.allSatisfy { $0.hasPrefix(ReceiveLeftovers.incomingPrefix) }, "\(names)", sourceLocation: sourceLocation)
        for name in names {
            let path = f.temp.file("inbox/" + name)
            #expect(POSIXFile.linkStatus(path).map { $0.st_mode & 0o777 } == 0o600, sourceLocation: sourceLocation)
            #expect(TempOwnership.isStale(path), sourceLocation: sourceLocation)
        }
    }

    @Test("a chunk corrupted on the relay is re-fetched once, then reported; no plaintext is written")
    func corruptedChunk() async throws {
        let f = try TransferFixture()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        let victim = try #require(try f.relayDataFiles().first)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: victim)))
        bytes[10] ^= 1
        try Data(bytes).write(to: URL(fileURLWithPath: victim))
        let relay = FaultyRelay(FolderRelay(root: f.relayRoot))
        let log = EventLog()
        do {
            _ = try await f.receiver(relay).receive(description, path: "d", events: log.handler)
            Issue.record("a corrupted chunk was accepted")
        } catch let error as TransferError {
            guard case .chunkDigestMismatch = error else { Issue.record("unexpected \(error)"); return }
        }
        // Fetched twice: a warning after the first attempt, then the error.
        #expect(log.all.contains { if case .rcvFileWarning(let w) = $0 { w.contains("fetching it again") } else { false } })
        #expect(log.types.last == "rcvFileError")
        try expectNothingPlaced(f)
    }

    @Test("a chunk truncated on the relay is detected by its digest; no plaintext is written")
    func truncatedChunk() async throws {
        let f = try TransferFixture()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        let victim = try #require(try f.relayDataFiles().first)
        #expect(truncate(victim, 1000) == 0)
        do {
            _ = try await f.receiver(FolderRelay(root: f.relayRoot)).receive(description, path: "d")
            Issue.record("a truncated chunk was accepted")
        } catch let error as TransferError {
            guard case .chunkDigestMismatch = error else { Issue.record("unexpected \(error)"); return }
        }
        try expectNothingPlaced(f)
    }

    @Test("a chunk corrupted in transit once is fetched again and the file arrives")
    func corruptedOnce() async throws {
        let f = try TransferFixture()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        let log = EventLog()
        let got = try await f.receiver(FaultyRelay(FolderRelay(root: f.relayRoot), corruptDownloads: 1)).receive(description, path: "d", events: log.handler)
        #expect(try f.temp.read("inbox/" + Path.basename(got.path)) == f.content)
        #expect(log.types.contains("rcvFileWarning"))
    }

    @Test("the relay stops in the middle of a send; the rerun finishes without re-sending finished chunks")
    func relayStopsDuringSend() async throws {
        let f = try TransferFixture()
        let flaky = FaultyRelay(FolderRelay(root: f.relayRoot), failAfter: (.upload, 2))
        let log = EventLog()
        await #expect(throws: RelayError.self) { try await f.sender(flaky).send(file: f.source, events: log.handler) }
        #expect(log.types.contains("sndFileWarning") && log.types.last == "sndFileError")
        #expect(try f.relayDataFiles().count == 2)

        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let resumed = try await f.sender(counting).send(file: f.source)
        #expect(resumed.chunks == 5)
        #expect(resumed.chunksUploaded == 3)
        #expect(counting.count(.upload) == 3)
        #expect(try await receivedContent(f, resumed) == f.content)
    }

    @Test("the send's steps are logged one line each: a line cut short by a kill is ignored, a foreign one refused")
    func sendStateLog() async throws {
        let f = try TransferFixture()
        let statePath = try await interruptedSend(f, after: 2)
        let logPath = SendStateStore.logPath(statePath)
        let logged = try String(contentsOfFile: logPath, encoding: .utf8)
        // Created and uploaded: chunks 1 and 2; the third was created, its upload failed.
        #expect(logged.split(separator: "\n").count >= 5, "\(logged)")
        let state = try #require(try SendState.load(statePath))
        #expect(state.chunks.filter(\.uploaded).count == 2)
        #expect(state.chunks.filter { $0.senderId != nil }.count >= 3)

        // A kill in the middle of the next line's write: the torn step is ignored.
        let log = try #require(FileHandle(forWritingAtPath: logPath))
        log.seekToEndOfFile()
        log.write(Data(#"{"chunk":4,"uploa"#.utf8))
        try log.close()
        #expect(try SendState.load(statePath)?.chunks == state.chunks)

        // Killed before its first step reached the log: an empty log adds nothing (taking the
        // prefix of length -1 of it trapped: `make stress` found transfer send reruns dying by SIGILL).
        try Data().write(to: URL(fileURLWithPath: logPath))
        let snapshot = try #require(try SendState.load(statePath))
        try FileManager.default.removeItem(atPath: logPath)
        #expect(try SendState.load(statePath) == snapshot)

        // A complete line that is not a step of this send is an error, not a guess.
        try Data((logged + #"{"chunk":99,"uploaded":true}"# + "\n").utf8).write(to: URL(fileURLWithPath: logPath))
        #expect(throws: TransferError.self) { try SendState.load(statePath) }

        // Back to the torn log: the rerun resumes from it, sends the 3 chunks left, and folds the log in.
        try Data((logged + #"{"chunk":4,"uploa"#).utf8).write(to: URL(fileURLWithPath: logPath))
        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let resumed = try await f.sender(counting).send(file: f.source)
        #expect(resumed.chunksUploaded == 3 && counting.count(.upload) == 3)
        #expect(!FileManager.default.fileExists(atPath: logPath))
        #expect(try await receivedContent(f, resumed) == f.content)
    }

    @Test("the state records its format: one without it (an earlier sxkit's) resumes, one of a later format is refused and kept")
    func sendStateFormat() async throws {
        let f = try TransferFixture()
        let statePath = try await interruptedSend(f, after: 2)
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as? [String: Any])
        #expect(state["format"] as? Int == 1)

        state["format"] = 2
        let later = try JSONSerialization.data(withJSONObject: state)
        try later.write(to: URL(fileURLWithPath: statePath))
        let relay = FaultyRelay(FolderRelay(root: f.relayRoot))
        do {
            _ = try await f.sender(relay).send(file: f.source)
            Issue.record("a state of a later format was resumed")
        } catch {
            #expect("\(error)".contains("written by a later sxkit, in state format 2 where this one reads up to 1"), "\(error)")
        }
        #expect(relay.count(.upload) == 0 && relay.count(.create) == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: statePath)) == later, "left for the later sxkit to finish")

        state["format"] = nil
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: statePath))
        let resumed = try await f.sender(relay).send(file: f.source)
        #expect(resumed.chunksUploaded == 3)
        #expect(try await receivedContent(f, resumed) == f.content)
    }

    @Test("an interrupted send older than a day starts over: its first chunks may have expired on the relay")
    func staleSendStartsOver() async throws {
        let f = try TransferFixture()
        let statePath = try await interruptedSend(f, after: 2)
        var state = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: statePath))) as? [String: Any])
        state["started"] = Date().timeIntervalSince1970 - TransferSender.resumeWindow - 60
        try JSONSerialization.data(withJSONObject: state).write(to: URL(fileURLWithPath: statePath))
        let log = EventLog()
        let resumed = try await f.sender(FolderRelay(root: f.relayRoot)).send(file: f.source, events: log.handler)
        #expect(resumed.chunksUploaded == resumed.chunks)
        #expect(log.all.contains { if case .sndFileWarning(let w) = $0 { return w.contains("starts over") } else { return false } })
    }

    @Test("a file rewritten between an interrupted send and its rerun (same size and time) is refused, then sent afresh")
    func sourceChangedBeforeResume() async throws {
        let f = try TransferFixture()
        _ = try await interruptedSend(f, after: 1)
        // Same size, same modification time, other bytes in the second chunk: only the digests tell.
        let before = try POSIXFile.status(f.source)
        var changed = f.content
        changed[300_000] ^= 0xFF
        try Data(changed).write(to: URL(fileURLWithPath: f.source))
        var times = [before.st_atim, before.st_mtim]
        #expect(utimensat(AT_FDCWD, f.source, &times, 0) == 0)
        await #expect(throws: CryptoFileError.changedWhileReading(path: f.source)) { try await f.sender(FolderRelay(root: f.relayRoot)).send(file: f.source) }
        // The refused run dropped its state: the next one starts over with a new key and sends it all.
        let fresh = try await f.sender(FolderRelay(root: f.relayRoot)).send(file: f.source)
        #expect(fresh.chunksUploaded == fresh.chunks)
        #expect(try await receivedContent(f, fresh) == changed)
    }

    @Test("the relay folder disappears in the middle of a send; back again, the rerun completes")
    func folderVanishesDuringSend() async throws {
        let f = try TransferFixture()
        let moved = f.temp.file("relay-unmounted")
        let log = EventLog()
        let handler: TransferEventHandler = { event in
            log.handler(event)
            if case .sndFileProgressXFTP(let sent, _) = event, sent > 0 { rename(f.relayRoot, moved) }
        }
        let sender = TransferSender(relay: FolderRelay(root: f.relayRoot), options: .init(
            descriptionFolder: f.temp.file("descriptions"), tempRoot: f.temp.file("send-tmp"),
            policy: TransferPolicy(parallelChunks: 1, attempts: 2, firstBackoff: .milliseconds(1))))
        await #expect(throws: RelayError.self) { try await sender.send(file: f.source, events: handler) }
        #expect(rename(moved, f.relayRoot) == 0)
        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let resumed = try await f.sender(counting).send(file: f.source)
        #expect(resumed.chunksUploaded == 4)
        #expect(counting.count(.upload) == 4)
    }

    @Test("the relay stops in the middle of a receive; the rerun fetches only the missing chunks")
    func relayStopsDuringReceive() async throws {
        let f = try TransferFixture()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        let flaky = FaultyRelay(FolderRelay(root: f.relayRoot), failAfter: (.download, 3))
        await #expect(throws: RelayError.self) { try await f.receiver(flaky).receive(description, path: "d") }
        try expectOnlyKeptPlaintext(f)
        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let got = try await f.receiver(counting).receive(description, path: "d")
        #expect(got.chunksDownloaded == 2 && counting.count(.download) == 2)
        #expect(try f.temp.read("inbox/" + Path.basename(got.path)) == f.content)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("recv-tmp")).isEmpty)
    }

    @Test("the relay folder disappears in the middle of a receive; back again, the rerun fetches only the rest")
    func folderVanishesDuringReceive() async throws {
        let f = try TransferFixture()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        let moved = f.temp.file("relay-unmounted")
        let handler: TransferEventHandler = { event in
            if case .rcvFileProgressXFTP(let received, _) = event, received > 0 { rename(f.relayRoot, moved) }
        }
        let receiver = TransferReceiver(options: .init(destination: f.temp.file("inbox"), tempRoot: f.temp.file("recv-tmp"),
                                                       policy: TransferPolicy(parallelChunks: 1, attempts: 2, firstBackoff: .milliseconds(1))),
                                        relays: { _ in FolderRelay(root: f.relayRoot) })
        await #expect(throws: RelayError.self) { try await receiver.receive(description, path: "d", events: handler) }
        try expectOnlyKeptPlaintext(f)
        #expect(rename(moved, f.relayRoot) == 0)
        let counting = FaultyRelay(FolderRelay(root: f.relayRoot))
        let got = try await f.receiver(counting).receive(description, path: "d")
        #expect(got.chunksDownloaded == 4 && counting.count(.download) == 4)
        #expect(try f.temp.read("inbox/" + Path.basename(got.path)) == f.content)
    }

    @Test("a wrong recipient key is refused by the relay")
    func wrongRecipientKey() async throws {
        let f = try TransferFixture(size: 1000)
        var (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        description.chunks[0].replicas[0].replica.key = ReplicaKey.generate()
        let log = EventLog()
        await #expect(throws: RelayError.wrongKey(relay: f.relayRoot, id: description.chunks[0].replicas[0].replica.idText)) {
            try await f.receiver(FolderRelay(root: f.relayRoot)).receive(description, path: "d", events: log.handler)
        }
        #expect(log.types.last == "rcvFileError")
        try expectNothingPlaced(f)
    }

    @Test("expired chunks are not found")
    func expired() async throws {
        let f = try TransferFixture(size: 1000)
        let clock = TestClock()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot, now: clock.now))
        clock.advance(FolderRelay.defaultExpiry)
        let log = EventLog()
        await #expect(throws: RelayError.self) {
            try await f.receiver(FolderRelay(root: f.relayRoot, now: clock.now)).receive(description, path: "d", events: log.handler)
        }
        #expect(log.types.last == "rcvFileSndCancelled")
        #expect(try f.relayDataFiles().isEmpty)
    }

    @Test("after the sender cancels, recipients get 'not found' and nothing is left on the relay")
    func cancel() async throws {
        let f = try TransferFixture()
        let relay = FolderRelay(root: f.relayRoot)
        let (sent, description) = try await sendOne(f, relay: relay)
        let deleted = try await TransferSender.cancel(try FileDescription.load(sent.senderDescription), path: sent.senderDescription, relays: { _ in relay })
        #expect(deleted == 5)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.relayRoot).isEmpty)
        let log = EventLog()
        await #expect(throws: RelayError.self) { try await f.receiver(relay).receive(description, path: "d", events: log.handler) }
        #expect(log.types.last == "rcvFileSndCancelled")
    }

    @Test("a file over the 1 GiB soft limit is refused naming it; allowing more reaches up to 5 GiB (sparse files, plan only)")
    func sizeLimits() async throws {
        let f = try TransferFixture(size: 10)
        let big = f.temp.file("big.bin")
        #expect(FileManager.default.createFile(atPath: big, contents: nil))
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTP + 1)) == 0)
        let expected = TransferError.tooLarge(size: SimpleXLimits.maxFileSizeXFTP + 1, limitName: "MAX_FILE_SIZE_XFTP", limit: SimpleXLimits.maxFileSizeXFTP)
        await #expect(throws: expected) { try await f.sender(FolderRelay(root: f.relayRoot)).send(file: big) }
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("send-tmp")).isEmpty)
        #expect(try TransferDecision.forFile(big, aboveSoftLimit: true).method == .relay)
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTPHard)) == 0)
        #expect(try TransferDecision.forFile(big, aboveSoftLimit: true).method == .relay)
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTPHard + 1)) == 0)
        let hard = try TransferDecision.forFile(big, aboveSoftLimit: true)
        #expect(hard.method == .refused && hard.methodLimitName == "MAX_FILE_SIZE_XFTP_HARD")
    }

    @Test("a file whose SHA-512 does not match is refused before decrypting")
    func fileDigest() async throws {
        let f = try TransferFixture(size: 1000)
        var (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        description.digest[0] ^= 1
        await #expect(throws: TransferError.fileDigestMismatch(path: "d")) {
            try await f.receiver(FolderRelay(root: f.relayRoot)).receive(description, path: "d")
        }
        try expectNothingPlaced(f)
    }

    @Test("a second receive of a file while the first runs is refused at once; it neither waits nor writes into the first's folder")
    func concurrentReceiveOfOneFile() async throws {
        let f = try TransferFixture()
        let (_, description) = try await sendOne(f, relay: FolderRelay(root: f.relayRoot))
        let receiver = f.receiver(FolderRelay(root: f.relayRoot))
        // A live first run: its work folder exists and is locked (flock locks of two opens conflict,
        // also within one process).
        let work = receiver.workFolder(for: description)
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        let first = open(work, O_RDONLY | O_CLOEXEC | O_DIRECTORY)
        #expect(first >= 0 && flock(first, LOCK_EX) == 0)
        await #expect(throws: TransferError.receiveInProgress(workFolder: work)) {
            try await receiver.receive(description, path: "d")
        }
        try expectNothingPlaced(f)
        #expect(FileManager.default.fileExists(atPath: work), "the first run's folder is left to it")
        // Once the first run is gone, the receive goes ahead. Its lock is let go as a run lets go
        // (`release`): only `close` would leave it held by any child another test is spawning now.
        TempOwnership.release(first)
        let got = try await receiver.receive(description, path: "d")
        #expect(try f.temp.read("inbox/" + Path.basename(got.path)) == f.content)
    }
}
