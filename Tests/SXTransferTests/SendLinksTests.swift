import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXTransfer

/// The links a send writes beside its recipient descriptions (`SendLinks`): the chat's redirect rule,
/// the files' names, a direct link for one chunk, a redirect for more, and the overwrite rule.
@Suite(.ownThreads)
struct SendLinksTests {
    func links(_ f: TransferFixture, _ relay: any ChunkRelay, recipients: Int = 1, replacing: Bool = false,
               kinds: [SendLinks.Kind] = [.simplex]) -> SendLinks {
        SendLinks(sender: f.sender(relay, recipients: recipients, replacing: replacing), kinds: kinds)
    }

    @Test("a description needs a redirect for a simplex link unless it is exactly one chunk")
    func redirectRule() async throws {
        let f = try TransferFixture(size: 20_000)
        let relay = FolderRelay(root: f.relayRoot)
        var one = try FileDescription.load(try await f.sender(relay).send(file: f.source).recipientDescriptions[0])
        #expect(one.chunks.count == 1 && !FileDescriptionLink.needsRedirect(one))
        let two = one.chunks[0]
        one.chunks.append(FileDescription.Chunk(number: 2, size: two.size, digest: two.digest, replicas: two.replicas))
        #expect(FileDescriptionLink.needsRedirect(one))
        one.chunks = []
        #expect(FileDescriptionLink.needsRedirect(one))
    }

    @Test("link files are named after the file and the recipient, in the description folder")
    func naming() {
        #expect(SendLinks.linkFile(folder: "/d", file: "/x/report.pdf", recipient: 2, kind: .web) == "/d/report.pdf.recipient-2.web-link.txt")
        #expect(SendLinks.linkFile(folder: "/d", file: "report.pdf", recipient: 1, kind: .simplex) == "/d/report.pdf.recipient-1.simplex-link.txt")
        #expect(SendLinks.redirectSenderDescription(folder: "/d", file: "/x/report.pdf", recipient: 3) == "/d/report.pdf.recipient-3.redirect.sender.yaml")
        #expect(SendLinks(sender: TransferFixture.dummySender, kinds: [.web, .simplex, .web]).kinds == [.simplex, .web])
    }

    @Test("one chunk: a direct simplex link whose desc= is the recipient description written beside it")
    func directLink() async throws {
        let f = try TransferFixture(size: 20_000)
        let (sent, made) = try await links(f, FolderRelay(root: f.relayRoot)).send(file: f.source)
        let link = try #require(made.first)
        #expect(made.count == 1 && link.kind == .simplex && link.redirectSenderDescription == nil)
        #expect(link.file == f.temp.file("descriptions/report.pdf.recipient-1.simplex-link.txt"))
        #expect(try FileBytes.read(link.file, limit: 1 << 20) == Array((link.link + "\n").utf8))
        #expect(try POSIXFile.status(link.file).st_mode & 0o777 == 0o600)
        #expect(link.link.hasPrefix("simplex:/file#/?desc="))
        let described = try FileDescription.load(sent.recipientDescriptions[0])
        #expect(try FileDescriptionLink.parse(link.link).description == described)
        #expect(!POSIXFile.exists(f.temp.file("descriptions/report.pdf.recipient-1.redirect.sender.yaml")))
    }

    @Test("several chunks: the simplex link goes through a redirect, which receive follows to the file")
    func redirectedLink() async throws {
        let f = try TransferFixture()
        let relay = FolderRelay(root: f.relayRoot)
        let (sent, made) = try await links(f, relay, recipients: 2).send(file: f.source)
        #expect(made.map(\.recipientDescription) == sent.recipientDescriptions)
        for (i, link) in made.enumerated() {
            let senderPath = f.temp.file("descriptions/report.pdf.recipient-\(i + 1).redirect.sender.yaml")
            #expect(link.redirectSenderDescription == senderPath)
            #expect(try POSIXFile.status(senderPath).st_mode & 0o777 == 0o600)
            #expect(try FileDescription.load(senderPath).party == .sender)
            let direct = try FileDescription.load(sent.recipientDescriptions[i])
            let outer = try FileDescriptionLink.parse(link.link).description
            #expect(direct.chunks.count > 1 && outer.chunks.count == 1)
            #expect(outer.redirect == FileDescription.Redirect(size: direct.size, digest: direct.digest))
        }
        let outer = try FileDescription.load(made[1].file)
        _ = try await f.receiver(relay).receive(outer, path: made[1].file)
        #expect(try f.temp.read("inbox/report.pdf") == f.content)
    }

    @Test("a web link to a folder relay is refused before anything is uploaded")
    func webNeedsXFTP() async throws {
        let f = try TransferFixture(size: 20_000)
        await #expect(throws: TransferError.webLinkNeedsXFTPServer(relay: f.relayRoot)) {
            try await links(f, FolderRelay(root: f.relayRoot), kinds: [.simplex, .web]).send(file: f.source)
        }
        #expect(try f.relayDataFiles().isEmpty)
        #expect(try Folders.names(in: f.temp.file("descriptions")).isEmpty)
    }

    @Test("an existing link file is refused before the upload; replacing removes what the earlier send left")
    func overwriteRule() async throws {
        let f = try TransferFixture(size: 20_000)
        let relay = FolderRelay(root: f.relayRoot)
        let folder = f.temp.file("descriptions")
        let inTheWay = try f.temp.write("descriptions/report.pdf.recipient-1.simplex-link.txt", Array("old\n".utf8))
        await #expect(throws: ExistingOutputError(paths: [inTheWay])) { try await links(f, relay).send(file: f.source) }
        #expect(try f.relayDataFiles().isEmpty)
        #expect(try Folders.names(in: folder) == ["report.pdf.recipient-1.simplex-link.txt"])

        // Two recipients, then one: the second recipient's link, and a redirect sender description a
        // one-chunk send does not write, are the earlier send's and go.
        _ = try await links(f, relay, recipients: 2, replacing: true).send(file: f.source)
        let leftover = try f.temp.write("descriptions/report.pdf.recipient-1.redirect.sender.yaml", Array("old\n".utf8))
        let (_, made) = try await links(f, relay, replacing: true).send(file: f.source)
        #expect(try Folders.names(in: folder).sorted() == ["report.pdf.recipient-1.simplex-link.txt", "report.pdf.recipient-1.yaml", "report.pdf.sender.yaml"])
        #expect(!POSIXFile.exists(leftover))
        #expect(try FileBytes.read(made[0].file, limit: 1 << 20) == Array((made[0].link + "\n").utf8))
    }
}

extension TransferFixture {
    /// A sender that is never run: for what needs only its options.
    static var dummySender: TransferSender {
        TransferSender(relay: FolderRelay(root: "/nonexistent"), options: .init(descriptionFolder: "/d", tempRoot: "/t"))
    }
}
