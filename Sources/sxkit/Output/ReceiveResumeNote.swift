import Foundation
import SXCore
import SXTerminal
import SXTransfer

/// After a receive that stopped: what is kept for a rerun to resume from, so that the user knows
/// running the command again does not start over, and where the space went.
enum ReceiveResumeNote {
    static func write(_ receiver: TransferReceiver, _ description: FileDescription) {
        guard let kept = receiver.kept(for: description) else { return }
        var places = kept.workFolder
        var count = 1
        if let plaintext = kept.plaintext {
            places += " and, decrypted, in the private temp file \(plaintext)"
            count += 1
        }
        if let redirect = kept.redirectFolder {
            places += ", with the description the link names in \(redirect)"
            count += 1
        }
        ConsoleOutput.standardError.writeLine("sxkit: \(kept.chunks) of \(kept.total) chunk(s) (\(ByteCount.format(kept.bytes))) were "
            + "received and are kept in \(places): run the same command again to resume (or delete "
            + (count == 1 ? "that folder" : count == 2 ? "both" : "all three") + " to give up)")
    }
}
