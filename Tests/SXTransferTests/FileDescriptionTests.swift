import Foundation
import Testing
import SXCore
import SXTestSupport
@testable import SXTransfer

/// File descriptions against SimpleX's own bytes: simplexmq's test fixture (verbatim), descriptions
/// shaped as the core writes them, and each bad input refused with its own problem.
@Suite(.ownThreads)
struct FileDescriptionTests {
    static func fixture(_ name: String) throws -> String {
        try String(contentsOfFile: VectorFiles.description(name), encoding: .utf8)
    }

    /// simplexmq tests/FileDescriptionTests.hs `fileDesc`: the Ed25519 key of every replica.
    static let fixtureKey = "MC4CAQAwBQYDK2VwBCIEIDfEfevydXXfKajz3sRkcQ7RPvfWUPoq6pu1TYHV1DEe"

    @Test("SimpleX's fixture parses into simplexmq's own value and re-encodes byte for byte")
    func simplexFixture() throws {
        let text = try Self.fixture("file_description.yaml")
        let d = try FileDescription.parse(yaml: text)
        #expect(d.yaml() == text)
        // The value of `fileDesc` in simplexmq tests/FileDescriptionTests.hs 45-98.
        #expect(d.party == .recipient && d.size == 26 << 20 && d.chunkSize == 8 << 20)
        #expect(d.digest == Array("abc".utf8))
        #expect(d.chunks.map(\.number) == [1, 2, 3, 4])
        #expect(d.chunks.map(\.size) == [8 << 20, 8 << 20, 8 << 20, 2 << 20])
        #expect(d.chunks.allSatisfy { $0.digest == Array("ghi".utf8) })
        let hosts = d.chunks.map { $0.replicas.map { r -> String in
            guard case .xftp(let server) = r.server else { return "?" }
            return server.hosts.map(\.description).joined()
        } }
        #expect(hosts == [["example1.com", "example3.com"], ["example2.com", "example4.com"], ["example1.com", "example4.com"],
                          ["example2.com", "example3.com"]])
        let replica = d.chunks[0].replicas[0].replica
        #expect(replica.id == Array("abc".utf8))
        #expect(replica.key.algorithm == .ed25519 && replica.key.text == Self.fixtureKey)
        #expect(Hex.encode(replica.key.der.prefix(16)) == "302e020100300506032b657004220420")
        guard case .xftp(let server) = d.chunks[0].replicas[0].server else { Issue.record("not an xftp server"); return }
        #expect(server.keyHash == Base64URL.decode("abc=") && server.port == "")
    }

    @Test("descriptions shaped as the core writes them re-encode byte for byte", arguments: ["real_single_server.yaml", "real_redirect.yaml"])
    func coreShaped(name: String) throws {
        let text = try Self.fixture(name)
        let d = try FileDescription.parse(yaml: text)
        #expect(d.yaml() == text)
        #expect(d.chunks.allSatisfy { $0.replicas.allSatisfy { $0.replica.id.count == 16 && $0.replica.key.algorithm == .ed25519 } })
        #expect(d.digest.count == 64 && d.chunks.allSatisfy { $0.digest.count == 32 })
        if name == "real_redirect.yaml" {
            #expect(d.redirect == FileDescription.Redirect(size: 123_456, digest: Base64URL.decode(
                "ddyae-WFomti71HBl1nUSrnEKjhqT87TVB3l98nEjTyUtWjqjEMXNl69wWEcIh6gXZdglAK8yyYDsuYPUhho-Q==")!))
            #expect(text.contains("redirect:\n  digest: ") && text.contains("\n  size: 123456\n"))
        } else {
            #expect(d.redirect == nil && d.chunks.count == 3)
        }
    }

    /// Interleaved chunks over several servers, a sender description, hosts of every kind: written in
    /// SimpleX's order (`Ord ProtocolServer`: hosts IPv4 < IPv6 < onion < domain, then port as text,
    /// then keyHash), digest and non-default size on each chunk's first replica only.
    static func coreLike() -> FileDescription {
        func server(_ text: String) -> RelayAddress { try! RelayAddress.parse(text).get() }
        let hash = Base64URL.encode([UInt8](repeating: 7, count: 32))
        let servers = ["xftp://\(hash)@xftp2.example", "xftp://\(hash)@192.168.1.9:5443", "xftp://\(hash)@abcdefghijklmnop.onion",
                       "xftp://\(hash)@xftp1.example:8443", "xftp://\(hash)@xftp1.example", "xftp://\(hash)@[::1]:443"].map(server)
        let sizes: [Int64] = [4 << 20, 4 << 20, 1 << 20, 1 << 20]
        let chunks = sizes.enumerated().map { i, size in
            FileDescription.Chunk(number: i + 1, size: size, digest: [UInt8](repeating: UInt8(i + 1), count: 32),
                                  replicas: (0..<2).map { r in
                                      .init(server: servers[(i + r * 3) % servers.count],
                                            replica: ChunkReplica(id: [UInt8](repeating: UInt8(16 * i + r), count: 16), key: .ed25519(seed: [UInt8](repeating: UInt8(i), count: 32))))
                                  })
        }
        return FileDescription(party: .sender, size: sizes.reduce(0, +), digest: [UInt8](repeating: 9, count: 64),
                               key: [UInt8](repeating: 1, count: 32), nonce: [UInt8](repeating: 2, count: 24), chunkSize: 4 << 20, chunks: chunks)
    }

    @Test("servers are grouped in SimpleX's order; chunk lines in chunk order; digest and size on the first replica")
    func serverOrder() throws {
        let yaml = Self.coreLike().yaml()
        let servers = yaml.split(separator: "\n").filter { $0.hasPrefix("  server: ") }.map { $0.dropFirst(10).split(separator: "@")[1] }
        #expect(servers == ["192.168.1.9:5443", "[::1]:443", "abcdefghijklmnop.onion", "xftp1.example", "xftp1.example:8443", "xftp2.example"])
        // Chunk 3's replicas: its first on abcdefghijklmnop.onion (with digest and size), its second on xftp2.example.
        let d3 = Base64URL.encode([UInt8](repeating: 3, count: 32))
        #expect(yaml.contains("- 3:\(Base64URL.encode([UInt8](repeating: 32, count: 16))):"))
        #expect(yaml.contains(":\(d3):1mb\n"))
        #expect(yaml.components(separatedBy: d3).count == 2, "the digest is written once")
        let back = try FileDescription.parse(yaml: yaml)
        #expect(back.party == .sender && back.chunks.map(\.size) == [4 << 20, 4 << 20, 1 << 20, 1 << 20])
        #expect(back.chunks.map(\.digest) == Self.coreLike().chunks.map(\.digest))
        #expect(back.chunks.map { Set($0.replicas.map(\.replica.id)) } == Self.coreLike().chunks.map { Set($0.replicas.map(\.replica.id)) })
        // As in SimpleX, a decoded chunk's replicas come in server order, so its digest may move to
        // another line once; from then on the text is a fixed point.
        #expect(try FileDescription.parse(yaml: back.yaml()) == back && back.yaml() == (try FileDescription.parse(yaml: back.yaml())).yaml())
    }

    @Test("chunk numbers may come in any order across groups; they are sorted, then must be 1…n")
    func interleavedNumbers() throws {
        let text = try Self.fixture("file_description.yaml")
        let gap = text.replacingOccurrences(of: "- 4:", with: "- 5:")
        #expect(Self.problem(gap) == .chunkNumbersOutOfOrder(expected: 4, found: 5))
        let sum = text.replacingOccurrences(of: "size: 26mb", with: "size: 27mb")
        #expect(Self.problem(sum) == .sizesDoNotAddUp(sum: 26 << 20, size: 27 << 20))
        let conflict = text.replacingOccurrences(of: "Z2hp:2mb", with: "Z2hp:3mb")
            .replacingOccurrences(of: "  - 4:YWJj:\(Self.fixtureKey)\n", with: "  - 4:YWJj:\(Self.fixtureKey):Z2hp:2mb\n")
        #expect(Self.problem(conflict) == .conflictingReplicas(chunk: 4))
    }

    @Test("sizes: the largest exact unit; 0 is 0gb; a byte count is quoted as YAML would read it as a number")
    func sizes() throws {
        #expect(DescriptionSize.encode(65_536) == "64kb")
        #expect(DescriptionSize.encode(4 << 20) == "4mb")
        #expect(DescriptionSize.encode(5 << 30) == "5gb")
        #expect(DescriptionSize.encode(1 << 40) == "1024gb")
        #expect(DescriptionSize.encode(1088 << 10) == "1088kb")
        #expect(DescriptionSize.encode(1000) == "1000")
        #expect(DescriptionSize.encode(0) == "0gb")
        #expect(DescriptionSize.decode("64kb") == 65_536)
        #expect(DescriptionSize.decode("12") == 12)
        #expect(DescriptionSize.decode("kb") == nil && DescriptionSize.decode("-1") == nil && DescriptionSize.decode("1tb") == nil)
        #expect(DescriptionSize.decode("9999999999gb") == nil, "overflow is refused, not wrapped")
        var odd = Self.coreLike()
        odd.chunks = [FileDescription.Chunk(number: 1, size: 1000, digest: [1], replicas: [odd.chunks[0].replicas[0]])]
        odd.size = 1000
        odd.chunkSize = 1000
        let yaml = odd.yaml()
        #expect(yaml.hasPrefix("chunkSize: '1000'\n") && yaml.hasSuffix("size: '1000'\n"))
        #expect(try FileDescription.parse(yaml: yaml) == odd)
    }

    @Test("YAML scalars are quoted exactly where Data.Yaml quotes them")
    func quoting() {
        #expect(YAMLScalar.encode("26mb") == "26mb")
        #expect(YAMLScalar.encode("1000") == "'1000'")
        #expect(YAMLScalar.encode("1e5") == "'1e5'")
        #expect(YAMLScalar.encode("0x1F") == "'0x1F'")
        #expect(YAMLScalar.encode("yes") == "'yes'")
        #expect(YAMLScalar.encode("-abc") == "-abc")
        #expect(YAMLScalar.encode("xftp://k=@h1.com,h2.onion:5223") == "xftp://k=@h1.com,h2.onion:5223")
        #expect(YAMLScalar.encode("/mnt/my relay") == "'/mnt/my relay'")
        #expect(YAMLScalar.encode("it's") == "'it''s'")
    }

    @Test("server addresses: hosts, port after every host, keyHash, password; SimpleX's refusals")
    func addresses() throws {
        let preset = "xftp://da1aH3nOT-9G8lV7bWamhxpDYdJ1xmW7j3JpGaDR5Ug=@xftp1.simplex.im,blisztokwh6alt5oem45f2eksm2xdowxszmhjesntcyolmhutoon7sid.onion"
        let parsed = try XFTPServerAddress.parse(preset).get()
        #expect(parsed.hosts.count == 2 && parsed.port.isEmpty && parsed.keyHash.count == 32 && parsed.portNumber == 443)
        #expect(parsed.description == preset)
        let local = try XFTPServerAddress.parse("xftp://LcJUMfVhwD8yxjAiSaDzzGF3-kLG4Uh0Fl_ZIjrRwjI=@localhost:8000").get()
        #expect(local.port == "8000" && local.hosts == [.domain("localhost")])
        let withAuth = try XFTPServerAddress.parse("xftp://abc=:s3cret@example.com").get()
        #expect(withAuth.basicAuth == "s3cret" && withAuth.description == "xftp://abc=:s3cret@example.com")
        #expect(try XFTPServerAddress.parse("xftp://abc=@example.com:08000").get().description == "xftp://abc=@example.com:8000")
        #expect(try XFTPServerAddress.parse("xftp://abc=@[2001:db8::1]:5443").get().hosts == [.ipv6([0x20, 0x01, 0x0d, 0xb8] + [UInt8](repeating: 0, count: 11) + [1])])
        for bad in ["xftp://k@host1.com:5000,host2.com", "smp://abc=@example.com", "xftp://abc=@", "xftp://abc=@a.b.onion",
                    "xftp://abc=@300.1.1.1", "xftp://@example.com", "xftp://a*c@example.com"] {
            #expect(throws: AddressProblem.self, "\(bad)") { try XFTPServerAddress.parse(bad).get() }
        }
        // `h` and `h:443` are different servers to SimpleX.
        #expect(try XFTPServerAddress.parse("xftp://abc=@h").get() != XFTPServerAddress.parse("xftp://abc=@h:443").get())
        // A description may not carry a server password (simplexmq Protocol.hs 1271-1277).
        let text = try Self.fixture("file_description.yaml").replacingOccurrences(of: "xftp://abc=@example4.com", with: "xftp://abc=:pw@example4.com")
        #expect(Self.problem(text) == .serverWithPassword("xftp://abc=:pw@example4.com"))
    }

    @Test("replica ids and digests of any length; keys must be PKCS#8 private keys")
    func idsDigestsKeys() throws {
        let text = try Self.fixture("file_description.yaml")
        let long = Base64URL.encode([UInt8](repeating: 5, count: 40))
        let d = try FileDescription.parse(yaml: text.replacingOccurrences(of: "- 1:YWJj:", with: "- 1:\(long):"))
        #expect(d.chunks[0].replicas.first { $0.replica.id.count == 40 } != nil)
        // Unpadded base64url is read too (padding optional, as SimpleX parses it).
        #expect(try FileDescription.parse(yaml: text.replacingOccurrences(of: "key: 00n8p1tJq5E-SGnHcYTOrS4A9I07gTA_WFD6MTFFFOY=", with: "key: 00n8p1tJq5E-SGnHcYTOrS4A9I07gTA_WFD6MTFFFOY")).key.count == 32)
        let raw32 = Base64URL.encode([UInt8](repeating: 7, count: 32))
        let badKey = text.replacingOccurrences(of: "- 3:YWJj:\(Self.fixtureKey):Z2hp", with: "- 3:YWJj:\(raw32):Z2hp")
        #expect(Self.problem(badKey).map { if case .badChunkLine = $0 { true } else { false } } == true)
        #expect(ReplicaKey(der: Base64URL.decode(Self.fixtureKey)!)?.algorithm == .ed25519)
        let x25519 = [0x30, 0x2E, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2B, 0x65, 0x6E, 0x04, 0x22, 0x04, 0x20] + [UInt8](repeating: 3, count: 32)
        #expect(ReplicaKey(der: x25519)?.algorithm == .x25519)
        #expect(ReplicaKey(der: Array(x25519.dropLast())) == nil)
        // A fresh key is the 48-byte DER SimpleX writes.
        let fresh = ReplicaKey.generate()
        #expect(fresh.der.count == 48 && fresh.text.hasPrefix("MC4CAQAwBQYDK2VwBCIEI") && fresh.text.count == 64)
        #expect(ReplicaKey(der: fresh.der) == fresh)
    }

    @Test("hostile sizes: overflowing sums and sizes are refused when parsing", arguments: [
        ("size: 26mb", "size: 9223372036854775807"), ("chunkSize: 8mb", "chunkSize: 8589934591gb"), ("Z2hp:2mb", "Z2hp:8589934592gb"),
        ("Z2hp:2mb", "Z2hp:0"),
    ])
    func hostileSizes(edit: (String, String)) throws {
        let text = try Self.fixture("file_description.yaml")
        let problem = Self.problem(text.replacingOccurrences(of: edit.0, with: edit.1))
        let refused = problem.map { p -> Bool in
            switch p {
            case .sizeOverLimit, .badSize, .sizesDoNotAddUp, .chunkSizesOverflow: true
            default: false
            }
        }
        #expect(refused == true, "\(String(describing: problem))")
    }

    /// Chunk sizes whose sum passes Int64.max: refused in words that say so (it read "9223372036854775807
    /// is over the protocol's limit of 9223372036854775807 bytes" before).
    @Test func chunkSizesThatOverflowAreNamed() throws {
        let text = try Self.fixture("file_description.yaml")
        let huge = text.replacingOccurrences(of: "chunkSize: 8mb", with: "chunkSize: 4294967296gb")
            .replacingOccurrences(of: "size: 26mb", with: "size: 8388607gb")
        let problem = Self.problem(huge)
        #expect(problem == .chunkSizesOverflow, "\(String(describing: problem))")
        #expect(DescriptionProblem.chunkSizesOverflow.description == "its chunk sizes add up to more than a 64-bit size holds (8 EiB): no file is that large")
    }

    @Test("limits before use: SimpleX's fixture parses (its chunks are 8 MiB) but no chunk over 4 MiB or file over 5 GiB is downloaded")
    func limitsBeforeUse() throws {
        let fixture = try FileDescription.parse(yaml: try Self.fixture("file_description.yaml"))
        #expect(throws: DescriptionProblem.sizeOverLimit(field: "size of chunk 1", size: 8 << 20, limit: 4 << 20)) { try fixture.checkLimits() }
        var huge = try FileDescription.parse(yaml: try Self.fixture("real_single_server.yaml"))
        huge.chunks = (1...1281).map { FileDescription.Chunk(number: $0, size: 4 << 20, digest: [1], replicas: huge.chunks[0].replicas) }
        huge.size = 1281 * (4 << 20)
        #expect(throws: DescriptionProblem.sizeOverLimit(field: "size", size: huge.size, limit: 5 << 30)) { try huge.checkLimits() }
        #expect(throws: Never.self) { try FileDescription.parse(yaml: try Self.fixture("real_single_server.yaml")).checkLimits() }
    }

    static func problem(_ yaml: String) -> DescriptionProblem? {
        do { _ = try FileDescription.parse(yaml: yaml); return nil } catch { return error }
    }

    @Test("a missing field is refused, naming it", arguments: ["party", "size", "digest", "key", "nonce", "chunkSize", "replicas"])
    func missingField(field: String) throws {
        let lines = try Self.fixture("real_single_server.yaml").split(separator: "\n", omittingEmptySubsequences: false)
        // replicas is a block: drop it with everything under it.
        let yaml = (field == "replicas" ? lines.filter { !$0.hasPrefix("replicas:") && !$0.hasPrefix("- ") && !$0.hasPrefix("  ") }
                                        : lines.filter { !$0.hasPrefix(field + ":") })
            .joined(separator: "\n")
        #expect(Self.problem(yaml) == .missingField(field))
    }

    @Test("bad values are refused, naming the field")
    func badValues() throws {
        let text = try Self.fixture("real_single_server.yaml")
        #expect(Self.problem(text.replacingOccurrences(of: "party: recipient", with: "party: observer")) == .unknownParty("observer"))
        #expect(Self.problem(text.replacingOccurrences(of: "nonce: gaNDJ3i9WzbVsA5_RZS0A3urjbz3ZLqp", with: "nonce: gaNDJ3i9WzbV+A5_RZS0A3urjbz3ZLqp"))
                == .badBase64(field: "nonce"))
        #expect(Self.problem(text.replacingOccurrences(of: "key: ap11b94loSgS3rg_YSMS88KH7VcMmTTXNBkMO73vaZw=", with: "key: YWJj"))
                == .wrongLength(field: "key", expected: 32, actual: 3))
        #expect(Self.problem("party: [unclosed").map { if case .notYAML = $0 { true } else { false } } == true)
        #expect(Self.problem("- a list\n").map { if case .notYAML = $0 { true } else { false } } == true)
        #expect(Self.problem(text + "---\nparty: sender\n").map { if case .notYAML = $0 { true } else { false } } == true, "two documents")
        let noDigest = text.replacingOccurrences(of: ":mB1R4mjP5S-9FijRc2Duw5Cy9VH_DPKi5jO9_qPwC3o=", with: "")
        #expect(Self.problem(noDigest) == .noDigest(chunk: 1))
    }

    @Test("any YAML SimpleX reads is read: another key order, quotes, comments, CRLF")
    func yamlVariants() throws {
        let text = try Self.fixture("real_single_server.yaml")
        let expected = try FileDescription.parse(yaml: text)
        var lines = text.split(separator: "\n").map(String.init)
        let size = lines.removeLast()
        lines.insert(size, at: 0)
        let variant = "# a comment\n" + lines.joined(separator: "\r\n").replacingOccurrences(of: "chunkSize: 1mb", with: "chunkSize: '1mb'") + "\r\n"
        #expect(try FileDescription.parse(yaml: variant) == expected)
    }

    @Test("saved descriptions are 0600 and load back, from YAML or from a link")
    func saveLoad() throws {
        let temp = try TempFolder()
        let path = temp.file("file.yaml")
        let d = try FileDescription.parse(yaml: try Self.fixture("real_single_server.yaml"))
        try d.save(to: path)
        #expect(try POSIXFile.status(path).st_mode & 0o777 == 0o600)
        #expect(try FileDescription.load(path) == d)
        let link = try temp.write("link.txt", Array(FileDescriptionLink.simplexLink(d).utf8) + [0x0A])
        #expect(try FileDescription.load(link) == d)
        try "party: sender\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(throws: TransferError.badDescription(path: path, problem: .missingField("chunkSize"))) { try FileDescription.load(path) }
    }
}

