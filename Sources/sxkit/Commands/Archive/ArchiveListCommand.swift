import ArgumentParser
import Foundation
import SXArchive
import SXCore
import SXTerminal

/// `sxkit archive list`: what a ZIP holds, read from its central directory without extracting.
struct ArchiveListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the entries of a ZIP archive: name, sizes, method, CRC-32 and time.",
        discussion: "Reads only the archive's central directory; nothing is extracted or written."
    )

    @Argument(help: ArgumentHelp("The archive to read.", valueName: "in"), completion: .file())
    var input: String

    @OptionGroup var options: GlobalOptions

    /// One entry of the `--json` document; `modifiedAt` in UTC ISO 8601.
    struct Row: Encodable {
        var name: String
        var bytes: Int64
        var compressedBytes: Int64
        var method: ZipMethod
        var crc32: String
        var modifiedAt: String
    }

    func run() throws {
        let entries = try ZipDirectory.entries(in: input)
        if options.json {
            try JSONDocument.print(["entries": entries.map {
                Row(name: $0.name, bytes: $0.uncompressedSize, compressedBytes: $0.compressedSize, method: $0.zipMethod,
                    crc32: Self.hex($0.crc32), modifiedAt: JSONTime.iso8601(epochSeconds: $0.modified))
            }])
            return
        }
        guard !options.quiet else { return }
        let out = ConsoleOutput.standardOutput
        let header = ["size", "compressed", "method", "crc32", "modified", "name"]
        let rows = entries.map {
            [String($0.uncompressedSize), String($0.compressedSize), $0.zipMethod.description, Self.hex($0.crc32), Self.local($0.modified), $0.name]
        }
        let widths = (0..<header.count - 1).map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
        func line(_ cells: [String]) -> String {
            // Numbers right-aligned, text left-aligned; the name is last and not padded.
            cells.enumerated().map { i, cell in
                guard i < widths.count else { return cell }
                let pad = String(repeating: " ", count: widths[i] - cell.count)
                return i < 2 ? pad + cell : cell + pad
            }.joined(separator: "  ")
        }
        out.writeLine(line(header))
        for row in rows { out.writeLine(line(row)) }
        let total = entries.reduce(Int64(0)) { $0 + $1.uncompressedSize }
        let packed = entries.reduce(Int64(0)) { $0 + $1.compressedSize }
        out.writeLine("\(entries.count) entries, \(ByteCount.format(total)) in \(ByteCount.format(packed))")
    }

    static func hex(_ crc: UInt32) -> String {
        let digits = String(crc, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The table's local time.
    static func local(_ seconds: Int64) -> String {
        var t = time_t(seconds)
        var parts = tm()
        _ = localtime_r(&t, &parts)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d",
                      parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec)
    }
}
