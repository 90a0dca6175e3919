import FuzzSupport
import SXTransfer

/// File descriptions and the links that carry them, read as `transfer receive` and `migrate receive`
/// read a description file: YAML, a `simplex:/file#/?desc=` link, an `https://…/file#/?` link, or the
/// xftp CLI's web link (base64url of raw DEFLATE).
@main
enum FuzzDescriptions: FuzzTarget {
    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        guard let text = String(validating: bytes, as: UTF8.self),
              let (description, _) = try? FileDescription.parse(text, source: "<fuzz>") else { return }
        // What sxkit writes of it (a saved redirect, a migration's description) reads back as the
        // same description. Up to the order of each chunk's replicas: the YAML groups them by server
        // in SimpleX's order, as simplexmq's `groupReplicasByServer` does.
        let again = try? FileDescription.parse(yaml: description.yaml())
        precondition(again.map(replicasByServer) == replicasByServer(description), "a written description does not read back")
        _ = try? description.validate()
        _ = try? description.checkLimits()
        _ = FileDescriptionLink.simplexLink(description)
        _ = try? FileDescriptionLink.webLink(description)
    }

    static func replicasByServer(_ description: FileDescription) -> FileDescription {
        var sorted = description
        for index in sorted.chunks.indices { sorted.chunks[index].replicas.sort { $0.server < $1.server } }
        return sorted
    }

    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        try FuzzFixtures.folder("descriptions") + FuzzFixtures.folder("links")
    }
}
