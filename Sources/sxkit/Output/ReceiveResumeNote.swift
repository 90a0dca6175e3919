import Foundation
import SXCore
import SXTerminal
import SXTransfer

/// After a receive that stopped: what is kept for a rerun to resume from, so that the user knows
/// running the command again does not start over, and where the space went.
enum ReceiveResumeNote {
    static func write(_ receiver: TransferReceiver, _ description: FileDescription) {
        guard let kept = receiver.kept(for: description) else { return }
        var places = [kept.workFolder]
        if let plaintext = kept.plaintext { places.append("(decrypted) the private temp file \(plaintext)") }
        if let redirect = kept.redirectFolder { places.append("(the description the link names) \(redirect)") }
        let listed = places.count == 1 ? places[0] : places.dropLast().joined(separator: ", ") + " and " + places.last!
        ConsoleOutput.standardError.writeLine("sxkit: \(kept.chunks) of \(kept.total) chunk(s) (\(ByteCount.format(kept.bytes))) were "
            + "received and are kept in \(listed): run the same command again to resume (or delete "
            + (places.count == 1 ? "that folder" : places.count == 2 ? "both" : "all three") + " to give up)")
    }
}
