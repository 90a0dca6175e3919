import Foundation
import Testing
import SXCore
import SXTestSupport
import SXTransfer

/// `transfer info`, `transfer receive` and the descriptions sxkit writes, against SimpleX's fixture
/// and descriptions shaped as the core writes them.
@Suite(.ownThreads) struct TransferDescriptionCommandTests {
    static func fixture(_ name: String) -> String { VectorFiles.description(name) }
    static func link(_ name: String) throws -> String {
        try String(contentsOfFile: VectorFiles.repositoryRoot + "/Tests/Fixtures/links/" + name, encoding: .utf8)
    }

    @Test func infoReadsSimpleXsFixture() throws {
        let text = try CLI.run(["transfer", "info", Self.fixture("file_description.yaml")])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("party:      recipient") && text.stdout.contains("4 (3 x 8mb, 1 x 2mb)") && text.stdout.contains("replicas:   8"),
                "\(text.stdout)")
        #expect(text.stdout.contains("servers:    xftp://abc=@example1.com\n            xftp://abc=@example2.com"), "\(text.stdout)")
        let json = try CLI.run(["transfer", "info", Self.fixture("file_description.yaml"), "--json"])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(object["size"] as? Int == 26 << 20 && object["chunks"] as? Int == 4 && object["digest"] as? String == "YWJj")
        #expect((object["servers"] as? [String])?.count == 4)
    }

    @Test func infoReadsARedirectAndTheCoresShapes() throws {
        let redirect = try CLI.run(["transfer", "info", Self.fixture("real_redirect.yaml"), "--json"])
        #expect(redirect.status == 0, "\(redirect.stderr)")
        #expect(redirect.stdout.contains(#""redirect":{"size":123456,"digest":"ddyae-WFomti71HBl1nUSrnEKjhqT87TVB3l98nEjTyUtWjqjEMXNl69wWEcIh6gXZdglAK8yyYDsuYPUhho-Q=="}"#),
                "\(redirect.stdout)")
        let text = try CLI.run(["transfer", "info", Self.fixture("real_redirect.yaml")])
        #expect(text.stdout.contains("redirect:   this file is the description of another file: 123456 bytes"), "\(text.stdout)")
        // A sender description with chunks interleaved over several servers, as the core writes one.
        let temp = try TempFolder()
        let hash = Base64URL.encode([UInt8](repeating: 4, count: 32))
        let servers = ["xftp://\(hash)@b.example", "xftp://\(hash)@a.example:5443", "xftp://\(hash)@a.example"]
        var yaml = "chunkSize: 1mb\n"
        yaml += "digest: " + Base64URL.encode([UInt8](repeating: 9, count: 64)) + "\n"
        yaml += "key: " + Base64URL.encode([UInt8](repeating: 1, count: 32)) + "\n"
        yaml += "nonce: " + Base64URL.encode([UInt8](repeating: 2, count: 24)) + "\n"
        yaml += "party: sender\nreplicas:\n"
        for (s, server) in servers.enumerated() {
            yaml += "- chunks:\n"
            for n in [s + 1, s + 4] {
                let id = Base64URL.encode([UInt8](repeating: UInt8(n), count: 16))
                let key = ReplicaKey.ed25519(seed: [UInt8](repeating: UInt8(n), count: 32)).text
                let digest = Base64URL.encode([UInt8](repeating: UInt8(n), count: 32))
                yaml += "  - \(n):\(id):\(key):\(digest)" + (n == 6 ? ":256kb" : "") + "\n"
            }
            yaml += "  server: " + server + "\n"
        }
        yaml += "size: 5376kb\n"
        let path = try temp.write("sender.yaml", Array(yaml.utf8))
        let info = try CLI.run(["transfer", "info", path, "--json"])
        #expect(info.status == 0, "\(info.stderr)")
        let sizes = #""chunkSizes":[1048576,1048576,1048576,1048576,1048576,262144]"#
        #expect(info.stdout.contains(#""party":"sender""#) && info.stdout.contains(#""chunks":6"#) && info.stdout.contains(sizes), "\(info.stdout)")
        // Sorted as SimpleX sorts servers: a.example < a.example:5443 < b.example.
        let order = "\"servers\":[\"xftp://" + hash + "@a.example\",\"xftp://" + hash + "@a.example:5443\",\"xftp://" + hash + "@b.example\"]"
        #expect(info.stdout.contains(order), "\(info.stdout)")
    }

    @Test func infoPrintsAndReadsLinksFromFilesAndStdin() throws {
        let temp = try TempFolder()
        let simplex = try CLI.run(["transfer", "info", Self.fixture("real_single_server.yaml"), "--link", "simplex"])
        let expectedSimplex = try Self.link("real_single_server.simplex-link")
        #expect(simplex.status == 0 && simplex.stdout == expectedSimplex, "\(simplex.stdout)")
        let web = try CLI.run(["transfer", "info", Self.fixture("real_single_server.yaml"), "--link", "web"])
        let expectedWeb = try Self.link("real_single_server.web-link")
        #expect(web.stdout == expectedWeb, "\(web.stdout)")
        let linkFile = try temp.write("link.txt", Array(try Self.link("real_redirect.web-link").utf8))
        let fromFile = try CLI.run(["transfer", "info", linkFile, "--json"])
        #expect(fromFile.status == 0 && fromFile.stdout.contains(#""redirect":{"size":123456"#), "\(fromFile.stderr)")
        let fromStdin = try CLI.run([], prefix: ["/bin/sh", "-c", "exec \"$0\" transfer info - --json < '\(linkFile)'"])
        #expect(fromStdin.status == 0 && fromStdin.stdout == fromFile.stdout, "\(fromStdin.stderr)")
        let sender = try CLI.run(["transfer", "info", Self.fixture("file_description.yaml").replacingOccurrences(of: "file_description", with: "file_description"),
                                  "--link", "web"])
        #expect(sender.status == 0, "the fixture's first server is example1.com: \(sender.stderr)")
        let bad = try temp.write("bad-link.txt", Array("simplex:/file#/?desc=party%3A%20sender".utf8))
        let refused = try CLI.run(["transfer", "info", bad])
        #expect(refused.status == 1 && refused.stderr.contains("not valid"), "\(refused.stderr)")
    }

    @Test func receiveRefusesWhatItCannotDownloadBeforeTouchingAnything() throws {
        let temp = try TempFolder()
        // SimpleX's fixture: 8 MiB chunks, over what any XFTP server takes.
        let big = try CLI.run(["transfer", "receive", Self.fixture("file_description.yaml"), "-o", temp.file("out"), "--temp-dir", temp.file("tmp")])
        #expect(big.status == 1 && big.stderr.contains("size of chunk 1 8388608 is over the protocol's limit of 4194304 bytes"), "\(big.stderr)")
        // A real-shaped description on SimpleX's servers, which cannot be reached from the test machine:
        // tried (with retries), named, and nothing is left at the destination.
        let xftp = try CLI.run(["transfer", "receive", Self.fixture("real_single_server.yaml"), "-o", temp.file("out"), "--temp-dir", temp.file("tmp")])
        #expect(xftp.status == 1 && xftp.stderr.contains("relay xftp1.simplex.im is unavailable"), "\(xftp.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp.file("out")))
    }

    /// A relay that refuses connections: each network operation is tried `--retry` times (3 by
    /// default, as the xftp CLI), then one sentence naming the relay and why, exit 1, within seconds.
    @Test func retriesAreBoundedAndTheRelayIsNamed() throws {
        let temp = try TempFolder()
        // SimpleX's real-shaped description, its server moved to a closed loopback port.
        let text = try String(contentsOfFile: Self.fixture("real_single_server.yaml"), encoding: .utf8)
        let closed = try temp.write("closed.yaml", Array(text.replacingOccurrences(of: "@xftp1.simplex.im", with: "@127.0.0.1:1").utf8))
        for (retry, attempts) in [(nil, 3), ("1", 1), ("5", 5)] as [(String?, Int)] {
            let started = Date()
            let run = try CLI.run(["transfer", "receive", closed, "-o", temp.file("out"), "--temp-dir", temp.file("tmp")] + (retry.map { ["--retry", $0] } ?? []))
            #expect(run.status == 1 && run.stderr.contains("relay 127.0.0.1:1 is unavailable: cannot connect: connection refused"), "\(run.stderr)")
            #expect(!run.stderr.contains("SingleConnectionFailure"), "\(run.stderr)")
            #expect(run.stderr.contains("(attempt \(attempts) of \(attempts))") == (attempts > 1), "\(run.stderr)")
            #expect(!run.stderr.contains("(attempt \(attempts + 1) of"), "\(run.stderr)")
            #expect(Date().timeIntervalSince(started) < 30)
        }
        #expect(!FileManager.default.fileExists(atPath: temp.file("out")))
        let invalid = try CLI.run(["transfer", "receive", closed, "--retry", "0"])
        #expect(invalid.status != 0 && invalid.stderr.contains("--retry must be between 1 and 20"), "\(invalid.stderr)")
    }

    @Test func sxkitsDescriptionsAreShapedAsSimpleXWritesThem() throws {
        let temp = try TempFolder()
        try FileManager.default.createDirectory(atPath: temp.file("relay"), withIntermediateDirectories: true)
        let source = try temp.write("photo.jpg", (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let sent = try CLI.run(["transfer", "send", source, "--relay", temp.file("relay"), "-o", temp.file("desc"), "--temp-dir", temp.file("tmp")])
        #expect(sent.status == 0, "\(sent.stderr)")
        let yaml = try String(contentsOfFile: temp.file("desc/photo.jpg.recipient-1.yaml"), encoding: .utf8)
        let keys = yaml.split(separator: "\n").filter { !$0.hasPrefix(" ") && !$0.hasPrefix("-") }.map { $0.split(separator: ":")[0] }
        #expect(keys == ["chunkSize", "digest", "key", "nonce", "party", "replicas", "size"])
        let lines = yaml.split(separator: "\n").filter { $0.hasPrefix("  - ") }.map { $0.dropFirst(4).split(separator: ":") }
        #expect(!lines.isEmpty)
        for parts in lines {
            #expect(parts[1].count == 24 && parts[1].hasSuffix("=="), "a 16-byte id: \(parts[1])")
            #expect(parts[2].count == 64 && parts[2].hasPrefix("MC4CAQAwBQYDK2VwBCIEI"), "a DER Ed25519 key: \(parts[2])")
            #expect(parts[3].count == 44, "a SHA-256 digest")
        }
        // And it goes through the link form to a receive.
        let link = try CLI.run(["transfer", "info", temp.file("desc/photo.jpg.recipient-1.yaml"), "--link", "simplex"])
        let linkFile = try temp.write("link.txt", Array(link.stdout.utf8))
        let got = try CLI.run(["transfer", "receive", linkFile, "-o", temp.file("in.jpg"), "--temp-dir", temp.file("rtmp"), "--relay", temp.file("relay")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try temp.read("in.jpg") == temp.read("photo.jpg"))
    }
}
