import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXTransfer

/// Send and receive through the folder relay, end to end in the library.
@Suite(.ownThreads)
struct TransferRoundTripTests {
    @Test("a file goes through the folder relay to two recipients; descriptions are 0600; events are SimpleX's")
    func roundTrip() async throws {
        let f = try TransferFixture()
        let relay = FolderRelay(root: f.relayRoot)
        let log = EventLog()
        let sent = try await f.sender(relay, recipients: 2).send(file: f.source, events: log.handler)
        #expect(sent.chunks == 5 && sent.chunksUploaded == 5)
        #expect(sent.recipientDescriptions.count == 2)
        for path in [sent.senderDescription] + sent.recipientDescriptions {
            #expect(try POSIXFile.status(path).st_mode & 0o777 == 0o600)
        }
        #expect(log.types.first == "sndFileStart")
        #expect(log.types.last == "sndFileCompleteXFTP")
        #expect(log.all.contains(.sndFileProgressXFTP(sentSize: sent.encryptedSize, totalSize: sent.encryptedSize)))
        // The work folder (encrypted copy, state) is gone once the send completed.
        #expect(try FileManager.default.contentsOfDirectory(atPath: f.temp.file("send-tmp")).isEmpty)

        for (i, path) in sent.recipientDescriptions.enumerated() {
            let rlog = EventLog()
            let destination = f.temp.file("inbox/copy-\(i)")
            let got = try await f.receiver(relay, destination: destination).receive(try FileDescription.load(path), path: path, events: rlog.handler)
            #expect(got.fileName == "report.pdf")
            #expect(try f.temp.read("inbox/copy-\(i)") == f.content)
            #expect(rlog.types.first == "rcvFileStart" && rlog.types.last == "rcvFileComplete")
        }
        // Into a folder, the sender's name is used.
        let got = try await f.receiver(relay).receive(try FileDescription.load(sent.recipientDescriptions[0]), path: "d")
        #expect(got.path == f.temp.file("inbox/report.pdf"))
        #expect(try f.inbox() == ["copy-0", "copy-1", "report.pdf"])
        // The same bytes already there: done, nothing written (a rerun after a kill that came once
        // the file was placed and the work folder gone).
        let again = try await f.receiver(relay).receive(try FileDescription.load(sent.recipientDescriptions[0]), path: "d")
        #expect(again.alreadyPresent && again.path == f.temp.file("inbox/report.pdf"))
        #expect(!got.alreadyPresent)
        // Never overwrites another file.
        var other = f.content
        other[0] ^= 1
        unlink(f.temp.file("inbox/report.pdf"))
        try f.temp.write("inbox/report.pdf", other)
        await #expect(throws: TransferError.destinationExists(path: f.temp.file("inbox/report.pdf"))) {
            try await f.receiver(relay).receive(try FileDescription.load(sent.recipientDescriptions[0]), path: "d")
        }
        #expect(try f.inbox() == ["copy-0", "copy-1", "report.pdf"])
        #expect(try f.temp.read("inbox/report.pdf") == other)
    }

    @Test("event JSON is type-tagged with SimpleX's field names")
    func eventJSON() {
        #expect(TransferEvent.sndFileProgressXFTP(sentSize: 10, totalSize: 20).json == #"{"type":"sndFileProgressXFTP","sentSize":10,"totalSize":20}"#)
        #expect(TransferEvent.rcvFileProgressXFTP(receivedSize: 1, totalSize: 2).json == #"{"type":"rcvFileProgressXFTP","receivedSize":1,"totalSize":2}"#)
        #expect(TransferEvent.rcvFileError(error: "a \"b\"").json == #"{"type":"rcvFileError","error":"a \"b\""}"#)
        // What this run did, besides SimpleX's fields: chunks it uploaded, nothing sent or written at all.
        #expect(TransferEvent.sndFileCompleteXFTP(senderDescription: "s.yaml", recipientDescriptions: ["r1.yaml", "r2.yaml"], chunksUploaded: 3, alreadySent: false).json
            == #"{"type":"sndFileCompleteXFTP","senderDescription":"s.yaml","recipientDescriptions":["r1.yaml","r2.yaml"],"chunksUploaded":3,"alreadySent":false}"#)
        #expect(TransferEvent.rcvFileComplete(path: "/in/a.bin", fileName: "a.bin", fileSize: 7, alreadyPresent: true).json
            == #"{"type":"rcvFileComplete","path":"/in/a.bin","fileName":"a.bin","fileSize":7,"alreadyPresent":true}"#)
    }

    @Test("a sender description cannot receive and a recipient description cannot cancel")
    func parties() async throws {
        let f = try TransferFixture(size: 1000)
        let relay = FolderRelay(root: f.relayRoot)
        let sent = try await f.sender(relay).send(file: f.source)
        let senderDescription = try FileDescription.load(sent.senderDescription)
        await #expect(throws: TransferError.wrongParty(path: "s", expected: .recipient, found: .sender)) {
            try await f.receiver(relay).receive(senderDescription, path: "s")
        }
        await #expect(throws: TransferError.wrongParty(path: "r", expected: .sender, found: .recipient)) {
            try await TransferSender.cancel(try FileDescription.load(sent.recipientDescriptions[0]), path: "r", relays: { _ in relay })
        }
    }
}
