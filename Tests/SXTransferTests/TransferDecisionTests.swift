import Testing
import SXTestSupport
import SXCore
@testable import SXTransfer

/// The transfer method and auto-receive thresholds of FORMATS §1.
@Suite(.ownThreads)
struct TransferDecisionTests {
    @Test("inline up to MAX_IMAGE_SIZE, relay up to 1 GiB, refused above naming the limit")
    func methods() {
        #expect(TransferDecision.decide(size: 261_120, kind: .image).method == .inline)
        #expect(TransferDecision.decide(size: 261_121, kind: .image).method == .relay)
        #expect(TransferDecision.decide(size: 1 << 30, kind: .other).method == .relay)
        let over = TransferDecision.decide(size: (1 << 30) + 1, kind: .other)
        #expect(over.method == .refused)
        #expect(over.methodLimitName == "MAX_FILE_SIZE_XFTP")
        #expect(over.refusal?.description.contains("MAX_FILE_SIZE_XFTP (1073741824 bytes") == true)
        #expect(over.refusal?.remedy == .allowAboveSoftSizeLimit, "the CLI words the remedy with its flag")
        #expect(over.refusal?.description.contains("--") == false)
    }

    @Test("force allows relay up to the 5 GiB hard limit and no further")
    func force() {
        #expect(TransferDecision.decide(size: 5 << 30, kind: .video, aboveSoftLimit: true).method == .relay)
        let over = TransferDecision.decide(size: (5 << 30) + 1, kind: .video, aboveSoftLimit: true)
        #expect(over.method == .refused)
        #expect(over.methodLimitName == "MAX_FILE_SIZE_XFTP_HARD")
    }

    @Test("auto-receive by kind; other files never")
    func autoReceive() {
        #expect(TransferDecision.decide(size: 522_240, kind: .image).autoReceive)
        #expect(!TransferDecision.decide(size: 522_241, kind: .image).autoReceive)
        #expect(TransferDecision.decide(size: 522_240, kind: .voice).autoReceive)
        #expect(TransferDecision.decide(size: 1_047_552, kind: .video).autoReceive)
        #expect(!TransferDecision.decide(size: 1_047_553, kind: .video).autoReceive)
        #expect(!TransferDecision.decide(size: 10, kind: .other).autoReceive)
        #expect(FileKind.guess(fileName: "a.JPG") == .image)
        #expect(FileKind.guess(fileName: "clip.mp4") == .video)
        #expect(FileKind.guess(fileName: "voice.m4a") == .voice)
        #expect(FileKind.guess(fileName: "notes") == .other)
    }
}
