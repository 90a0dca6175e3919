import Foundation
import Testing
import SXCore
@testable import SXTransfer

/// File descriptions: SimpleX's YAML shape written and read back, and each bad input refused with its own problem.
struct FileDescriptionTests {
    static func sample(party: FileDescription.Party = .recipient, sizes: [Int64] = [262_144, 65_536]) -> FileDescription {
        let chunks = sizes.enumerated().map { i, size in
            FileDescription.Chunk(number: i + 1, size: size, digest: [UInt8](repeating: UInt8(i + 1), count: 32),
                                  replicas: [.init(relay: "/mnt/usb/relay", replica: ChunkReplica(id: "id\(i + 1)xyz", key: [UInt8](repeating: 7, count: 32)))])
        }
        return FileDescription(party: party, size: sizes.reduce(0, +), digest: [UInt8](repeating: 9, count: 64),
                               key: [UInt8](repeating: 1, count: 32), nonce: [UInt8](repeating: 2, count: 24), chunkSize: sizes[0], chunks: chunks)
    }

    @Test("written in SimpleX's shape: sizes in kb, digest on each chunk, size only where it differs")
    func shape() throws {
        let yaml = try Self.sample().yaml()
        let key = Base64URL.encode([UInt8](repeating: 7, count: 32))
        let d1 = Base64URL.encode([UInt8](repeating: 1, count: 32))
        let d2 = Base64URL.encode([UInt8](repeating: 2, count: 32))
        #expect(yaml.contains("party: recipient\n"))
        #expect(yaml.contains("size: 320kb\n"))
        #expect(yaml.contains("chunkSize: 256kb\n"))
        #expect(yaml.contains("digest: " + Base64URL.encode([UInt8](repeating: 9, count: 64))))
        #expect(yaml.contains("- server: /mnt/usb/relay\n"))
        #expect(yaml.contains("- 1:id1xyz:\(key):\(d1)\n"))
        #expect(yaml.contains("- 2:id2xyz:\(key):\(d2):64kb\n"))
        #expect(try FileDescription.parse(yaml: yaml) == Self.sample())
    }

    @Test("sizes are N, Nkb, Nmb or Ngb when exact")
    func sizes() {
        #expect(DescriptionSize.encode(65_536) == "64kb")
        #expect(DescriptionSize.encode(4 << 20) == "4mb")
        #expect(DescriptionSize.encode(5 << 30) == "5gb")
        #expect(DescriptionSize.encode(1000) == "1000")
        #expect(DescriptionSize.decode("64kb") == 65_536)
        #expect(DescriptionSize.decode("3mb") == 3 << 20)
        #expect(DescriptionSize.decode("12") == 12)
        #expect(DescriptionSize.decode("kb") == nil)
        #expect(DescriptionSize.decode("-1") == nil)
        #expect(DescriptionSize.decode("1tb") == nil)
    }

    static func problem(_ yaml: String) -> DescriptionProblem? {
        do { _ = try FileDescription.parse(yaml: yaml); return nil } catch { return error }
    }

    static func edited(_ body: (inout String) -> Void) throws -> String {
        var yaml = try sample().yaml()
        body(&yaml)
        return yaml
    }

    @Test("out-of-order chunk numbers are refused")
    func outOfOrder() throws {
        let yaml = try Self.edited { y in
            y = y.replacingOccurrences(of: "- 1:id1", with: "- X:id1").replacingOccurrences(of: "- 2:id2", with: "- 1:id2")
                .replacingOccurrences(of: "- X:id1", with: "- 2:id1")
        }
        #expect(Self.problem(yaml) == .chunkNumbersOutOfOrder(expected: 1, found: 2))
        let skipped = try Self.edited { $0 = $0.replacingOccurrences(of: "- 2:id2", with: "- 3:id2") }
        #expect(Self.problem(skipped) == .chunkNumbersOutOfOrder(expected: 2, found: 3))
    }

    @Test("sizes that do not add up are refused")
    func sizesDoNotAddUp() throws {
        let yaml = try Self.edited { $0 = $0.replacingOccurrences(of: "size: 320kb", with: "size: 384kb") }
        #expect(Self.problem(yaml) == .sizesDoNotAddUp(sum: 327_680, size: 393_216))
    }

    @Test("bad base64 is refused, naming the field")
    func badBase64() throws {
        let nonce = Base64URL.encode([UInt8](repeating: 2, count: 24))
        let yaml = try Self.edited { $0 = $0.replacingOccurrences(of: "nonce: " + nonce, with: "nonce: " + nonce.replacingOccurrences(of: "A", with: "+")) }
        #expect(Self.problem(yaml) == .badBase64(field: "nonce"))
        let d2 = Base64URL.encode([UInt8](repeating: 2, count: 32))
        let chunk = try Self.edited { $0 = $0.replacingOccurrences(of: d2, with: "not*base64") }
        #expect(Self.problem(chunk) == .badBase64(field: "digest of chunk 2"))
    }

    @Test("a missing field is refused, naming it", arguments: ["party", "size", "digest", "key", "nonce", "chunkSize", "replicas"])
    func missingField(field: String) throws {
        let lines = try Self.sample().yaml().split(separator: "\n", omittingEmptySubsequences: false)
        // replicas is a block: drop it with everything under it.
        let yaml = (field == "replicas" ? Array(lines.prefix { !$0.hasPrefix("replicas:") }) : lines.filter { !$0.hasPrefix(field + ":") })
            .joined(separator: "\n")
        #expect(Self.problem(yaml) == .missingField(field))
    }

    @Test("an unknown party is refused")
    func unknownParty() throws {
        let yaml = try Self.edited { $0 = $0.replacingOccurrences(of: "party: recipient", with: "party: observer") }
        #expect(Self.problem(yaml) == .unknownParty("observer"))
    }

    @Test("malformed chunk lines and non-YAML are refused")
    func malformed() throws {
        let yaml = try Self.edited { $0 = $0.replacingOccurrences(of: "- 2:id2xyz:", with: "- 2:id2?xyz:") }
        #expect(Self.problem(yaml).map { if case .badChunkLine = $0 { true } else { false } } == true)
        let fields = try Self.edited { $0 = $0.replacingOccurrences(of: "- 2:id2xyz:", with: "- 2:") }
        #expect(Self.problem(fields) != nil)
        #expect(Self.problem("party: [unclosed").map { if case .notYAML = $0 { true } else { false } } == true)
        let noDigest = try Self.edited { y in
            let d2 = Base64URL.encode([UInt8](repeating: 2, count: 32))
            y = y.replacingOccurrences(of: ":\(d2):64kb", with: "")
        }
        #expect(Self.problem(noDigest) == .noDigest(chunk: 2))
    }

    @Test("saved descriptions are 0600 and load back")
    func saveLoad() throws {
        let folder = NSTemporaryDirectory() + "/sxkit-desc-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = folder + "/file.yaml"
        try Self.sample().save(to: path)
        #expect(try POSIXFile.status(path).st_mode & 0o777 == 0o600)
        #expect(try FileDescription.load(path) == Self.sample())
        try "party: sender\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TransferError.badDescription(path: path, problem: .missingField("size"))) { try FileDescription.load(path) }
    }
}

/// The transfer method and auto-receive thresholds of FORMATS §1.
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
        #expect(over.refusal?.description.contains("--force") == true)
    }

    @Test("force allows relay up to the 5 GiB hard limit and no further")
    func force() {
        #expect(TransferDecision.decide(size: 5 << 30, kind: .video, force: true).method == .relay)
        let over = TransferDecision.decide(size: (5 << 30) + 1, kind: .video, force: true)
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
