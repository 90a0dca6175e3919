import Foundation
import SXArchive
import SXCore
import SXTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite(.ownThreads) struct ZipWriterTests {
    /// Writes entries named `entry-N` with `body(N)` as content.
    func writeZip(_ path: String, count: Int, method: ZipMethod = .stored, body: (Int) -> [UInt8]) throws {
        let fd = try POSIXFile.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        defer { close(fd) }
        let zip = try ZipWriter(descriptor: fd, path: path)
        let when = timespec(tv_sec: 1_700_000_000, tv_nsec: 0)
        for i in 0..<count {
            let bytes = body(i)
            try zip.beginEntry(name: "entry-\(i)", size: Int64(bytes.count), modified: when, permissions: 0o644, method: method)
            try bytes.withUnsafeBytes { try zip.write($0) }
            try zip.finishEntry()
        }
        try zip.close()
    }

    /// More than 65,535 entries need the Zip64 end records; Info-ZIP, bsdtar and our reader must all
    /// see every entry.
    @Test func seventyThousandEntriesUseZip64EndRecords() throws {
        let dir = try TempFolder()
        let out = dir.file("many.zip")
        let count = 70_000
        try writeZip(out, count: count) { Array("\($0)".utf8) }
        let entries = try ZipDirectory.entries(in: out)
        #expect(entries.count == count)
        #expect(entries.last?.name == "entry-69999" && entries.last?.uncompressedSize == 5)
        #expect(entries.first?.modified == 1_700_000_000)
        let raw = try #require(bytes(out))
        #expect(raw.range(of: Data([0x50, 0x4B, 0x06, 0x06])) != nil, "Zip64 end-of-central-directory record")
        #expect(try run("/usr/bin/unzip", ["-tq", out]).status == 0)
        let tar = try run("/bin/sh", ["-c", "bsdtar -tf '\(out)' | wc -l"])
        #expect(tar.output.trimmingCharacters(in: .whitespacesAndNewlines) == "\(count)")
    }

    @Test func deflateAndStoredRoundTripWithCRC() throws {
        let dir = try TempFolder()
        let out = dir.file("two.zip")
        let text = Array(String(repeating: "a line of text\n", count: 1000).utf8)
        try writeZip(out, count: 1, method: .deflate) { _ in text }
        let entry = try #require(try ZipDirectory.entries(in: out).first)
        #expect(entry.zipMethod == .deflate && entry.uncompressedSize == Int64(text.count) && entry.compressedSize < 1000)
        let verbose = try run("/usr/bin/unzip", ["-v", out])
        #expect(verbose.output.contains(String(format: "%08x", entry.crc32)), "\(verbose.output)")
        #expect(try run("/usr/bin/unzip", ["-p", out, "entry-0"]).output == String(decoding: text, as: UTF8.self))
    }

    @Test func notAZipIsAClearError() throws {
        let dir = try TempFolder()
        let path = try dir.write("not.zip", Array(repeating: 0x41, count: 100))
        #expect {
            try ZipDirectory.entries(in: path)
        } throws: { "\($0)".contains("is not a ZIP archive") }
    }

    /// A single entry over 4 GiB (Zip64 sizes). Opt-in: it writes 4.1 GiB of disk.
    @Test(.enabled(if: ProcessInfo.processInfo.environment["SXKIT_STRESS"] == "1"))
    func entryOverFourGiB() throws {
        let dir = try TempFolder()
        let out = dir.file("big.zip")
        let size: Int64 = (4 << 30) + 12345
        let fd = try POSIXFile.open(out, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        let zip = try ZipWriter(descriptor: fd, path: out)
        try zip.beginEntry(name: "big", size: size, modified: timespec(tv_sec: 0, tv_nsec: 0), permissions: 0o644, method: .stored)
        let chunk = [UInt8](repeating: 0x5A, count: 1 << 20)
        var left = size
        while left > 0 {
            let n = Int(min(left, Int64(chunk.count)))
            try chunk.withUnsafeBytes { try zip.write(UnsafeRawBufferPointer(rebasing: $0[0..<n])) }
            left -= Int64(n)
        }
        try zip.finishEntry()
        try zip.beginEntry(name: "after", size: 2, modified: timespec(tv_sec: 0, tv_nsec: 0), permissions: 0o644, method: .deflate)
        try Array("ok".utf8).withUnsafeBytes { try zip.write($0) }
        try zip.finishEntry()
        try zip.close()
        close(fd)
        let entries = try ZipDirectory.entries(in: out)
        #expect(entries.map(\.uncompressedSize) == [size, 2])
        #expect(try run("/usr/bin/unzip", ["-tq", out]).status == 0)
    }
}
