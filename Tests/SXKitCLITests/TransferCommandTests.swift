import Foundation
import Testing
import SXCore
import SXTestSupport

/// `sxkit transfer …` end to end through the built binary, with a folder relay.
@Suite(.ownThreads) struct TransferCommandTests {
    struct Setup {
        let temp: TempFolder
        var relay: String { temp.file("relay") }
        var inbox: String { temp.file("inbox") }
        var descriptions: String { temp.file("desc") }

        init() throws {
            temp = try TempFolder("sxkit-transfer-cli")
            for folder in ["relay", "inbox", "desc"] { try FileManager.default.createDirectory(atPath: temp.file(folder), withIntermediateDirectories: true) }
        }

        func file(_ name: String, size: Int) throws -> String {
            try temp.write(name, (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ $0 >> 8) })
        }

        func send(_ path: String, _ extra: [String] = [], environment: [String: String] = [:]) throws -> CLIResult {
            try CLI.run(["transfer", "send", path, "--relay", relay, "-o", descriptions, "--temp-dir", temp.file("send-tmp")] + extra,
                        environment: environment)
        }

        func receive(_ description: String, _ extra: [String] = [], prefix: [String] = []) throws -> CLIResult {
            try CLI.run(["transfer", "receive", description, "-o", inbox, "--temp-dir", temp.file("recv-tmp")] + extra, prefix: prefix)
        }
    }

    @Test func planSaysInlineRelayOrRefusedWithTheLimits() throws {
        let s = try Setup()
        let small = try s.file("photo.jpg", size: 200_000)
        let big = try s.file("big.bin", size: 0)
        #expect(truncate(big, off_t(SimpleXLimits.maxFileSizeXFTP + 1)) == 0)
        let r = try CLI.run(["transfer", "plan", small, big])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("photo.jpg") && r.stdout.contains("inline") && r.stdout.contains("yes"))
        #expect(r.stdout.contains("refused") && r.stdout.contains("MAX_FILE_SIZE_XFTP 1073741824"))
        #expect(r.stderr.contains("over MAX_FILE_SIZE_XFTP (1073741824 bytes"))
        let forced = try CLI.run(["transfer", "plan", "--force", "--json", big])
        #expect(forced.status == 0)
        #expect(forced.stdout.contains(#""method":"relay""#) && forced.stdout.contains(#""chunks":257"#))
        #expect(forced.stdout.contains(#""methodLimit":{"bytes":5368709120,"name":"MAX_FILE_SIZE_XFTP_HARD"}"#))
        let missing = try CLI.run(["transfer", "plan", small, s.temp.file("nope")])
        #expect(missing.status == 3)
    }

    @Test func sendReceiveInfoCancel() throws {
        let s = try Setup()
        let source = try s.file("report.pdf", size: 700_000)
        let sent = try s.send(source, ["--recipients", "2", "--json"])
        #expect(sent.status == 0, "\(sent.stderr)")
        let types = sent.stdout.split(separator: "\n").compactMap { line -> String? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["type"] as? String
        }
        #expect(types.first == "sndFileStart" && types.last == "sndFileCompleteXFTP" && types.contains("sndFileProgressXFTP"))
        #expect(sent.stdout.contains(#""sentSize":720896,"totalSize":720896"#))
        #expect(sent.stdout.contains(#""chunksUploaded":5,"alreadySent":false}"#), "\(sent.stdout)")
        let recipient = s.descriptions + "/report.pdf.recipient-1.yaml"
        let senderDescription = s.descriptions + "/report.pdf.sender.yaml"
        #expect(try POSIXFile.status(recipient).st_mode & 0o777 == 0o600)
        #expect(try POSIXFile.status(senderDescription).st_mode & 0o777 == 0o600)

        let info = try CLI.run(["transfer", "info", recipient])
        #expect(info.stdout.contains("party:      recipient") && info.stdout.contains("5 (2 x 256kb, 3 x 64kb)"), "\(info.stdout)")

        let got = try s.receive(recipient)
        #expect(got.status == 0, "\(got.stderr)")
        #expect(got.stdout.contains("received report.pdf"))
        #expect(try s.temp.read("inbox/report.pdf") == s.temp.read("report.pdf"))

        let cancel = try CLI.run(["transfer", "cancel", senderDescription])
        #expect(cancel.status == 0 && cancel.stdout.contains("deleted 5 chunk replica(s)"), "\(cancel.stderr)")
        let after = try s.receive(s.descriptions + "/report.pdf.recipient-2.yaml", ["-o", s.temp.file("inbox/second.pdf"), "--json"])
        #expect(after.status == 1)
        #expect(after.stdout.contains(#""type":"rcvFileSndCancelled""#))
        #expect(after.stderr.contains("the sender cancelled the transfer, it expired, or it was never uploaded"))
        #expect(!FileManager.default.fileExists(atPath: s.temp.file("inbox/second.pdf")))
        // The recipient description cannot cancel.
        let wrong = try CLI.run(["transfer", "cancel", recipient])
        #expect(wrong.status == 1 && wrong.stderr.contains("is a recipient description; this needs the sender description"))
    }

    @Test func badDescriptionsAndMissingRelayFoldersGiveClearErrors() throws {
        let s = try Setup()
        let desc = try s.temp.write("bad.yaml", Array("party: recipient\nsize: 64kb\n".utf8))
        let r = try CLI.run(["transfer", "info", desc])
        #expect(r.status == 1 && r.stderr.contains("is not valid: the field 'chunkSize' is missing"), "\(r.stderr)")
        let noFolder = try CLI.run(["transfer", "send", desc, "--relay", s.temp.file("unmounted")])
        #expect(noFolder.status == 1 && noFolder.stderr.contains("does not exist; mount the disk or share"))
    }

    @Test func killedSendIsFinishedByRerunningIt() throws {
        let s = try Setup()
        let source = try s.file("data.bin", size: 700_000)
        let killed = try s.send(source, ["--parallel", "1"], environment: ["SXKIT_CRASH_AT": "transfer-send-uploaded-chunk"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.relay).filter { $0.hasPrefix("d-") }.count == 1)
        #expect(!FileManager.default.fileExists(atPath: s.descriptions + "/data.bin.recipient-1.yaml"))
        let rerun = try s.send(source, ["--parallel", "1"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("in 5 chunk(s)") && rerun.stdout.contains("(1 already there from an earlier run)"), "\(rerun.stdout)")
        let got = try s.receive(s.descriptions + "/data.bin.recipient-1.yaml")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try s.temp.read("inbox/data.bin") == s.temp.read("data.bin"))
    }

    /// Killed while writing its descriptions or just after: the rerun finds them its own (byte for
    /// byte what it writes) and finishes, where it used to refuse them as existing outputs.
    @Test(arguments: ["transfer-send-sender-described", "transfer-send-described"])
    func aSendKilledWhileDescribingFinishesOnTheRerun(point: String) throws {
        let s = try Setup()
        let source = try s.file("data.bin", size: 300_000)
        let killed = try s.send(source, ["--recipients", "2"], environment: ["SXKIT_CRASH_AT": point])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let before = try FileManager.default.contentsOfDirectory(atPath: s.descriptions).sorted()
        let sender = try s.temp.read("desc/data.bin.sender.yaml")
        let rerun = try s.send(source, ["--recipients", "2"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("already there from an earlier run"), "\(rerun.stdout)")
        #expect(try s.temp.read("desc/data.bin.sender.yaml") == sender, "the sender description was rewritten differently")
        #expect(before.count == (point == "transfer-send-described" ? 3 : 1), "\(before)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.descriptions).sorted()
                == ["data.bin.recipient-1.yaml", "data.bin.recipient-2.yaml", "data.bin.sender.yaml"])
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.temp.file("send-tmp")).isEmpty, "the send's work is left")
        let got = try s.receive(s.descriptions + "/data.bin.recipient-2.yaml")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try s.temp.read("inbox/data.bin") == s.temp.read("data.bin"))
    }

    /// Killed after it removed its work (the descriptions complete, its state gone): the rerun
    /// checks the descriptions against the file and is done, where it used to refuse them. A file
    /// changed since (same size, one byte) is not what they describe: they are refused and kept.
    @Test func aSendKilledAfterItTidiedUpIsDoneOnTheRerun() throws {
        let s = try Setup()
        let source = try s.file("data.bin", size: 300_000)
        let killed = try s.send(source, ["--recipients", "2"], environment: ["SXKIT_CRASH_AT": "transfer-send-work-removed"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.temp.file("send-tmp")).isEmpty)
        let names = ["data.bin.recipient-1.yaml", "data.bin.recipient-2.yaml", "data.bin.sender.yaml"]
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.descriptions).sorted() == names)
        let written = try names.map { try s.temp.read("desc/" + $0) }
        let relayed = try FileManager.default.contentsOfDirectory(atPath: s.relay).sorted()

        let rerun = try s.send(source, ["--recipients", "2"])
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("already sent data.bin: the descriptions there are of this very file"), "\(rerun.stdout)")
        #expect(rerun.stdout.contains("nothing was sent or written") && rerun.stdout.contains("recipient description: \(s.descriptions)/data.bin.recipient-2.yaml"))
        #expect(try names.map { try s.temp.read("desc/" + $0) } == written, "a description was rewritten")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.relay).sorted() == relayed, "something was uploaded")
        let json = try s.send(source, ["--recipients", "2", "--json"])
        #expect(json.status == 0 && json.stdout.contains(#""type":"sndFileCompleteXFTP""#), "\(json.stderr)")
        #expect(json.stdout.contains(#""chunksUploaded":0,"alreadySent":true}"#), "\(json.stdout)")
        let got = try s.receive(s.descriptions + "/data.bin.recipient-2.yaml")
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try s.temp.read("inbox/data.bin") == s.temp.read("data.bin"))

        // Another recipient count is another send: its outputs are in the way.
        let more = try s.send(source, ["--recipients", "3"])
        #expect(more.status == 1 && more.stderr.contains("already exist"), "\(more.stderr)")
        var changed = try s.temp.read("data.bin")
        changed[150_000] ^= 1
        try AtomicFileWriter.write(changed, to: source, mode: 0o600)
        let refused = try s.send(source, ["--recipients", "2"])
        #expect(refused.status == 1 && refused.stderr.contains("already exist"), "\(refused.stderr)")
        #expect(try names.map { try s.temp.read("desc/" + $0) } == written)
    }

    /// A description that is not the killed send's own (changed since) is still an existing output.
    @Test func aChangedDescriptionIsStillRefusedAfterAKill() throws {
        let s = try Setup()
        let source = try s.file("data.bin", size: 300_000)
        let killed = try s.send(source, environment: ["SXKIT_CRASH_AT": "transfer-send-described"])
        #expect(killed.status == SIGKILL)
        let recipient = s.descriptions + "/data.bin.recipient-1.yaml"
        let changed = try s.temp.read("desc/data.bin.recipient-1.yaml") + Array("# mine\n".utf8)
        try AtomicFileWriter.write(changed, to: recipient, mode: 0o600)
        let rerun = try s.send(source)
        #expect(rerun.status == 1)
        #expect(rerun.stderr.contains("already exist"), "\(rerun.stderr)")
        #expect(try s.temp.read("desc/data.bin.recipient-1.yaml") == changed)
    }

    /// Killed once the file was in place, before its chunks were removed: the rerun finds that very
    /// file there and is done (it used to refuse it as an existing output, and the chunks stayed).
    @Test func aReceiveKilledOnceTheFileWasPlacedIsDoneOnTheRerun() throws {
        let s = try Setup()
        let source = try s.file("data.bin", size: 300_000)
        #expect(try s.send(source, ["--recipients", "2"]).status == 0)
        let killed = try CLI.run(["transfer", "receive", s.descriptions + "/data.bin.recipient-1.yaml", "-o", s.inbox, "--temp-dir", s.temp.file("recv-tmp")],
                                 environment: ["SXKIT_CRASH_AT": "transfer-receive-placed"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        #expect(try !FileManager.default.contentsOfDirectory(atPath: s.temp.file("recv-tmp")).isEmpty)
        let rerun = try s.receive(s.descriptions + "/data.bin.recipient-1.yaml")
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(try s.temp.read("inbox/data.bin") == s.temp.read("data.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.temp.file("recv-tmp")).isEmpty, "the chunks are left")

        // A file put there since (another inode) is not the one placed: still an existing output.
        let second = ["transfer", "receive", s.descriptions + "/data.bin.recipient-2.yaml", "-o", s.temp.file("inbox2") + "/",
                      "--temp-dir", s.temp.file("recv-tmp")]
        let again = try CLI.run(second, environment: ["SXKIT_CRASH_AT": "transfer-receive-placed"])
        #expect(again.status == SIGKILL, "\(again.stderr)")
        let mine = Array("mine\n".utf8)
        unlink(s.temp.file("inbox2/data.bin"))
        try AtomicFileWriter.write(mine, to: s.temp.file("inbox2/data.bin"), mode: 0o600)
        let refused = try CLI.run(second)
        #expect(refused.status == 1 && refused.stderr.contains("already exists"), "\(refused.stderr)")
        #expect(try s.temp.read("inbox2/data.bin") == mine)
    }

    /// Killed after it had placed the file and removed its chunks (only the report was left to do):
    /// the rerun downloads again, finds the very same bytes at the destination and is done, into a
    /// folder and into a named file alike. A different file there is still refused and kept.
    @Test(arguments: [false, true])
    func aReceiveKilledAfterItTidiedUpFindsItsFileOnTheRerun(namedFile: Bool) throws {
        let s = try Setup()
        let source = try s.file("data.bin", size: 300_000)
        #expect(try s.send(source).status == 0)
        let description = s.descriptions + "/data.bin.recipient-1.yaml"
        let target = namedFile ? ["-o", s.temp.file("inbox/copy.bin")] : []
        let killed = try CLI.run(["transfer", "receive", description, "-o", s.inbox, "--temp-dir", s.temp.file("recv-tmp")] + target,
                                 environment: ["SXKIT_CRASH_AT": "transfer-receive-work-removed"])
        #expect(killed.status == SIGKILL, "status \(killed.status): \(killed.stderr)")
        let name = namedFile ? "inbox/copy.bin" : "inbox/data.bin"
        #expect(try s.temp.read(name) == s.temp.read("data.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.temp.file("recv-tmp")).isEmpty)

        let rerun = try s.receive(description, target)
        #expect(rerun.status == 0, "\(rerun.stderr)")
        #expect(rerun.stdout.contains("already holds data.bin, byte for byte"), "\(rerun.stdout)")
        let json = try s.receive(description, target + ["--json"])
        #expect(json.status == 0 && json.stdout.contains(#""alreadyPresent":true}"#), "\(json.stdout)\(json.stderr)")
        #expect(try s.temp.read(name) == s.temp.read("data.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.inbox) == [Path.basename(name)])
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.temp.file("recv-tmp")).isEmpty)

        // Same size, one byte changed: someone's file, refused and kept as it was.
        var other = try s.temp.read("data.bin")
        other[1000] ^= 1
        unlink(s.temp.file(name))
        try AtomicFileWriter.write(other, to: s.temp.file(name), mode: 0o600)
        let refused = try s.receive(description, target)
        #expect(refused.status == 1 && refused.stderr.contains("already exists"), "\(refused.stderr)")
        #expect(try s.temp.read(name) == other)
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.inbox) == [Path.basename(name)])

        // The same bytes back, and a rerun killed once it had found them there: the record names that
        // file, so the next run finishes from it.
        unlink(s.temp.file(name))
        try AtomicFileWriter.write(try s.temp.read("data.bin"), to: s.temp.file(name), mode: 0o600)
        let placedKill = try CLI.run(["transfer", "receive", description, "-o", s.inbox, "--temp-dir", s.temp.file("recv-tmp")] + target,
                                     environment: ["SXKIT_CRASH_AT": "transfer-receive-placed"])
        #expect(placedKill.status == SIGKILL, "status \(placedKill.status): \(placedKill.stderr)")
        // Neither the relay's chunks nor the downloaded ones are there to receive from again.
        for chunk in try FileManager.default.contentsOfDirectory(atPath: s.relay) { try Folders.remove(Path.join(s.relay, chunk)) }
        for work in try FileManager.default.contentsOfDirectory(atPath: s.temp.file("recv-tmp")) {
            let folder = s.temp.file("recv-tmp/" + work)
            for chunk in try FileManager.default.contentsOfDirectory(atPath: folder) where chunk.hasPrefix("chunk-") { unlink(Path.join(folder, chunk)) }
        }
        let finished = try s.receive(description, target)
        #expect(finished.status == 0, "\(finished.stdout)\(finished.stderr)")
        #expect(try s.temp.read(name) == s.temp.read("data.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.temp.file("recv-tmp")).isEmpty)
    }

    @Test func aReceiveCutOffSaysWhatIsKeptAndTheRerunFinishes() throws {
        let s = try Setup()
        // 2.79 MB: chunks of 1 MiB, 1 MiB, 256 KiB, 256 KiB and 256 KiB; the small ones are taken off
        // the relay, so that a receive one chunk at a time gets the first two only.
        let source = try s.file("movie.bin", size: 2_790_000)
        #expect(try s.send(source).status == 0)
        let small = try FileManager.default.contentsOfDirectory(atPath: s.relay).filter {
            $0.hasPrefix("d-") && POSIXFile.linkStatus(Path.join(s.relay, $0))?.st_size == 1 << 18
        }
        #expect(small.count == 3)
        try Folders.create(s.temp.file("away"))
        for name in small { #expect(rename(Path.join(s.relay, name), s.temp.file("away/" + name)) == 0) }
        let description = s.descriptions + "/movie.bin.recipient-1.yaml"
        let cut = try s.receive(description, ["--relay", s.relay, "--parallel", "1", "--retry", "1"])
        #expect(cut.status == 1)
        let kept = try FileManager.default.contentsOfDirectory(atPath: s.inbox)
        #expect(kept.count == 1 && kept[0].hasPrefix(".sxkit-tmp-incoming."), "\(kept)")
        #expect(cut.stderr.contains("sxkit: 2 of 5 chunk(s) (2.00 MiB) were received and are kept in "), "\(cut.stderr)")
        #expect(cut.stderr.contains("and, decrypted, in the private temp file " + Path.join(s.inbox, kept.first ?? "?")), "\(cut.stderr)")
        #expect(cut.stderr.contains("run the same command again to resume"), "\(cut.stderr)")
        for name in small { #expect(rename(s.temp.file("away/" + name), Path.join(s.relay, name)) == 0) }
        let again = try s.receive(description, ["--relay", s.relay])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try s.temp.read("inbox/movie.bin") == s.temp.read("movie.bin"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.inbox) == ["movie.bin"])
    }

    /// 150 000 bytes: the 64 KiB first chunk fits under a 100 KiB file-size limit, the decrypted file
    /// does not. 700 000 bytes: the first chunk (256 KiB, kept in the temp folder) does not fit under
    /// 200 KiB, while the plaintext decrypted so far waits in memory.
    @Test(arguments: [(150_000, 100), (700_000, 200)])
    func fullDiskOnReceiveLeavesNothingAndARerunCompletes(size: Int, limitKiB: Int) throws {
        let s = try Setup()
        let source = try s.file("notes.bin", size: size)
        #expect(try s.send(source).status == 0)
        let description = s.descriptions + "/notes.bin.recipient-1.yaml"
        // RLIMIT_FSIZE makes writes past the limit fail with EFBIG, as a full disk fails them with ENOSPC.
        let limited = try s.receive(description, prefix: ["/bin/bash", "-c", "trap '' XFSZ; ulimit -f \(limitKiB); exec \"$0\" \"$@\""])
        #expect(limited.status == 1)
        #expect(limited.stderr.contains("free some space and run the command again"), "\(limited.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.inbox).isEmpty)
        let again = try s.receive(description)
        #expect(again.status == 0, "\(again.stderr)")
        #expect(try s.temp.read("inbox/notes.bin") == s.temp.read("notes.bin"))
    }
}
