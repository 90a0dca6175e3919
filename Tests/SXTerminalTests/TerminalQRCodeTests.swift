import Foundation
import Testing
import SXTerminal

/// The terminal QR code decodes, with zbar (an independent reader), to the text it was made from.
@Suite struct TerminalQRCodeTests {
    static let zbar = "/usr/bin/zbarimg"

    /// The printed lines back to modules: each character is two modules stacked; light is a block.
    private func pixels(_ lines: [String]) -> [[Bool]] {
        var rows: [[Bool]] = []
        for line in lines {
            var top: [Bool] = [], bottom: [Bool] = []
            for character in line {
                let (t, b): (Bool, Bool)
                switch character {
                case "█": (t, b) = (false, false)
                case "▀": (t, b) = (false, true)
                case "▄": (t, b) = (true, false)
                default: (t, b) = (true, true)
                }
                top.append(t)
                bottom.append(b)
            }
            rows.append(top)
            rows.append(bottom)
        }
        return rows  // true = dark
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: zbar)))
    func aMigrationSizedLinkScansBack() throws {
        let link = "simplex:/file#/?desc=" + String(repeating: "chunkSize%3A%2064kb%0Adigest%3A%20UIpKCgkrN9mVFTnBoPzL1S", count: 14)
            + "&data=%7B%22networkConfig%22%3A%7B%22hostMode%22%3A%22public%22%7D%7D"
        let lines = try #require(TerminalQRCode.lines(link))
        let rows = pixels(lines)
        // A PBM image, each module 4x4 pixels.
        let scale = 4
        var pbm = "P1\n\(rows[0].count * scale) \(rows.count * scale)\n"
        for row in rows {
            let line = row.flatMap { Array(repeating: $0 ? "1" : "0", count: scale) }.joined(separator: " ")
            for _ in 0..<scale { pbm += line + "\n" }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sxkit-qr-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let image = folder.appendingPathComponent("code.pbm")
        try Data(pbm.utf8).write(to: image)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.zbar)
        process.arguments = ["--quiet", "--raw", "-Sbinary", image.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let decoded = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(String(decoding: decoded, as: UTF8.self).trimmingCharacters(in: .newlines) == link)
    }

    @Test func tooLongForAQRCodeIsNil() {
        #expect(TerminalQRCode.lines(String(repeating: "x", count: 5000)) == nil)
    }
}
