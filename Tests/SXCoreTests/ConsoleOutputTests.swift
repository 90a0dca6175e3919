import Foundation
import SXCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A pipe whose write end is wrapped in a ConsoleOutput; the read end collects what was written.
final class CapturedOutput {
    let output: ConsoleOutput
    private let readEnd: Int32
    private var writeEnd: Int32

    init() throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FileSystemError("create a pipe", path: "<pipe>") }
        readEnd = fds[0]
        writeEnd = fds[1]
        output = ConsoleOutput(descriptor: writeEnd)
    }

    deinit {
        close(readEnd)
        if writeEnd >= 0 { close(writeEnd) }
    }

    /// Closes the write end and returns everything written.
    func text() -> String {
        if writeEnd >= 0 { close(writeEnd); writeEnd = -1 }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(readEnd, &buffer, buffer.count)
            if n <= 0 { break }
            bytes += buffer[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

@Suite("ByteCount")
struct ByteCountTests {
    @Test func bytesBelowOneKiB() {
        #expect(ByteCount.format(0) == "0 B")
        #expect(ByteCount.format(1) == "1 B")
        #expect(ByteCount.format(1023) == "1023 B")
    }

    @Test func binaryUnitsWithTwoDecimalsBelowTenAndOneAbove() {
        #expect(ByteCount.format(1024) == "1.00 KiB")
        #expect(ByteCount.format(1536) == "1.50 KiB")
        #expect(ByteCount.format(10 * 1024) == "10.0 KiB")
        #expect(ByteCount.format(1_048_576) == "1.00 MiB")
        #expect(ByteCount.format(261_120) == "255.0 KiB")
        #expect(ByteCount.format(3 * 1_073_741_824 / 2) == "1.50 GiB")
        #expect(ByteCount.format(5 * 1_099_511_627_776) == "5.00 TiB")
    }

    @Test func tebibytesIsTheLargestUnit() {
        #expect(ByteCount.format(2048 * 1_099_511_627_776) == "2048.0 TiB")
    }

    @Test func negativeCounts() {
        #expect(ByteCount.format(-5) == "-5 B")
        #expect(ByteCount.format(-2048) == "-2.00 KiB")
    }
}

@Suite("JSONText")
struct JSONTextTests {
    @Test func plainTextIsQuoted() {
        #expect(JSONText.quote("") == "\"\"")
        #expect(JSONText.quote("abc") == "\"abc\"")
    }

    @Test func quotesBackslashesAndCommonControlsAreEscaped() {
        #expect(JSONText.quote("a\"b") == #""a\"b""#)
        #expect(JSONText.quote("a\\b") == #""a\\b""#)
        #expect(JSONText.quote("1\n2\r3\t4") == #""1\n2\r3\t4""#)
    }

    @Test func otherControlCharactersUseUnicodeEscapes() {
        #expect(JSONText.quote("\u{00}") == #""\u0000""#)
        #expect(JSONText.quote("\u{01}\u{1F}") == #""\u0001\u001f""#)
        #expect(JSONText.quote("\u{08}\u{0C}") == #""\u0008\u000c""#)
        #expect(JSONText.quote("\u{7F}") == "\"\u{7F}\"", "DEL needs no escape in JSON")
    }

    @Test func nonASCIIIsKeptAsIs() {
        #expect(JSONText.quote("café ☕️ 🔑 пароль") == "\"café ☕️ 🔑 пароль\"")
        #expect(JSONText.quote("/slash") == "\"/slash\"")
    }

    @Test func outputParsesBackToTheSameString() throws {
        let original = "q\"b\\s/\n\r\t\u{00}\u{07}\u{1B}[0m é 🔑 \u{2028}"
        let document = "[" + JSONText.quote(original) + "]"
        let parsed = try JSONSerialization.jsonObject(with: Data(document.utf8)) as? [String]
        #expect(parsed == [original])
    }
}

@Suite("ConsoleOutput")
struct ConsoleOutputTests {
    @Test func writesLinesToItsDescriptor() throws {
        let captured = try CapturedOutput()
        captured.output.write("one")
        captured.output.writeLine(" two")
        captured.output.writeLine("три")
        #expect(captured.text() == "one two\nтри\n")
    }

    @Test func aPipeIsNotATerminalAndHasTheDefaultWidth() throws {
        let captured = try CapturedOutput()
        #expect(!captured.output.isTerminal)
        #expect(captured.output.terminalWidth() == 80)
    }

    @Test func concurrentLinesNeverInterleave() throws {
        let captured = try CapturedOutput()
        let output = captured.output
        let line = String(repeating: "x", count: 200)
        // 200 lines of 201 bytes stay below the pipe's buffer, so nothing blocks before we read.
        ParallelWork.forEach(count: 200, jobs: 8) { i in
            output.writeLine("\(i % 10)" + line)
        }
        let lines = captured.text().split(separator: "\n")
        #expect(lines.count == 200)
        #expect(lines.allSatisfy { $0.count == 201 && $0.dropFirst().allSatisfy { $0 == "x" } })
    }
}
