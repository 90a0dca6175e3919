import FuzzSupport
import SXCore
import SXDatabase
#if canImport(Glibc)
import Glibc
#endif

/// A migrations folder (`db migrate --migrations`): which file names are `NAME.up.sql` and
/// `NAME.down.sql`, which are ignored and which are refused, and the order of the names. Each input
/// line is a file name (any bytes but `/` and NUL; a file system holds nothing else), created empty
/// in a scratch folder that `MigrationFolder.load` then reads.
@main
enum FuzzMigrationNames: FuzzTarget {
    static func fuzz(_ bytes: UnsafeRawBufferPointer) {
        let folder = Path.join(FuzzScratch.path, "migrations")
        try? Folders.remove(folder)
        do { try Folders.create(folder) } catch { fatalError("\(error)") }
        var ups = Set<[UInt8]>()
        for line in bytes.split(separator: 0x0A) {
            let name = Array(line)
            guard name.count <= 255, name != [0x2E], name != [0x2E, 0x2E], !name.contains(0x2F), !name.contains(0) else { continue }
            let fd = open(Path.join(folder, FileNameBytes.string(name)), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
            guard fd >= 0 else { fatalError("cannot create a migration file: errno \(errno)") }
            close(fd)
            if name.first != 0x2E, name.count > 7, name.suffix(7).elementsEqual(".up.sql".utf8) { ups.insert(Array(name.dropLast(7))) }
        }
        guard let migrations = try? MigrationFolder.load(folder) else { return }
        // Every NAME.up.sql is one migration, in byte order: none may be dropped or merged.
        let names = migrations.map(\.name)
        precondition(MigrationName.strictlyIncreasing(names), "migration names out of order")
        precondition(Set(names.map { FileNameBytes.bytes($0) }) == ups, "the migrations are not the folder's NAME.up.sql files")
    }

    /// SimpleX's own migration names, as files, and the kinds of names a folder may hold.
    static func seeds() throws -> [(name: String, bytes: [UInt8])] {
        let chat = SimpleXMigrations.chat.map { $0.name + ".up.sql\n" + ($0.hasDown ? $0.name + ".down.sql\n" : "") }
        return [
            ("simplex-chat", Array(chat.prefix(40).joined().utf8)),
            ("mixed", Array("20220101_initial.up.sql\n20220101_initial.down.sql\nREADME.md\n.hidden.up.sql\nnotes.sql\n.up.sql\n".utf8)),
            ("unicode", Array("2026_caf\u{E9}.up.sql\n2026_na\u{EF}ve.down.sql\n2026_na\u{EF}ve.up.sql\n".utf8) + [0x32, 0xE9, 0x2E, 0x75, 0x70, 0x2E, 0x73, 0x71, 0x6C, 0x0A]),
        ]
    }
}