/// The links of a description, against link texts computed independently (Tests/Fixtures/links).
@Suite(.ownThreads)
struct FileDescriptionLinkTests {
    static func link(_ name: String) throws -> String {
        try String(contentsOfFile: VectorFiles.repositoryRoot + "/Tests/Fixtures/links/" + name, encoding: .utf8)
            .trimmingCharacters(in: .newlines)
    }

    @Test("simplex:/file links and xftp web links are the bytes SimpleX writes", arguments: ["file_description", "real_single_server", "real_redirect"])
    func encode(name: String) throws {
        let d = try FileDescription.parse(yaml: try FileDescriptionTests.fixture(name + ".yaml"))
        #expect(FileDescriptionLink.simplexLink(d) == (try Self.link(name + ".simplex-link")))
        #expect(try FileDescriptionLink.webLink(d) == (try Self.link(name + ".web-link")))
        for form in ["simplex-link", "web-link"] {
            let parsed = try FileDescriptionLink.parse(try Self.link(name + "." + form))
            #expect(parsed.description == d && parsed.data == nil)
        }
    }

    @Test("link data, the https app-server form, + and ; in the query")
    func variants() throws {
        let d = try FileDescription.parse(yaml: try FileDescriptionTests.fixture("file_description.yaml"))
        let data = "{\"something\":\"extra\",\"more\":true}"
        let withData = try Self.link("file_description.simplex-link-with-data")
        #expect(FileDescriptionLink.simplexLink(d, data: data) == withData)
        #expect(try FileDescriptionLink.parse(withData) == .init(description: d, data: data))
        let app = withData.replacingOccurrences(of: "simplex:/file#", with: "https://simplex.chat/file#")
        #expect(try FileDescriptionLink.parse(app) == .init(description: d, data: data))
        // The Android app form-encodes the data (space as +); ; separates parameters too.
        let form = withData.components(separatedBy: "&data=")[0] + ";data=" + "%7B%22a%22%3A%22b+c%22%7D"
        #expect(try FileDescriptionLink.parse(form).data == "{\"a\":\"b c\"}")
    }

