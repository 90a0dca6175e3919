#if canImport(Glibc)
import Glibc
#endif
import SXCore
import Testing
import SXTestSupport

/// `readdir` entries are only as long as their names: a name must be read up to its NUL and no
/// further (found by the fuzz runs: copying `d_name` whole read past glibc's buffer).
@Suite(.ownThreads) struct DirectoryEntryNameTests {
    @Test func aNameIsReadUpToItsNULEvenWhenTheEntryEndsAtAnUnreadablePage() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let memory = try #require(mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0))
        #expect(memory != MAP_FAILED)
        defer { munmap(memory, 2 * page) }
        #expect(mprotect(memory + page, page, PROT_NONE) == 0)
        // A 24-byte entry, as glibc lays out one named "abcd": 19 bytes of header, the name, its NUL,
        // ending exactly where the unreadable page starts (the old code copied 256 bytes from there).
        let nameOffset = MemoryLayout<dirent>.offset(of: \.d_name) ?? 19
        let entry = memory + page - (nameOffset + 5)
        entry.storeBytes(of: 0, toByteOffset: 0, as: UInt8.self)
        (entry + nameOffset).copyMemory(from: [UInt8]("abcd\0".utf8), byteCount: 5)
        #expect(Folders.entryName(entry.assumingMemoryBound(to: dirent.self)) == Array("abcd".utf8))
    }

    @Test func namesThatAreNotUTF8AndNamesOf255BytesListExactly() throws {
        let folder = try PrivateFolder(label: "entry-names")
        defer { folder.remove() }
        let long = [UInt8](repeating: 0x6C, count: 255)
        let latin1: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
        for name in [long, latin1, [0x61]] {
            let fd = open(Path.join(folder.path, FileNameBytes.string(name)), O_WRONLY | O_CLOEXEC | O_CREAT, 0o600)
            #expect(fd >= 0)
            close(fd)
        }
        let listed = try Folders.names(in: folder.path).map(FileNameBytes.bytes).sorted { $0.lexicographicallyPrecedes($1) }
        #expect(listed == [[0x61], latin1, long])
    }
}
