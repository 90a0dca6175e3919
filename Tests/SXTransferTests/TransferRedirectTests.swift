import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// Redirect descriptions: the file they name is the recipient description of the real file
/// (simplexmq `Agent.hs` 366-379 makes them; 293-321 follows them). Built here as the agent builds
/// them: the inner description's YAML sent as a file, the outer one given `redirect: {size, digest}`.
@Suite(.ownThreads)
struct TransferRedirectTests {
    struct Redirected {
        let outer: FileDescription
        let inner: FileDescription
    }

    func redirected(_ f: TransferFixture, relay: FolderRelay, edit: (inout FileDescription.Redirect) -> Void = { _ in }) async throws -> Redirected {
        let sent = try await f.sender(relay, replacing: true).send(file: f.source)
        let inner = try FileDescription.load(sent.recipientDescriptions[0])
        let direct = try f.temp.write("direct.yaml", Array(inner.yaml().utf8))
        let viaRelay = try await f.sender(relay, replacing: true).send(file: direct)
        var outer = try FileDescription.load(viaRelay.recipientDescriptions[0])
        var redirect = FileDescription.Redirect(size: inner.size, digest: inner.digest)
        edit(&redirect)
        outer.redirect = redirect
        // It survives its own YAML.
        let reread = try FileDescription.parse(yaml: outer.yaml())
        #expect(reread.redirect == redirect && outer.yaml().contains("redirect:\n  digest: "))
        return Redirected(outer: reread, inner: inner)
    }

    @Test("receive follows a redirect to the real file; its start and completion are the real file's")
    func follows() async throws {
        let f = try TransferFixture()
        let relay = FolderRelay(root: f.relayRoot)
        let r = try await redirected(f, relay: relay)
        let log = EventLog()
        let got = try await f.receiver(relay).receive(r.outer, path: "outer.yaml", events: log.handler)
        #expect(got.fileName == "report.pdf")
        #expect(try f.temp.read("inbox/report.pdf") == f.content)
        #expect(try f.inbox() == ["report.pdf"], "the redirect's own file is not left anywhere")
        #expect(log.types.filter { $0 == "rcvFileStart" }.count == 1 && log.types.filter { $0 == "rcvFileComplete" }.count == 1)
        #expect(log.all.contains(.rcvFileStart(encryptedSize: r.inner.size, chunks: r.inner.chunks.count)))
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("recv-tmp")).isEmpty)
    }

    @Test("a redirect whose file does not match its size or digest is refused; nothing is placed")
    func mismatch() async throws {
        let f = try TransferFixture(size: 5000)
        let relay = FolderRelay(root: f.relayRoot)
        let wrongSize = try await redirected(f, relay: relay) { $0.size += 1 }
        await #expect(throws: TransferError.badRedirect(path: "o", reason: "size mismatch: the description it names is for \(wrongSize.inner.size) bytes, the redirect says \(wrongSize.inner.size + 1)")) {
            try await f.receiver(relay).receive(wrongSize.outer, path: "o")
        }
        let wrongDigest = try await redirected(f, relay: relay) { $0.digest[0] ^= 1 }
        await #expect(throws: TransferError.badRedirect(path: "o", reason: "digest mismatch between the redirect and the description it names")) {
            try await f.receiver(relay).receive(wrongDigest.outer, path: "o")
        }
        #expect(try f.inbox().isEmpty)
        // What the refused redirect named is not kept: it is not a description of the file.
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("recv-tmp")).isEmpty)
    }

    @Test("chains and files that are not descriptions are refused")
    func chainsAndJunk() async throws {
        let f = try TransferFixture(size: 3000)
        let relay = FolderRelay(root: f.relayRoot)
        let first = try await redirected(f, relay: relay)
        // A redirect to a redirect: simplex-chat refuses chains.
        let chainFile = try f.temp.write("chain.yaml", Array(first.outer.yaml().utf8))
        var chain = try FileDescription.load(try await f.sender(relay, replacing: true).send(file: chainFile).recipientDescriptions[0])
        chain.redirect = .init(size: first.outer.size, digest: first.outer.digest)
        await #expect(throws: TransferError.badRedirect(path: "c", reason: "it names another redirect (chains are not allowed)")) {
            try await f.receiver(relay).receive(chain, path: "c")
        }
        // A redirect to a file that is not a description at all.
        var junk = try FileDescription.load(try await f.sender(relay, replacing: true).send(file: f.source).recipientDescriptions[0])
        junk.redirect = .init(size: 1000, digest: [1, 2, 3])
        await #expect(throws: TransferError.self) { try await f.receiver(relay).receive(junk, path: "j") }
        #expect(try f.inbox().isEmpty)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("recv-tmp")).isEmpty)
        // A redirect whose own file is larger than a description is ever sent as: refused before any download.
        let big = try f.temp.write("big.bin", [UInt8](repeating: 7, count: Int(ChunkPlan.largestChunkSize)))
        var huge = try FileDescription.load(try await f.sender(relay, replacing: true).send(file: big).recipientDescriptions[0])
        huge.redirect = .init(size: 1000, digest: [1, 2, 3])
        let relayed = FaultyRelay(relay)
        await #expect(throws: TransferError.badRedirect(path: "h", reason: "the file it names is \(huge.size) bytes, more than a description is sent as (one chunk of at most \(ChunkPlan.largestChunkSize))")) {
            try await f.receiver(relayed).receive(huge, path: "h")
        }
        #expect(relayed.count(.download) == 0)
    }
}

