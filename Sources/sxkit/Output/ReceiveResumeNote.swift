import Foundation
import SXCore
import SXTerminal

/// After a receive that stopped: which verified chunks are kept for a rerun to resume from, so that
/// the user knows running the command again does not start over, and where the space went.
enum ReceiveResumeNote {
    static func write(workFolder: String, chunks: Int) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: workFolder)) ?? []
        let kept = names.filter { $0.hasPrefix("chunk-") && !$0.hasSuffix(".part") }
        guard !kept.isEmpty else { return }
        let bytes = kept.reduce(Int64(0)) { $0 + (POSIXFile.linkStatus(Path.join(workFolder, $1)).map { Int64($0.st_size) } ?? 0) }
        ConsoleOutput.standardError.writeLine("sxkit: \(kept.count) of \(chunks) chunk(s) (\(ByteCount.format(bytes))) were received and are kept in "
            + "\(workFolder): run the same command again to resume (or delete that folder to give up)")
    }
}
