import SXCore
import Testing
import SXTestSupport

@Suite("Path", .ownThreads)
struct PathTests {
    @Test func absoluteNormalisesDotsAndSlashes() {
        #expect(Path.absolute("/a/./b/../c") == "/a/c")
        #expect(Path.absolute("//a//b///") == "/a/b")
        #expect(Path.absolute("/a/b/../../..") == "/")
        #expect(Path.absolute("/..") == "/")
        #expect(Path.absolute("/") == "/")
        #expect(Path.absolute("/a/.../b") == "/a/.../b", "three dots is a name")
        #expect(Path.absolute("/a/..b/.c") == "/a/..b/.c")
    }

    @Test func absoluteResolvesRelativePathsAgainstTheBase() {
        #expect(Path.absolute("x/y", relativeTo: "/base") == "/base/x/y")
        #expect(Path.absolute("../x", relativeTo: "/base/sub/") == "/base/x")
        #expect(Path.absolute(".", relativeTo: "/base") == "/base")
        #expect(Path.absolute("", relativeTo: "/base") == "/base")
        #expect(Path.absolute("/abs", relativeTo: "/base") == "/abs")
    }

    @Test func absoluteDoesNotResolveSymlinksOrTilde() {
        #expect(Path.absolute("~/x", relativeTo: "/b") == "/b/~/x")
    }

    @Test func relativeInsideFolder() {
        #expect(Path.relative("/a/b/c", inside: "/a") == "b/c")
        #expect(Path.relative("/a/b/c", inside: "/a/") == "b/c")
        #expect(Path.relative("/a/b", inside: "/") == "a/b")
        #expect(Path.relative("/a", inside: "/a") == nil, "the folder itself is not inside it")
        #expect(Path.relative("/a/", inside: "/a") == nil)
        #expect(Path.relative("/ab/c", inside: "/a") == nil, "a shared name prefix is not containment")
        #expect(Path.relative("/x/y", inside: "/a") == nil)
    }

    @Test func parentEdgeCases() {
        #expect(Path.parent("/a/b/c") == "/a/b")
        #expect(Path.parent("/a/b/") == "/a")
        #expect(Path.parent("/a") == "/")
        #expect(Path.parent("/") == "/")
        #expect(Path.parent("name") == ".")
        #expect(Path.parent("dir/name") == "dir")
        #expect(Path.parent("") == ".")
    }

    @Test func basenameEdgeCases() {
        #expect(Path.basename("/a/b/c.txt") == "c.txt")
        #expect(Path.basename("/a/b/") == "b")
        #expect(Path.basename("name") == "name")
        #expect(Path.basename("/a") == "a")
        #expect(Path.basename("/home/u/.simplex") == ".simplex")
        #expect(Path.basename("") == "")
        #expect(Path.basename("/") == "")
    }

    /// The helpers work on UTF-8 bytes; names with multi-byte and combining characters keep every byte.
    @Test func basenameAndParentKeepNonASCIINames() {
        #expect(Path.basename("/a/café/ñandú 🦤.jpg") == "ñandú 🦤.jpg")
        #expect(Path.parent("/a/café/ñandú 🦤.jpg") == "/a/café")
        #expect(Path.basename("e\u{301}/x\u{301}/") == "x\u{301}")
        #expect(Path.parent("e\u{301}/x\u{301}") == "e\u{301}")
        #expect(Path.relative("/ü/ä/ö", inside: "/ü") == "ä/ö")
    }

    @Test func joinHandlesSlashesAndAbsoluteComponents() {
        #expect(Path.join("/a", "b") == "/a/b")
        #expect(Path.join("/a/", "b") == "/a/b")
        #expect(Path.join("/a", "/etc") == "/etc")
        #expect(Path.join("", "b") == "b")
        #expect(Path.join("/", "b") == "/b")
    }

    @Test func expandTildeOnlyForTheCurrentUser() {
        #expect(Path.expandTilde("~", home: "/h") == "/h")
        #expect(Path.expandTilde("~/x/y", home: "/h") == "/h/x/y")
        #expect(Path.expandTilde("~other/x", home: "/h") == "~other/x")
        #expect(Path.expandTilde("/a/~/b", home: "/h") == "/a/~/b")
        #expect(Path.expandTilde("x~", home: "/h") == "x~")
    }
}
