import Foundation
import SXCore
import SXTransfer

/// A description given on the command line: a file holding its YAML or one of its links, or `-` for
/// stdin. Never the link itself: a link carries the file's key, and argv is visible to every user of
/// the machine.
enum DescriptionArgument {
    static func load(_ argument: String) throws -> (FileDescription, data: String?) {
        guard argument == "-" else { return try FileDescription.loadWithData(argument) }
        let bytes = try FileBytes.readAll(descriptor: FileHandle.standardInput.fileDescriptor, limit: TransferReceiverLimits.descriptionBytes,
                                          path: "<stdin>")
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw TransferError.badDescription(path: "<stdin>", problem: .notYAML("not UTF-8"))
        }
        return try FileDescription.parse(text, source: "<stdin>")
    }
}
