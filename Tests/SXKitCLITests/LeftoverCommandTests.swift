import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// Issue 15, item 10: what a killed or interrupted run leaves is removed by the run itself (SIGINT,
/// SIGTERM) or by the next run of the same command (kill -9), reported by `storage` and removed by
/// `clean --leftovers`; partial plaintext is never readable by others. The long random-kill series
/// are in `make stress` (stress/run); these are the small, deterministic versions.
@Suite(.ownThreads) struct LeftoverCommandTests {
    static func names(_ folder: String) -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted() }

    static func mode(_ path: String) -> mode_t? { POSIXFile.linkStatus(path).map { $0.st_mode & 0o777 } }

    /// A sent file and its recipient description, in a fixture folder.
    struct Sent {
        let temp: TempFolder
        let description: String
        var inbox: String { temp.file("inbox") }
        var work: String { temp.file("recv-tmp") }

        init(size: Int) throws {
            temp = try TempFolder("sxkit-leftovers-cli")
            for folder in ["relay", "inbox", "desc"] { try FileManager.default.createDirectory(atPath: temp.file(folder), withIntermediateDirectories: true) }
            let source = try temp.write("data.bin", testBytes(size, seed: 15))
            let sent = try CLI.run(["transfer", "send", source, "--relay", temp.file("relay"), "-o", temp.file("desc"), "--temp-dir", temp.file("send-tmp")])
            #expect(sent.status == 0, "\(sent.stderr)")
            description = temp.file("desc/data.bin.recipient-1.yaml")
        }

        var arguments: [String] { ["transfer", "receive", description, "-o", inbox, "--temp-dir", work, "--parallel", "1"] }

        func receive(environment: [String: String] = [:]) throws -> CLIResult { try CLI.run(arguments, environment: environment) }

        /// After a finished receive: the file alone in the inbox, 0600, and no work folder left.
        func expectClean(_ context: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(LeftoverCommandTests.names(inbox) == ["data.bin"], "\(context): \(LeftoverCommandTests.names(inbox))", sourceLocation: sourceLocation)
            #expect(try temp.read("inbox/data.bin") == temp.read("data.bin"), "\(context)", sourceLocation: sourceLocation)
            #expect(LeftoverCommandTests.mode(temp.file("inbox/data.bin")) == 0o600, "\(context)", sourceLocation: sourceLocation)
            let work = LeftoverCommandTests.names(self.work).filter { $0.hasPrefix("sxkit-receive-") }
            #expect(work.isEmpty, "\(context): \(work)", sourceLocation: sourceLocation)
        }
    }

    /// One rule, worded by the CLI: a command that writes refuses while a passphrase change is
    /// unsettled; one that reads goes on and warns.
    @Test func anUnsettledPassphraseChangeStopsWritersAndWarnsReaders() throws {
        let temp = try TempFolder("sxkit-leftovers-cli")
        try temp.write("data/simplex_v1_chat.db", [1, 2, 3])
        try temp.write("data/simplex_v1_agent.db", [1, 2, 3])
        try temp.write("data/simplex_v1_chat.db.exported", [1, 2, 3])
        try FileManager.default.createDirectory(atPath: temp.file("relay"), withIntermediateDirectories: true)
        let send = try CLI.run(["migrate", "send", "--data-dir", temp.file("data"), "--relay", temp.file("relay"), "-o", temp.path],
                               environment: ["SXKIT_PASSPHRASE": "x"])
        #expect(send.status == 1, "\(send.stderr)")
        #expect(send.stderr.contains("no database had been replaced; it must be settled first, and nothing was changed — run `sxkit db recover`"), "\(send.stderr)")
        #expect(Self.names(temp.file("relay")).isEmpty)
        let read = try CLI.run(["db", "inspect", "--data-dir", temp.file("data")])
        #expect(read.stderr.contains("sxkit: warning: an interrupted passphrase change"), "\(read.stderr)")
        #expect(read.stderr.contains(" — run `sxkit db recover`"), "\(read.stderr)")
    }

    @Test func receiveKilledWhileDecryptingLeavesOnlyPrivatePlaintextThatTheRerunResumesFromAndRemoves() throws {
        let s = try Sent(size: 700_000)
        // Killed once the first chunk is decrypted, while later ones may still download.
        let killed = try s.receive(environment: [CrashPoint.environmentVariable: "transfer-receive-decrypted-chunk"])
        #expect(killed.status == SIGKILL, "not killed (\(killed.status)): \(killed.stderr)")
        let partial = Self.names(s.inbox).filter { $0.hasPrefix(".sxkit-tmp-incoming.") }
        #expect(partial.count == 1, "\(Self.names(s.inbox))")
        for name in partial {
            #expect(Self.mode(Path.join(s.inbox, name)) == 0o600, "partial plaintext readable by others")
            #expect(TempOwnership.isStale(Path.join(s.inbox, name)))
        }
        let rerun = try s.receive()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        try s.expectClean("after the rerun")
    }

    /// Ctrl-C keeps what a receive decrypted so far, as a kill does (other commands' temp files go on
    /// a signal), so that running it again resumes.
    @Test func receiveInterruptedWithCtrlCKeepsItsPlaintextForTheRerun() throws {
        let s = try Sent(size: 3_000_000)
        let run = try CLI.start(s.arguments, environment: [CrashPoint.interruptVariable: "transfer-receive-decrypted-chunk"])
        run.waitUntilExit()
        #expect(run.terminationReason == .uncaughtSignal && run.terminationStatus == SIGINT, "ended with \(run.terminationReason) \(run.terminationStatus)")
        let kept = Self.names(s.inbox)
        #expect(kept.count == 1 && kept.allSatisfy { $0.hasPrefix(".sxkit-tmp-incoming.") }, "\(kept)")
        for name in kept { #expect(Self.mode(Path.join(s.inbox, name)) == 0o600) }
        let rerun = try s.receive()
        #expect(rerun.status == 0, "\(rerun.stderr)")
        try s.expectClean("after the rerun")
    }

    @Test func receiveKilledWithSIGKILLAtRandomMomentsLeavesNothingAfterTheRerun() throws {
        let s = try Sent(size: 3_000_000)
        for (i, delay) in [0.05, 0.15, 0.3].enumerated() {
            try? FileManager.default.removeItem(atPath: s.temp.file("inbox/data.bin"))
            let run = try CLI.start(s.arguments)
            Thread.sleep(forTimeInterval: delay)
            kill(run.processIdentifier, SIGKILL)
            run.waitUntilExit()
            for name in Self.names(s.inbox) where name.hasPrefix(".sxkit-tmp-") {
                #expect(Self.mode(Path.join(s.inbox, name)) == 0o600, "kill \(i): \(name) readable by others")
            }
            // The killed run may have placed the file already: the rerun replaces it, as a user would say.
            let rerun = try CLI.run(s.arguments + ["--force"])
            #expect(rerun.status == 0, "kill \(i): \(rerun.stderr)")
            try s.expectClean("kill \(i)")
        }
    }

    @Test func aLiveRunsTempFileIsNeverRemovedAStaleOneIs() throws {
        let temp = try TempFolder("sxkit-leftovers-live")
        let live = try AtomicFileWriter(destination: temp.file("incoming"), mode: 0o600)
        try live.write([1, 2, 3])
        let stale = try temp.write(".sxkit-tmp-incoming.ABCDEF", [4, 5, 6])
        #expect(!TempOwnership.isStale(live.tempPath))
        #expect(TempOwnership.isStale(stale))
        #expect(TempOwnership.sweep(folder: temp.path, prefix: ".sxkit-tmp-incoming.") == 1)
        #expect(Self.names(temp.path) == [Path.basename(live.tempPath)])
        try live.commit()
        #expect(Self.names(temp.path) == ["incoming"])
    }

    @Test func archiveImportKilledWhileTestingThePassphraseLeavesACopyThatIsReportedAndRemoved() throws {
        let folder = try TempFolder("sxkit-leftovers-import")
        let tmp = folder.file("tmp")
        try FileManager.default.createDirectory(atPath: tmp, withIntermediateDirectories: true)
        let env = ["TMPDIR": tmp, "SXKIT_PASSPHRASE": "correct horse battery staple"]
        let sample = try SampleCopies.create(at: folder.file("source"))
        let archive = folder.file("profile.zip")
        let exported = try CLI.run(["archive", "export", archive, "--data-dir", sample.directory.root], environment: env)
        #expect(exported.status == 0, "\(exported.stderr)")
        let target = folder.file("target")
        let importArgs = ["archive", "import", archive, "--data-dir", target, "--force"]
        for round in 0..<2 {
            let killed = try CLI.run(importArgs, environment: env.merging([CrashPoint.environmentVariable: "import.passphrase-copy"]) { $1 })
            #expect(killed.status == SIGKILL, "not killed (\(killed.status)): \(killed.stderr)")
            let left = Self.names(tmp).filter { $0.hasPrefix("sxkit-import-") }
            #expect(left.count == 1, "\(Self.names(tmp))")
            if round == 0 {
                // The next run of the same command removes it.
                let rerun = try CLI.run(importArgs, environment: env)
                #expect(rerun.status == 0, "\(rerun.stderr)")
            } else {
                // storage reports it; clean --leftovers removes it.
                let storage = try CLI.run(["storage", "--data-dir", target, "--json"], environment: env)
                #expect(storage.status == 0, "\(storage.stderr)")
                #expect(storage.stdout.contains("sxkit-import-"), "\(storage.stdout)")
                let clean = try CLI.run(["clean", "--leftovers", "--yes", "--data-dir", target], environment: env)
                #expect(clean.status == 0, "\(clean.stderr)")
            }
            #expect(Self.names(tmp).filter { $0.hasPrefix("sxkit-") }.isEmpty, "round \(round): \(Self.names(tmp))")
        }
    }

    @Test func archiveExportInterruptedWithCtrlCRemovesItsTempArchive() throws {
        let folder = try TempFolder("sxkit-leftovers-export")
        let sample = try SampleCopies.create(at: folder.file("data"))
        let out = folder.file("out/backup.zip")
        try FileManager.default.createDirectory(atPath: folder.file("out"), withIntermediateDirectories: true)
        let run = try CLI.start(["archive", "export", out, "--data-dir", sample.directory.root],
                                environment: ["SXKIT_PASSPHRASE": "correct horse battery staple", CrashPoint.interruptVariable: "export.before-rename"])
        run.waitUntilExit()
        #expect(run.terminationReason == .uncaughtSignal && run.terminationStatus == SIGINT,
                "ended with \(run.terminationReason) \(run.terminationStatus)")
        #expect(Self.names(folder.file("out")).isEmpty, "\(Self.names(folder.file("out")))")
    }
}
