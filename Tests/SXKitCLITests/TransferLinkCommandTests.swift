import Foundation
import Testing
import SXCore
import SXTestSupport
import SXTransfer

/// `transfer send --link simplex|web` through `relay serve` on loopback: the links SimpleX makes,
/// direct for one chunk and through a redirect for more, received by `transfer receive`, and the
/// descriptions' overwrite rule for the link files.
@Suite(.ownThreads)
struct TransferLinkCommandTests {
    struct Setup {
        let folder: TempFolder
        let server: XFTPResumeCommandTests.Server

        init() throws {
            folder = try TempFolder()
            server = try XFTPResumeCommandTests.Server(store: folder.file("store"), listen: "127.0.0.1:0")
            for sub in ["desc", "inbox", "inbox2", "tmp"] { try Folders.create(folder.file(sub)) }
        }

        func send(_ name: String, _ extra: [String], environment: [String: String] = [:]) throws -> CLIResult {
            try CLI.run(["transfer", "send", folder.file(name), "--server", server.address, "-o", folder.file("desc"),
                         "--temp-dir", folder.file("tmp")] + extra, environment: environment)
        }

        func text(_ name: String) throws -> String { String(decoding: try folder.read(name), as: UTF8.self) }

        var storeLog: [UInt8] { (try? folder.read("store/store.log")) ?? [] }
    }

