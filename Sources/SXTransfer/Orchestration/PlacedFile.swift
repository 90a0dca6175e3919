import Foundation
import SXCore

/// Written into a receive's work folder just before its file is put in place, and gone with the
/// folder: the file's path, and the device and inode it has (link and rename keep them). A run
/// killed between the two leaves it; the rerun finds that very file at that path, and is done,
/// instead of refusing it as an existing output.
struct PlacedFile: Codable, Equatable {
    static let fileName = "placed.json"
    var path: String
    var fileName: String
    var size: Int64
    var device: UInt64
    var inode: UInt64

    init(path: String, fileName: String, status st: stat) {
        self.path = path
        self.fileName = fileName
        size = Int64(st.st_size)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }

    func write(into work: String) throws {
        try AtomicFileWriter.write(Array(try JSONEncoder().encode(self)), to: Path.join(work, Self.fileName), mode: 0o600)
    }

    static func remove(from work: String) { unlink(Path.join(work, fileName)) }

    /// The record in `work`, when the file it names is there as it was placed.
    static func found(in work: String) -> PlacedFile? {
        guard let bytes = try? FileBytes.read(Path.join(work, fileName), limit: 64 << 10),
              let placed = try? JSONDecoder().decode(PlacedFile.self, from: Data(bytes)),
              let st = POSIXFile.linkStatus(placed.path), (st.st_mode & S_IFMT) == S_IFREG,
              UInt64(st.st_dev) == placed.device, UInt64(st.st_ino) == placed.inode, Int64(st.st_size) == placed.size else { return nil }
        return placed
    }
}
