import Foundation
import SXArchive
import SXCore
import SXTestSupport

/// Builds test archives with Python's `zipfile`, which writes what a hostile tool would: `../`
/// names, absolute names, links and devices through external attributes, duplicates, bombs, flags —
/// and raw byte patches for headers that disagree.
enum ZipFixture {
    static let prelude = #"""
    import os, struct, sys, zipfile, unicodedata
    out = sys.argv[1]
    def info(name, mode=0o100644, method=zipfile.ZIP_DEFLATED):
        i = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))
        i.create_system = 3
        i.external_attr = mode << 16
        i.compress_type = method
        return i
    def base(z, files=True, agent=True):
        z.writestr(info('simplex_v1_chat.db'), os.urandom(8192))
        if agent: z.writestr(info('simplex_v1_agent.db'), os.urandom(4096))
        if files: z.writestr(info('simplex_v1_files/a.txt'), b'hello\n' * 100)
    def patch(which, name, field, value):
        data = bytearray(open(out, 'rb').read())
        sig, hl, nl_off = (b'PK\x03\x04', 30, 26) if which == 'local' else (b'PK\x01\x02', 46, 28)
        offs = {'local': {'flags': 6, 'crc': 14, 'csize': 18, 'usize': 22}, 'central': {'flags': 8, 'crc': 16, 'csize': 20, 'usize': 24}}[which]
        p = 0
        while True:
            p = data.find(sig, p)
            if p < 0: raise SystemExit('header not found: ' + name)
            nl = struct.unpack_from('<H', data, p + nl_off)[0]
            if bytes(data[p + hl:p + hl + nl]) == name.encode():
                if field == 'name': data[p + hl:p + hl + nl] = value.encode()
                elif field == 'flags': struct.pack_into('<H', data, p + offs[field], value)
                else: struct.pack_into('<I', data, p + offs[field], value)
                open(out, 'wb').write(data)
                return
            p += 4
    """#

    /// The fixture's Python script failed: a broken test, never an archive refusal.
    struct ScriptFailed: Error, CustomStringConvertible {
        let stderr: String
        var description: String { "fixture script failed: \(stderr)" }
    }

    /// Runs `body` (Python, after the prelude; `out` is the archive's path) and returns the path.
    static func make(_ folder: TempFolder, _ name: String, _ body: String) throws -> String {
        let path = folder.file(name)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-W", "ignore", "-c", prelude + "\n" + body, path]
        let err = Pipe()
        process.standardError = err
        try process.run()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ScriptFailed(stderr: String(decoding: message, as: UTF8.self))
        }
        return path
    }

    /// A data directory with stand-in databases and files: enough for every refusal, which happens
    /// before any database is opened.
    static func dataDirectory(_ folder: TempFolder) throws -> DataDirectory {
        try folder.write("data/simplex_v1_chat.db", (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
        try folder.write("data/simplex_v1_agent.db", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 3) })
        try folder.write("data/simplex_v1_files/old.txt", Array("old file\n".utf8))
        try folder.write("data/simplex_v1_assets/wallpapers/w.jpg", [0xFF, 0xD8, 0xFF, 0xE0])
        try FileManager.default.createDirectory(atPath: folder.file("tmp"), withIntermediateDirectories: true)
        return DataDirectory(root: folder.file("data"), layout: .desktop)
    }
}
