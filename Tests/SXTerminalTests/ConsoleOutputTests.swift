import Foundation
import SXCore
import SXTerminal
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
        // Children other tests spawn meanwhile must not inherit either end.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
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
