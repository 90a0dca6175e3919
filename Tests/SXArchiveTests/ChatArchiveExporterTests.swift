import Foundation
import SXArchive
import SXCore
import SXDatabase
import SXSample
import SXTestSupport
import Testing

@Suite(.ownThreads) struct ChatArchiveExporterTests {
    let passphrase = SampleDataDirectory.defaultPassphrase

    @Test func sampleExportIsReadByOtherToolsAndExtractsByteIdentical() throws {
        let dir = try TempFolder()
        let sample = try SampleCopies.create(at: dir.file("data"))
        let data = sample.directory
        try dir.write("data/simplex_v1_files/café – notes.txt", Array(String(repeating: "compressible text\n", count: 500).utf8))
        try dir.write("data/simplex_v1_files/photo-without-extension", try dir.read("data/simplex_v1_files/IMG_1001.jpg"))
        try dir.write("data/simplex_v1_files/subfolder/inner.txt", Array("not archived".utf8))
        try FileManager.default.createSymbolicLink(atPath: dir.file("data/simplex_v1_files/link.txt"), withDestinationPath: "/etc/passwd")

        let out = dir.file("out.zip")
        let report = try ChatArchiveExporter(dataDirectory: data, passphrase: passphrase).export(to: out)

        #expect(report.archiveErrors == [.fileError(file: "link.txt",
                                                    fileError: "'\(data.filesFolder!)/link.txt' is a symbolic link; links are not followed, so it was not archived")])
        #expect(report.skipped.count == 1 && report.skipped[0].contains("subfolder"))
        #expect(try run("/usr/bin/unzip", ["-tq", out]).status == 0)
        let tar = try run("/usr/bin/bsdtar", ["-tf", out])
        #expect(tar.status == 0)

        let original = filesUnder(data.filesFolder!).filter { !$0.contains("/") && $0 != "link.txt" }
        let wallpapers = filesUnder(data.wallpapersFolder!)
        let expected = Set(["simplex_v1_chat.db", "simplex_v1_agent.db"] + original.map { "simplex_v1_files/" + $0 }
            + wallpapers.map { "simplex_v1_assets/wallpapers/" + $0 })
        #expect(Set(tar.output.split(separator: "\n").map(String.init)) == expected)
        #expect(report.entries == expected.count)
        let listed = try ZipDirectory.entries(in: out)
        #expect(Set(listed.map(\.name)) == expected)
        #expect(listed.count == expected.count, "no duplicates")

        // Extract with Info-ZIP and compare every byte with the data directory (the export
        // checkpointed the databases, so their files on disk are what was archived).
        let extracted = dir.file("x")
        #expect(try run("/usr/bin/unzip", ["-q", out, "-d", extracted]).status == 0)
        for name in expected {
            let source = name.hasPrefix("simplex_v1_files/") ? data.filesFolder! + "/" + name.dropFirst(17)
                : name.hasPrefix("simplex_v1_assets/wallpapers/") ? data.wallpapersFolder! + "/" + name.dropFirst(29)
                : data.root + "/" + name
            #expect(bytes(extracted + "/" + name) == bytes(source), "\(name) differs")
        }
        #expect((try? FileManager.default.attributesOfItem(atPath: data.chatDatabase + "-wal")[.size] as? Int) ?? 0 == 0,
                "the WAL was checkpointed and truncated")

        // Stored: what cannot shrink, judged by content. Deflated: plain text.
        let methods = Dictionary(uniqueKeysWithValues: listed.map { ($0.name, $0.zipMethod) })
        #expect(methods["simplex_v1_chat.db"] == .stored && methods["simplex_v1_agent.db"] == .stored)
        #expect(methods["simplex_v1_files/photo-without-extension"] == .stored)
        #expect(methods["simplex_v1_files/café – notes.txt"] == .deflate)
        for file in sample.files {
            let name = "simplex_v1_files/" + file.name
            if file.encrypted || file.name.hasSuffix(".jpg") || file.name.hasSuffix(".png") {
                #expect(methods[name] == .stored, "\(file.name) (encrypted: \(file.encrypted))")
            } else {
                #expect(methods[name] == .deflate, "\(file.name)")
            }
        }
        #expect(report.storedEntries + report.deflatedEntries == report.entries)
        #expect(report.archiveBytes == Int64((try FileManager.default.attributesOfItem(atPath: out)[.size] as? Int) ?? -1))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".sxkit-tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func rowsOnlyInTheWALAreInTheArchive() throws {
        let dir = try TempFolder()
        let data = try SampleCopies.create(at: dir.file("data")).directory
        // A profile old enough to be in WAL mode (2021 to early 2022), and a writer that keeps its
        // connection open with automatic checkpoints off: the new row lives only in the WAL until someone checkpoints.
        let (writer, _) = try DatabaseOpener.open(data.chatDatabase, passphrase: passphrase, mode: .readWrite)
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0; CREATE TABLE probe(x TEXT); INSERT INTO probe VALUES ('only in the WAL');")
        let walSize = (try FileManager.default.attributesOfItem(atPath: data.chatDatabase + "-wal")[.size] as? Int) ?? 0
        #expect(walSize > 0)

        let out = dir.file("out.zip")
        _ = try ChatArchiveExporter(dataDirectory: data, passphrase: passphrase).export(to: out)
        #expect(try run("/usr/bin/unzip", ["-q", out, "simplex_v1_chat.db", "-d", dir.file("x")]).status == 0)
        let copy = dir.file("x/simplex_v1_chat.db")
        #expect(!FileManager.default.fileExists(atPath: copy + "-wal"))
        let (reader, _) = try DatabaseOpener.open(copy, passphrase: passphrase, mode: .readOnly)
        #expect(try reader.scalarText("SELECT x FROM probe") == "only in the WAL")
        withExtendedLifetime(writer) {}
    }

    @Test func noCompressionStoresEverythingAndExistingArchivesNeedReplace() throws {
        let dir = try TempFolder()
        let data = try SampleCopies.create(at: dir.file("data")).directory
        let out = dir.file("out.zip")
        let old = try dir.write("out.zip", Array("old archive".utf8))
        #expect(throws: ArchiveFailure.self) { try ChatArchiveExporter(dataDirectory: data, passphrase: passphrase).export(to: old) }
        #expect(bytes(old) == Data("old archive".utf8))

        let exporter = ChatArchiveExporter(dataDirectory: data, passphrase: passphrase,
                                           options: ChatArchiveExportOptions(compress: false, replaceExisting: true))
        let report = try exporter.export(to: out)
        #expect(report.deflatedEntries == 0 && report.storedEntries == report.entries)
        let listed = try ZipDirectory.entries(in: out)
        #expect(listed.allSatisfy { $0.zipMethod == .stored && $0.compressedSize == $0.uncompressedSize })
        #expect(try run("/usr/bin/unzip", ["-tq", out]).status == 0)
    }

    @Test func wrongPassphraseFailsAndLeavesNothing() throws {
        let dir = try TempFolder()
        let data = try SampleCopies.create(at: dir.file("data")).directory
        let out = dir.file("out.zip")
        #expect(throws: DatabaseError.self) {
            try ChatArchiveExporter(dataDirectory: data, passphrase: SecretBytes(Array("wrong".utf8))).export(to: out)
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["data"])
    }

    @Test func contentDecidesTheMethod() {
        func method(_ bytes: [UInt8], compress: Bool = true) -> ZipMethod {
            bytes.withUnsafeBytes { CompressionChoice.method(size: Int64(bytes.count), sample: $0, compress: compress) }
        }
        let text = Array(String(repeating: "hello archive ", count: 400).utf8)
        var random = SplitMix64(seed: 7)
        let noise = (0..<4096).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        #expect(method(text) == .deflate)
        #expect(method(text, compress: false) == .stored)
        #expect(method(noise) == .stored)
        #expect(method([0xFF, 0xD8, 0xFF, 0xE0] + text) == .stored)
        #expect(method(Array("RIFF\0\0\0\0WEBPVP8 ".utf8) + text) == .stored)
        #expect(method([0, 0, 0, 0x18] + Array("ftypmp42".utf8) + text) == .stored)
        #expect(method([0x1F, 0x8B, 8, 0] + text) == .stored)
        #expect(method([]) == .stored)
    }
}
