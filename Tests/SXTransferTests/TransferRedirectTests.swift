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
    }
}