/// A receive through a redirect that stops after the redirect was followed: the redirect's chunk is
/// acknowledged by then, and an XFTP server forgets an acknowledged recipient, so the rerun must find
/// the description it named where the first run kept it (as SimpleX's agent keeps it in its store,
/// simplexmq `Agent.hs` 318-321).
@Suite(.ownThreads)
struct RedirectResumeTests {
    @Test("a receive stopped inside the file a redirect names resumes without the redirect's chunk, then tidies up")
    func resumesAfterTheRedirectWasAcknowledged() async throws {
        let f = try TransferFixture()
        let folder = FolderRelay(root: f.relayRoot)
        let r = try await TransferRedirectTests().redirected(f, relay: folder)
        #expect(r.inner.chunks.count > 1)
        // The redirect's own chunk, then one chunk of the file; the next download fails.
        let stopping = FaultyRelay(folder, failAfter: (.download, 2), forgetsAcknowledged: true)
        var options = TransferReceiver.Options(destination: f.temp.file("inbox"), tempRoot: f.temp.file("recv-tmp"),
                                               policy: TransferPolicy(parallelChunks: 1, attempts: 1, firstBackoff: .milliseconds(1)))
        options.decryptWhileDownloading = true
        let first = TransferReceiver(options: options, relays: { _ in stopping })
        await #expect(throws: RelayError.self) { try await first.receive(r.outer, path: "link.txt") }
        #expect(stopping.acknowledgedCount == 1, "the redirect's chunk was acknowledged")
        let kept = first.redirectFolder(for: r.outer)
        #expect(try FileDescription.load(Path.join(kept, "description.yaml")) == r.inner)
        // What the resume note tells: the named file's chunks, and the folder keeping its description.
        let note = try #require(first.kept(for: r.outer))
        #expect(note.total == r.inner.chunks.count && note.chunks >= 1 && note.redirectFolder == kept && note.workFolder == first.workFolder(for: r.inner))
        #expect(try FileManager.default.attributesOfItem(atPath: Path.join(kept, "description.yaml"))[.posixPermissions] as? Int == 0o600)

        // The same relay, working again but still without the acknowledged chunk.
        stopping.heal()
        let log = EventLog()
        let got = try await TransferReceiver(options: options, relays: { _ in stopping }).receive(r.outer, path: "link.txt", events: log.handler)
        #expect(got.fileName == "report.pdf" && got.chunksDownloaded < r.inner.chunks.count, "resumed: \(got.chunksDownloaded) chunks downloaded")
        #expect(try f.temp.read("inbox/report.pdf") == f.content)
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("recv-tmp")).isEmpty, "the kept description goes with the work")
        #expect(log.types.filter { $0 == "rcvFileComplete" }.count == 1)
    }

    @Test("a kept description that is not the one the redirect names is downloaded again")
    func aWrongKeptDescriptionIsNotTrusted() async throws {
        let f = try TransferFixture(size: 5000)
        let relay = FolderRelay(root: f.relayRoot)
        let r = try await TransferRedirectTests().redirected(f, relay: relay)
        let receiver = f.receiver(relay)
        let kept = receiver.redirectFolder(for: r.outer)
        try FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
        var other = r.inner
        other.digest[0] ^= 1  // a valid description, of another file
        try Data(other.yaml().utf8).write(to: URL(fileURLWithPath: Path.join(kept, "description.yaml")))
        let got = try await receiver.receive(r.outer, path: "link.txt")
        #expect(got.fileName == "report.pdf" && got.chunksDownloaded == r.inner.chunks.count)
        #expect(try f.temp.read("inbox/report.pdf") == f.content)
        #expect(!POSIXFile.exists(kept))
    }
}