    @Test func aOneChunkFileGetsDirectLinksThatReceive() throws {
        let s = try Setup()
        defer { s.server.kill9() }
        let content = testBytes(20_000, seed: 21)
        _ = try s.folder.write("note.txt", content)
        let sent = try s.send("note.txt", ["--recipients", "2", "--link", "simplex", "--link", "web"])
        #expect(sent.status == 0, "\(sent.stderr)")

        let simplex = try s.text("desc/note.txt.recipient-1.simplex-link.txt")
        let web = try s.text("desc/note.txt.recipient-1.web-link.txt")
        #expect(simplex.hasPrefix("simplex:/file#/?desc=") && simplex.hasSuffix("\n") && simplex.filter { $0 == "\n" }.count == 1)
        #expect(web.hasPrefix("https://127.0.0.1/#") && web.hasSuffix("\n"))
        for name in ["note.txt.recipient-1.simplex-link.txt", "note.txt.recipient-2.web-link.txt"] {
            #expect(try POSIXFile.status(s.folder.file("desc/" + name)).st_mode & 0o777 == 0o600, "\(name)")
        }
        // One chunk: no redirect; the link carries the description written beside it.
        #expect(!POSIXFile.exists(s.folder.file("desc/note.txt.recipient-1.redirect.sender.yaml")))
        let described = try FileDescription.load(s.folder.file("desc/note.txt.recipient-1.yaml"))
        #expect(described.chunks.count == 1)
        #expect(try FileDescriptionLink.parse(simplex).description == described)
        #expect(try FileDescriptionLink.parse(web).description == described)
        // The link files' paths and the links, the first recipient's web link last as the xftp CLI prints it.
        #expect(sent.stdout.contains("simplex link for recipient 1: \(s.folder.file("desc/note.txt.recipient-1.simplex-link.txt"))\n" + simplex))
        #expect(sent.stdout.contains("web link for recipient 2: \(s.folder.file("desc/note.txt.recipient-2.web-link.txt"))\n"
            + (try s.text("desc/note.txt.recipient-2.web-link.txt"))))
        #expect(sent.stdout.hasSuffix("\n\nWeb link:\n" + web), "\(sent.stdout)")
        #expect(sent.stdout.contains("holds the file's key"))

        // A description downloads once: the simplex link of recipient 1, the web link of recipient 2.
        let bySimplex = try CLI.run(["transfer", "receive", s.folder.file("desc/note.txt.recipient-1.simplex-link.txt"), "-o", s.folder.file("inbox"),
                                     "--temp-dir", s.folder.file("tmp")])
        #expect(bySimplex.status == 0, "\(bySimplex.stderr)")
        #expect(try s.folder.read("inbox/note.txt") == content)
        let byWeb = try CLI.run(["transfer", "receive", s.folder.file("desc/note.txt.recipient-2.web-link.txt"), "-o", s.folder.file("inbox2"),
                                 "--temp-dir", s.folder.file("tmp")])
        #expect(byWeb.status == 0, "\(byWeb.stderr)")
        #expect(try s.folder.read("inbox2/note.txt") == content)
    }

    @Test func aFileOfSeveralChunksLinksThroughARedirect() throws {
        let s = try Setup()
        defer { s.server.kill9() }
        let content = testBytes(600 << 10, seed: 22)
        _ = try s.folder.write("photos.zip", content)
        let sent = try s.send("photos.zip", ["--link", "simplex", "--link", "web", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let lines = sent.stdout.split(separator: "\n").map { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(lines.allSatisfy { $0 != nil }, "\(sent.stdout)")
        #expect(lines.filter { $0?["type"] as? String == "sndFileCompleteXFTP" }.count == 1, "the redirect's events are not the file's")
        let last = try #require(lines.last ?? nil)
        #expect(last["type"] as? String == "sndFileLinks")
        let links = try #require(last["links"] as? [[String: Any]])
        let desc = s.folder.file("desc/photos.zip.recipient-1.yaml")
        let redirectSender = s.folder.file("desc/photos.zip.recipient-1.redirect.sender.yaml")
        #expect(links.count == 2)
        #expect(links.map { $0["kind"] as? String } == ["simplex", "web"])
        #expect(links.allSatisfy { $0["recipientDescription"] as? String == desc })
        #expect(links[0]["file"] as? String == s.folder.file("desc/photos.zip.recipient-1.simplex-link.txt"))
        #expect(links[0]["redirectSenderDescription"] as? String == redirectSender)
        #expect(links[1]["redirectSenderDescription"] is NSNull, "present, null: \(links[1])")
        #expect(links[1]["file"] as? String == s.folder.file("desc/photos.zip.recipient-1.web-link.txt"))

        let direct = try FileDescription.load(desc)
        #expect(direct.chunks.count > 1)
        let simplex = try s.text("desc/photos.zip.recipient-1.simplex-link.txt")
        #expect(links[0]["link"] as? String == simplex.trimmingCharacters(in: .newlines))
        let outer = try FileDescriptionLink.parse(simplex).description
        #expect(outer.chunks.count == 1 && outer.redirect == FileDescription.Redirect(size: direct.size, digest: direct.digest))
        #expect(try FileDescription.load(redirectSender).party == .sender)
        #expect(try POSIXFile.status(redirectSender).st_mode & 0o777 == 0o600)
        let info = try CLI.run(["transfer", "info", s.folder.file("desc/photos.zip.recipient-1.simplex-link.txt")])
        #expect(info.stdout.contains("redirect:") && info.stdout.contains("chunks:     1 "), "\(info.stdout)")
        // The web link needs no redirect: the description itself, compressed.
        #expect(try FileDescriptionLink.parse(try s.text("desc/photos.zip.recipient-1.web-link.txt")).description == direct)

        let got = try CLI.run(["transfer", "receive", s.folder.file("desc/photos.zip.recipient-1.simplex-link.txt"), "-o", s.folder.file("inbox"),
                               "--temp-dir", s.folder.file("tmp")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try s.folder.read("inbox/photos.zip") == content)
        // The redirect has its own sender description, which cancels it; the file's cancels the file.
        for sender in [redirectSender, s.folder.file("desc/photos.zip.sender.yaml")] {
            let cancelled = try CLI.run(["transfer", "cancel", sender])
            #expect(cancelled.status == 0, "\(cancelled.stderr)")
        }
    }

    /// Killed once a redirect was on its server but before its link was written: the rerun takes that
    /// redirect as it is instead of sending another (which would stay on the server with nothing to
    /// cancel it), and its link receives.
    @Test func aRedirectSentBeforeAKillIsTheOneTheRerunLinks() throws {
        let s = try Setup()
        defer { s.server.kill9() }
        let content = testBytes(600 << 10, seed: 29)
        _ = try s.folder.write("photos.zip", content)
        let asked = ["--recipients", "2", "--link", "simplex"]
        let stored = { try FileManager.default.contentsOfDirectory(atPath: s.folder.file("store/files")).count }
        let killed = try s.send("photos.zip", asked, environment: ["SXKIT_CRASH_AT": "transfer-send-redirect-sent"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.folder.file("desc/photos.zip.recipient-1.simplex-link.txt")))
        let afterKill = try stored()
        // What a killed run of an earlier version left: its redirect's private folder, description and all.
        try Folders.create(s.folder.file("tmp/sxkit-redirect-Xy12Ab"), permissions: 0o700)
        _ = try s.folder.write("tmp/sxkit-redirect-Xy12Ab/direct.yaml", Array("key: secret\n".utf8))

        let rerun = try s.send("photos.zip", asked)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        // One redirect more (recipient 2's), not two.
        let afterRerun = try stored()
        #expect(afterRerun == afterKill + 1, "chunks stored: \(afterKill) after the kill, \(afterRerun) after the rerun")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.folder.file("tmp")).isEmpty, "the send's work (or the old folder) is left")
        for (recipient, inbox) in [(1, "inbox"), (2, "inbox2")] {
            let got = try CLI.run(["transfer", "receive", s.folder.file("desc/photos.zip.recipient-\(recipient).simplex-link.txt"),
                                   "-o", s.folder.file(inbox), "--temp-dir", s.folder.file("tmp")])
            #expect(got.status == 0, "\(got.stderr)")
            #expect(try s.folder.read(inbox + "/photos.zip") == content)
        }
        // The redirect's sender description cancels the redirect the link carries.
        let cancelled = try CLI.run(["transfer", "cancel", s.folder.file("desc/photos.zip.recipient-1.redirect.sender.yaml")])
        #expect(cancelled.status == 0 && cancelled.stdout.contains("deleted 1 chunk replica(s)"), "\(cancelled.stdout)\(cancelled.stderr)")
    }

    /// Killed among its links, after them, or after it removed its work: the rerun finishes, keeping
    /// the links (and redirects) already written, or finds everything done. Each recipient then
    /// receives through its link.
    @Test(arguments: ["transfer-send-link-written", "transfer-send-linked", "transfer-send-linked-work-removed"])
    func aSendKilledWhileLinkingFinishesOnTheRerun(point: String) throws {
        let s = try Setup()
        defer { s.server.kill9() }
        let content = testBytes(600 << 10, seed: 23)
        _ = try s.folder.write("photos.zip", content)
        let asked = ["--recipients", "2", "--link", "simplex", "--link", "web"]
        let killed = try s.send("photos.zip", asked, environment: ["SXKIT_CRASH_AT": point])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let first = try s.text("desc/photos.zip.recipient-1.simplex-link.txt")
        let firstRedirect = try s.folder.read("desc/photos.zip.recipient-1.redirect.sender.yaml")

        let rerun = try s.send("photos.zip", asked)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("already sent") == (point == "transfer-send-linked-work-removed"), "\(rerun.stdout)")
        #expect(try s.text("desc/photos.zip.recipient-1.simplex-link.txt") == first, "a link written before the kill was made again")
        #expect(try s.folder.read("desc/photos.zip.recipient-1.redirect.sender.yaml") == firstRedirect)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.folder.file("tmp")).isEmpty, "the send's work is left")
        let names = try FileManager.default.contentsOfDirectory(atPath: s.folder.file("desc")).sorted()
        #expect(names == ["photos.zip.recipient-1.redirect.sender.yaml", "photos.zip.recipient-1.simplex-link.txt", "photos.zip.recipient-1.web-link.txt",
                          "photos.zip.recipient-1.yaml", "photos.zip.recipient-2.redirect.sender.yaml", "photos.zip.recipient-2.simplex-link.txt",
                          "photos.zip.recipient-2.web-link.txt", "photos.zip.recipient-2.yaml", "photos.zip.sender.yaml"], "\(names)")
        for (recipient, inbox) in [(1, "inbox"), (2, "inbox2")] {
            let got = try CLI.run(["transfer", "receive", s.folder.file("desc/photos.zip.recipient-\(recipient).simplex-link.txt"),
                                   "-o", s.folder.file(inbox), "--temp-dir", s.folder.file("tmp")])
            #expect(got.status == 0, "\(got.stderr)")
            #expect(try s.folder.read(inbox + "/photos.zip") == content)
        }
    }

    @Test func anExistingLinkFileIsRefusedBeforeTheUploadUnlessForce() throws {
        let s = try Setup()
        defer { s.server.kill9() }
        _ = try s.folder.write("note.txt", testBytes(20_000, seed: 23))
        let first = try s.send("note.txt", ["--link", "simplex", "--link", "web"])
        #expect(first.status == 0, "\(first.stderr)")
        // Only the link files are left in the way.
        for name in ["note.txt.sender.yaml", "note.txt.recipient-1.yaml"] { unlink(s.folder.file("desc/" + name)) }
        let oldLink = try s.text("desc/note.txt.recipient-1.simplex-link.txt")
        let log = s.storeLog
        let refused = try s.send("note.txt", ["--link", "simplex"])
        #expect(refused.status != 0 && refused.stderr.contains("note.txt.recipient-1.simplex-link.txt") && refused.stderr.contains("--force"),
                "\(refused.stderr)")
        #expect(s.storeLog == log, "nothing was uploaded")
        #expect(!POSIXFile.exists(s.folder.file("desc/note.txt.recipient-1.yaml")))

        // --force replaces the link and removes the earlier send's web link, which this send does not write.
        let forced = try s.send("note.txt", ["--link", "simplex", "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let newLink = try s.text("desc/note.txt.recipient-1.simplex-link.txt")
        #expect(newLink != oldLink)
        #expect(try FileDescriptionLink.parse(newLink).description == FileDescription.load(s.folder.file("desc/note.txt.recipient-1.yaml")))
        #expect(!POSIXFile.exists(s.folder.file("desc/note.txt.recipient-1.web-link.txt")))
    }

    @Test func aWebLinkToAFolderRelayIsRefusedBeforeTheUpload() throws {
        let folder = try TempFolder()
        for sub in ["relay", "desc", "tmp"] { try Folders.create(folder.file(sub)) }
        let source = try folder.write("note.txt", testBytes(20_000, seed: 24))
        let refused = try CLI.run(["transfer", "send", source, "--relay", folder.file("relay"), "-o", folder.file("desc"), "--temp-dir", folder.file("tmp"),
                                   "--link", "web"])
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect(refused.stderr.contains("a web link names the XFTP server") && refused.stderr.contains("is a folder relay"), "\(refused.stderr)")
        #expect(try Folders.names(in: folder.file("relay")).isEmpty)
        #expect(try Folders.names(in: folder.file("desc")).isEmpty)
        // The simplex link needs no XFTP server: a folder relay's description travels as one too.
        let simplex = try CLI.run(["transfer", "send", source, "--relay", folder.file("relay"), "-o", folder.file("desc"), "--temp-dir", folder.file("tmp"),
                                   "--link", "simplex"])
        #expect(simplex.status == 0, "\(simplex.stderr)")
        #expect(String(decoding: try folder.read("desc/note.txt.recipient-1.simplex-link.txt"), as: UTF8.self).hasPrefix("simplex:/file#/?desc="))
    }
}