    @Test("bad links are refused with their reason")
    func badLinks() throws {
        let good = try Self.link("real_single_server.simplex-link")
        #expect(throws: LinkProblem.noDescription) { try FileDescriptionLink.parse("simplex:/file#/?data=x") }
        #expect(throws: LinkProblem.self) { try FileDescriptionLink.parse(good.replacingOccurrences(of: "simplex:/file#", with: "simplex:/other#")) }
        #expect(throws: LinkProblem.notRecipient) { try FileDescriptionLink.parse(good.replacingOccurrences(of: "recipient", with: "sender")) }
        #expect(throws: LinkProblem.self) { try FileDescriptionLink.parse("https://example.com/#AAAA") }
        #expect(throws: LinkProblem.self) { try FileDescriptionLink.parse("https://example.com/#") }
        // A compressed bomb stops at the limit.
        var bomb = [UInt8](repeating: 0x41, count: 40 << 20)
        let compressed = try RawDeflate.compress(bomb)
        bomb = []
        #expect(throws: LinkProblem.tooLong(limit: TransferReceiverLimits.descriptionBytes)) {
            try FileDescriptionLink.parse("https://example.com/#" + Base64URL.encode(compressed))
        }
        // A web link needs an XFTP server to name.
        var local = try FileDescription.parse(yaml: try FileDescriptionTests.fixture("real_single_server.yaml"))
        local.chunks[0].replicas[0].server = .sxkit("/mnt/relay")
        #expect(throws: LinkProblem.noXFTPServer) { try FileDescriptionLink.webLink(local) }
    }
}
