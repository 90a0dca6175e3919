import Foundation
import Testing
import SXCore
import SXRelayHTTP
import SXTestSupport
import SXTransfer

/// Relay locations (URL or folder) and the per-run factory that opens each once.
struct RelayFactoryTests {
    static let xftpServer = try! RelayAddress.parse("xftp://\(Base64URL.encode([UInt8](repeating: 7, count: 32)))@xftp1.example").get()

    @Test func aURLIsAnHTTPRelayAndAnythingElseAFolderMadeAbsolute() {
        #expect(RelayLocation("https://relay.example/x") == .http(url: "https://relay.example/x"))
        #expect(RelayLocation("http://127.0.0.1:9").isHTTP)
        #expect(RelayLocation("/mnt/share") == .folder(path: "/mnt/share"))
        #expect(RelayLocation("share") == .folder(path: Path.absolute("share")))
        #expect(!RelayLocation("share").isHTTP)
    }

    @Test func aFolderRelayOpensOnlyWhenTheFolderExists() throws {
        let dir = try TempFolder()
        let relay = try RelayLocation(dir.path).open()
        #expect(relay.address == .sxkit(dir.path))
        let missing = dir.file("not-mounted")
        #expect(throws: RelayLocationError.folderMissing(path: missing)) { _ = try RelayLocation(missing).open() }
        // The sentence says what to do in the domain's words, never with a command-line flag.
        let sentence = RelayLocationError.folderMissing(path: missing).description
        #expect(sentence == "relay folder '\(missing)' does not exist; mount the disk or share, or create the folder")
        #expect(!sentence.contains("--"))
        // A file where the folder should be is no relay folder either.
        try dir.write("file", [1])
        #expect(throws: RelayLocationError.folderMissing(path: dir.file("file"))) { _ = try RelayLocation(dir.file("file")).open() }
    }

    @Test func eachLocationIsOpenedOnceForTheRun() async throws {
        let factory = RelayFactory(override: nil)
        let first = try factory.relay(for: .sxkit("http://127.0.0.1:9"))
        let again = try factory.relay(for: .sxkit("http://127.0.0.1:9"))
        let other = try factory.relay(for: .sxkit("http://127.0.0.1:10"))
        #expect(first as AnyObject === again as AnyObject)
        #expect(first as AnyObject !== other as AnyObject)
        await (first as? HTTPChunkRelay)?.shutdown()
        await (other as? HTTPChunkRelay)?.shutdown()
    }

    @Test func anOverrideServesEveryReplicaAndAnXFTPServerIsRefusedWithoutOne() throws {
        let dir = try TempFolder()
        let overridden = RelayFactory(override: dir.path)
        #expect(try overridden.relay(for: .sxkit("/elsewhere")).address == .sxkit(dir.path))
        #expect(try overridden.resolver(Self.xftpServer).address == .sxkit(dir.path))
        let plain = RelayFactory(override: nil)
        #expect(throws: RelayError.self) { _ = try plain.relay(for: Self.xftpServer) }
        #expect(throws: RelayLocationError.folderMissing(path: "/elsewhere")) { _ = try plain.relay(for: .sxkit("/elsewhere")) }
    }
}
