import Foundation
import SXCore
import SXTerminal
import SXTransfer

/// After a receive that stopped: what is kept for a rerun to resume from, so that the user knows
/// running the command again does not start over, and where the space went.
enum ReceiveResumeNote {
    static func write(_ receiver: TransferReceiver, _ description: FileDescription) {
        guard let kept = receiver.kept(for: description) else { return }
        let places = kept.plaintext.map { "\(kept.workFolder) and, decrypted, in the private temp file \($0)" } ?? kept.workFolder
        ConsoleOutput.standardError.writeLine("sxkit: \(kept.chunks) of \(description.chunks.count) chunk(s) (\(ByteCount.format(kept.bytes))) were "
            + "received and are kept in \(places): run the same command again to resume (or delete "
            + (kept.plaintext == nil ? "that folder" : "both") + " to give up)")
    }
}
