import CVips
import Foundation
import Synchronization

/// Hands each failing libvips call its own error text.
///
/// libvips 8.14 keeps ONE process-wide error buffer that every thread appends to. Two jobs failing at
/// the same time (a batch on two cores) would each read both messages, or one would read both and the
/// other nothing. So every read happens here, under one lock: the buffer is taken and cleared
/// atomically (`vips_error_buffer_copy`), split into lines, and the lines go to a shared pool. The
/// caller claims the lines that name its own file, plus lines that name no file at all; a line that
/// names another file stays in the pool for that file's job (lines older than a few seconds are
/// dropped, so the pool cannot grow). A line that names no file and was written by another thread in
/// the same instant can still go to the wrong job: libvips gives no way to tell; every loader message
/// that matters for a user ("file … does not exist", "… is not a known file format") names its file.
enum VipsErrorLog {
    private struct Line {
        let text: String
        let taken: ContinuousClock.Instant
    }

    private static let pool = Mutex<[Line]>([])
    private static let keep = Duration.seconds(5)

    /// Takes libvips' pending text and returns the lines that belong to the failure of a call about
    /// `subject` (a file path, or nil when the call had none).
    static func claim(subject: String?) -> [String] {
        pool.withLock { lines in
            let now = ContinuousClock.now
            if let copy = vips_error_buffer_copy() {
                let text = String(cString: copy)
                g_free(copy)
                for line in text.split(whereSeparator: \.isNewline) {
                    let trimmed = line.trimmingCharacters(in: .whitespaces)
                    if !trimmed.isEmpty { lines.append(Line(text: trimmed, taken: now)) }
                }
            }
            lines.removeAll { now - $0.taken > keep }
            var mine: [String] = []
            lines.removeAll { line in
                let belongs = (subject.map { line.text.contains($0) } ?? false) || !namesAFile(line.text)
                if belongs { mine.append(line.text) }
                return belongs
            }
            return mine
        }
    }

    /// Drops whatever is pending (text from calls whose failure is handled without a message).
    static func discard() {
        _ = claim(subject: nil)
    }

    /// libvips quotes the file it is talking about: `VipsForeignLoad: "/a/b.jpg" is not a known file
    /// format`, `file "/a/b.jpg" does not exist`, `unable to open "/a/b.jpg"`.
    private static func namesAFile(_ line: String) -> Bool {
        guard let open = line.firstIndex(of: "\"") else { return false }
        let rest = line[line.index(after: open)...]
        guard let close = rest.firstIndex(of: "\"") else { return false }
        let quoted = rest[..<close]
        return quoted.hasPrefix("/") || quoted.contains(".")
    }
}
