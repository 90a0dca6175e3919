import Foundation
import SXArchive
import SXCore
import Testing
import SXTestSupport

@Suite(.ownThreads) struct ChatArchiveLayoutTests {
    @Test func layoutNamesRoundTrip() {
        let entries: [ChatArchiveEntry] = [.chatDatabase, .agentDatabase, .file(name: "IMG_1.jpg"), .wallpaper(name: "w.png")]
        for entry in entries {
            #expect(ChatArchiveEntry(entryName: entry.entryName) == entry)
        }
        #expect(ChatArchiveEntry.file(name: "a b.txt").entryName == "simplex_v1_files/a b.txt")
        let data = DataDirectory(root: "/d", layout: .desktop)
        #expect(ChatArchiveEntry.wallpaper(name: "w.png").destination(in: data) == "/d/simplex_v1_assets/wallpapers/w.png")
    }

    @Test func namesOutsideTheLayoutAreNotEntries() {
        for name in ["simplex_v1_files/sub/x.jpg", "simplex_v1_files/", "simplex_v1_files/..", "other.db", "simplex_v1_assets/x.png",
                     "simplex_v1_chat.db/x", "./simplex_v1_chat.db", "SIMPLEX_V1_CHAT.DB"] {
            #expect(ChatArchiveEntry(entryName: name) == nil, "\(name)")
        }
    }

    @Test func hostileNamesAreNamed() {
        let cases: [(String, String)] = [
            ("../etc/passwd", "'..'"), ("simplex_v1_files/../../x", "'..'"), ("/etc/passwd", "absolute"),
            ("simplex_v1_files\\..\\x", "backslash"), ("C:/x", "drive letter"), ("c:x", "drive letter"),
            ("simplex_v1_files/./x", "'.'"), ("a//b", "empty component"), ("", "empty"), ("a\u{1}b", "control"),
        ]
        for (name, word) in cases {
            let problem = ArchiveEntryName.problem(name)
            #expect(problem?.contains(word) == true, "\(name): \(problem ?? "accepted")")
        }
        #expect(ArchiveEntryName.problem("simplex_v1_files/IMG 1 (copy).jpg") == nil)
        #expect(ArchiveEntryName.problem("simplex_v1_files/ünïcødé.txt") == nil)
    }

    @Test func collisionsAfterCaseAndUnicodeNormalisation() {
        #expect(ArchiveEntryName.collisionKey("Photo.JPG") == ArchiveEntryName.collisionKey("photo.jpg"))
        #expect(ArchiveEntryName.collisionKey("caf\u{E9}.txt") == ArchiveEntryName.collisionKey("cafe\u{301}.txt"))
        #expect(ArchiveEntryName.collisionKey("a.txt") != ArchiveEntryName.collisionKey("b.txt"))
    }

    @Test func archiveErrorJSONIsExactlyFormats5() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let errors: [ArchiveError] = [.import(importError: "bad entry"), .fileError(file: "simplex_v1_files/a.jpg", fileError: "Permission denied")]
        let json = String(decoding: try encoder.encode(errors), as: UTF8.self)
        #expect(json == #"[{"importError":"bad entry","type":"import"},{"file":"simplex_v1_files\/a.jpg","fileError":"Permission denied","type":"fileError"}]"#)
        #expect(try JSONDecoder().decode([ArchiveError].self, from: Data(json.utf8)) == errors)
    }
}
