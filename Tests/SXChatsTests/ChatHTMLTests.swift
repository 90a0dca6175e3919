import Foundation
import Testing
@testable import SXChats
import SXCore
import SXDatabase
import SXSample
import SXTestSupport

/// `chats export --format html`: what a page says (every stored text escaped, day separators,
/// quotes, reactions, media inline or marked missing, right-to-left text), that no page names
/// anything on the network, and, in a real browser (headless Chromium, the peer the bootstrap
/// installs), that a stored `<script>` does not run, that loading every page of the sample makes
/// no network request, and that the screenshot of a page shows its picture.
@Suite(.ownThreads, .serialized) struct ChatHTMLTests {
    static let passphrase = SampleDataDirectory.defaultPassphrase
    static let hostile = #"<script>document.title='pwned'</script><img src=x onerror="document.title='pwned'">"#

    func message(_ id: Int64, _ sender: ChatMessage.Sender, at time: String, _ content: ChatItemContent, text: String = "",
                 quote: ChatMessage.Quote? = nil, file: ChatMessage.File? = nil, reactions: [ChatMessage.Reaction] = [],
                 deletion: ChatMessage.Deletion? = nil) -> ChatMessage {
        ChatMessage(chatItemId: id, sender: sender, sentAt: time, createdAt: time, content: content, text: text, deletion: deletion,
                    edited: false, live: false, timedTTL: nil, timedDeleteAt: nil, quote: quote, forwardedFrom: nil, file: file, reactions: reactions)
    }

    func file(_ id: Int64, _ name: String) -> ChatMessage.File {
        .init(fileId: id, name: name, size: 2048, storedPath: name, status: "rcv_complete", encrypted: false, cryptoKey: nil, cryptoNonce: nil)
    }

    @Test("a page: stored text escaped everywhere, day separators in the chosen zone, quote, reactions, media inline or marked, right-to-left")
    func pageContents() throws {
        let name = #"bo"b <b>"#
        let chat = ChatSummary(kind: .direct, id: 2, displayName: name, profileName: nil, fullName: nil, deleted: false, messages: 7,
                               firstMessageAt: nil, lastMessageAt: nil, files: 2, fileBytes: 0)
        let user = ChatUserSummary(userId: 1, displayName: "alice & 'co'", fullName: nil, active: true, hidden: false, chats: [chat])
        // UTC+1: 22:30 UTC is still Jan 1st there, 23:30 UTC is already Jan 2nd.
        var page = TranscriptHTMLPage(chat: chat, user: user, clock: TranscriptClock(zone: TimeZone(secondsFromGMT: 3600)!),
                                      pagePath: "1-alice/direct-2-bob.html")
        let rtl = "مرحبا بالعالم 👋🏽 שלום"
        var html = page.begin()
        html += page.item(message(1, .me, at: "2024-01-01 22:30:00", .message(.sent, .init(type: "text", text: Self.hostile + "\nsecond line"))), media: nil)
        html += page.item(message(2, .contact(name), at: "2024-01-01 22:40:00", .message(.received, .init(type: "text", text: rtl)),
                                  quote: .init(sentAt: "2024-01-01 22:30:00", sentByMe: true, content: .init(type: "text", text: "the <original>")),
                                  reactions: [.init(reaction: "👍", count: 2, byMe: true), .init(reaction: "❤️", count: 1, byMe: false)]), media: nil)
        html += page.item(message(3, .contact(name), at: "2024-01-01 23:30:00", .message(.received, .init(type: "image", text: "")),
                                  file: file(7, "a b#?.jpg")), media: .copied("media/7-a b#?.jpg"))
        html += page.item(message(4, .contact(name), at: "2024-01-01 23:31:00", .message(.received, .init(type: "voice", text: "", duration: 9)),
                                  file: file(8, "voice.m4a")), media: .copied("media/8-voice.m4a"))
        html += page.item(message(5, .contact(name), at: "2024-01-01 23:32:00", .message(.received, .init(type: "video", text: "", duration: 3)),
                                  file: file(9, "clip.mp4")), media: .missing)
        html += page.item(message(6, .contact(name), at: "2024-01-01 23:33:00",
                                  .message(.received, .init(type: "link", text: "see", preview: .init(uri: "https://example.invalid/<x>", title: "T\"itle", description: "d'esc")))),
                          media: nil)
        html += page.item(message(7, .me, at: "2024-01-01 23:34:00", .message(.sent, .init(type: "text", text: "gone")), deletion: .moderated(by: "carol")), media: nil)
        html += page.item(message(8, .contact(name), at: "2024-01-01 23:35:00", .call(.received, status: "ended", duration: 30)), media: nil)
        html += page.item(message(9, .contact(name), at: "2024-01-01 23:36:00", .unknown(tag: "rcvHologram", raw: #"{"rcvHologram":{"<x>":1}}"#)), media: nil)
        html += page.end(items: 9)

        // The stored script is text: escaped, never an element; the one escaping covers names too.
        #expect(!html.contains("<script") && !html.contains("<img src=x") && !html.contains("<b>"), "\(html)")
        #expect(html.contains("&lt;script&gt;document.title=&#39;pwned&#39;&lt;/script&gt;&lt;img src=x onerror=&quot;document.title=&#39;pwned&#39;&quot;&gt;\nsecond line"))
        #expect(html.contains("<title>bo&quot;b &lt;b&gt; — alice &amp; &#39;co&#39;</title>"))
        #expect(html.contains("<span class=\"who\" dir=\"auto\">bo&quot;b &lt;b&gt;</span>"))
        // Day separators: one per local day, the second before the 23:30 UTC item.
        let days = html.components(separatedBy: "<h2 class=\"day\">").dropFirst().map { String($0.prefix(60)) }
        #expect(days.count == 2 && days[0].contains(">2024-01-01<") && days[1].contains(">2024-01-02<"), "\(days)")
        #expect(html.range(of: ">2024-01-02<")!.lowerBound < html.range(of: "id=\"item-3\"")!.lowerBound)
        #expect(html.contains("<time datetime=\"2024-01-01T23:30:00+01:00\" title=\"sent 2024-01-01 23:30:00 +01:00\">23:30</time>"), "\(html)")
        // Quote (the quoted sender and text), reactions, right-to-left text marked for the browser.
        #expect(html.contains("<blockquote class=\"quote\"><div class=\"who\" dir=\"auto\">me</div><div class=\"text\" dir=\"auto\">the &lt;original&gt;</div></blockquote>"))
        #expect(html.contains("<span title=\"you reacted\">👍 × 2 (you)</span><span>❤️ × 1</span>"))
        #expect(html.contains("<div class=\"text\" dir=\"auto\">\(rtl)</div>"))
        // Media: the copy in media/, relative to the page and percent-encoded; players for sound and video; a missing copy marked.
        #expect(html.contains("<img class=\"media\" src=\"../media/7-a%20b%23%3F.jpg\" alt=\"a b#?.jpg\">"), "\(html)")
        #expect(html.contains("<audio controls preload=\"metadata\" src=\"../media/8-voice.m4a\"></audio>"))
        #expect(html.contains("<div class=\"label\">voice message, 9 s</div>"))
        #expect(html.contains("<div class=\"missing\">not shown: clip.mp4 is missing from the files folder</div>") && !html.contains("<video"))
        // A link preview's URL is text, never a link or a fetch.
        #expect(html.contains("<div class=\"uri\">https://example.invalid/&lt;x&gt;</div>") && !html.contains("href=\"https:"))
        #expect(html.contains("<div class=\"who\" dir=\"auto\">T&quot;itle</div><div class=\"text\" dir=\"auto\">d&#39;esc</div>"))
        // The text transcript's words for deletion; calls as event lines; what is not understood kept raw.
        #expect(html.contains("<span class=\"marks\" dir=\"auto\">(moderated by carol)</span>"))
        #expect(html.contains("<div class=\"event\" id=\"item-8\" dir=\"auto\">call ended, 30 s (bo&quot;b &lt;b&gt;)"))
        #expect(html.contains("[rcvHologram: not understood by this sxkit]</div><div class=\"raw\">{&quot;rcvHologram&quot;:{&quot;&lt;x&gt;&quot;:1}}</div>"))
        #expect(Self.externalReferences(html).isEmpty)
        #expect(html.contains("content=\"\(TranscriptHTMLPage.contentSecurityPolicy)\"") && TranscriptHTMLPage.contentSecurityPolicy.hasPrefix("default-src 'none';"))
    }

    @Test("escaping: the five characters, and nothing else changed")
    func escaping() {
        #expect(HTMLText.escape(#"a&b<c>d"e'f"#) == "a&amp;b&lt;c&gt;d&quot;e&#39;f")
        #expect(HTMLText.escape("مرحبا 👋🏽 &") == "مرحبا 👋🏽 &amp;")
        #expect(HTMLText.relativeURL("media/1-x:y.jpg", prefix: "../") == "../media/1-x%3Ay.jpg", "a name can never be read as a scheme")
        #expect(HTMLText.inlineImage("data:image/png;base64,iVBORw0KGgo=") != nil)
        #expect(HTMLText.inlineImage("data:image/svg+xml;base64,PHN2Zz4=") == nil && HTMLText.inlineImage("data:image/png;base64,a\"b") == nil)
        #expect(HTMLText.inlineImage("https://example.invalid/x.png") == nil)
    }

    /// `src=`, `href=`, `poster=` values and `url(…)` that leave the export: a scheme other than
    /// `data:`, or a network-path reference (`//host`).
    static func externalReferences(_ html: String) -> [String] {
        let pattern = #"(?i)(?:\b(?:src|href|poster|srcset|action|data)\s*=\s*["']?|url\(\s*["']?)\s*([a-z][a-z0-9+.-]*:|//)"#
        let regex = try! NSRegularExpression(pattern: pattern)
        return regex.matches(in: html, range: NSRange(html.startIndex..., in: html)).compactMap {
            let found = (html as NSString).substring(with: $0.range)
            return found.lowercased().hasSuffix("data:") ? nil : found
        }
    }

    /// The sample exported as html (and txt), with one of bob's items holding a script.
    func exportSample(_ folder: TempFolder, media: Bool = true) throws -> (ChatExport.Report, String) {
        let data = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 2, chatItems: 200))
        let (db, _) = try DatabaseOpener.open(data.directory.chatDatabase, passphrase: Self.passphrase, mode: .readWrite)
        let bob = try #require(try db.scalarInt("SELECT contact_id FROM contacts WHERE local_display_name = 'bob'"))
        let quoted = JSONText.quote(Self.hostile)
        try db.execute("""
            UPDATE chat_items SET item_content = '{"rcvMsgContent":{"msgContent":{"type":"text","text":\(quoted.replacingOccurrences(of: "'", with: "''"))}}}',
                item_sent = 0 WHERE chat_item_id = (SELECT max(chat_item_id) FROM chat_items WHERE contact_id = \(bob));
            """)
        let output = folder.file("out")
        let report = try ChatExport(database: data.directory.chatDatabase, passphrase: Self.passphrase,
                                    options: .init(formats: [.html, .txt], clock: .utc, filesFolder: media ? data.directory.filesFolder : nil))
            .run(to: output, command: ["sxkit", "chats", "export", "--format", "html"], version: "test")
        return (report, output)
    }

    @Test("the sample as html: a page per chat and index.html, all in the manifest; no page names anything outside the export; index.html is never replaced unasked")
    func samplePages() throws {
        let folder = try TempFolder("sxkit-html")
        let (report, output) = try exportSample(folder)
        let index = try String(contentsOfFile: Path.join(output, "index.html"), encoding: .utf8)
        #expect(report.index == Path.join(output, "index.html"))
        let manifest = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: report.manifest))) as? [String: Any])
        let listed = Set((manifest["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String })
        #expect(listed.contains("index.html"))
        var pictures = 0
        for chat in report.chats {
            let page = try #require(chat.files.first { $0.hasSuffix(".html") })
            #expect(listed.contains(page))
            #expect(index.contains("<a href=\"\(HTMLText.relativeURL(page))\">\(HTMLText.escape(chat.name))</a></td><td>\(chat.kind.rawValue)</td><td>\(chat.messages)</td>"), "\(page)")
            let html = try String(contentsOfFile: Path.join(output, page), encoding: .utf8)
            #expect(Self.externalReferences(html).isEmpty, "\(page): \(Self.externalReferences(html))")
            #expect(!html.contains("<script"), "\(page)")
            #expect(html.components(separatedBy: " id=\"item-").count - 1 == Int(chat.messages), "\(page): one element per item")
            #expect(html.hasSuffix("</html>\n"))
            pictures += html.components(separatedBy: "<img class=\"media\" src=\"../media/").count - 1
        }
        #expect(pictures >= 3, "the sample's photo, screenshot and sticker are shown inline")
        #expect(Self.externalReferences(index).isEmpty)
        #expect(try POSIXFile.status(Path.join(output, "index.html")).st_mode & 0o777 == 0o600)
        // The check finds what it is for.
        #expect(Self.externalReferences(#"<img src="http://127.0.0.1:9/x"><a href='//x'>"#).count == 2)
        #expect(Self.externalReferences(#"<div style="background:url( https://x)">"#).count == 1)

        // Only index.html is in the way: refused before anything else is written.
        let second = folder.file("second")
        try Folders.create(second, permissions: 0o700)
        try Data("mine".utf8).write(to: URL(fileURLWithPath: Path.join(second, "index.html")))
        #expect(throws: (any Error).self) {
            try ChatExport(database: folder.file("data/simplex_v1_chat.db"), passphrase: Self.passphrase, options: .init(formats: [.html], chats: ["bob"]))
                .run(to: second, command: [], version: "test")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: second) == ["index.html"])
        #expect(try String(contentsOfFile: Path.join(second, "index.html"), encoding: .utf8) == "mine")
    }

    @Test("in Chromium: a stored script does not run; loading every page of the sample asks the network for nothing (and the check sees a page that would); the screenshot shows the picture")
    func inABrowser() throws {
        let chromium = try Chromium()
        let folder = try TempFolder("sxkit-html")
        let (report, output) = try exportSample(folder)
        let bob = try #require(report.chats.first { $0.name == "bob" }?.files.first { $0.hasSuffix(".html") })

        // 1. The script is text in the DOM the browser built; the title is still the chat's.
        let dom = try chromium.run(["--dump-dom", "file://" + Path.join(output, bob)])
        #expect(dom.contains("&lt;script&gt;document.title='pwned'&lt;/script&gt;&lt;img src=x onerror=\"document.title='pwned'\"&gt;"), "\(dom.prefix(3000))")
        #expect(dom.contains("<title>bob — alice</title>") && !dom.contains("<title>pwned"), "\(dom.prefix(600))")

        // 2. Every page, framed by one page of the test's, with every request sent to a proxy that
        //    only counts. A copy of a page with a remote picture added is the control: without the
        //    page's policy the proxy sees it; with the policy, the browser does not ask.
        let proxy = try CountingListener()
        defer { proxy.stop() }
        let pages = report.chats.compactMap { $0.files.first { $0.hasSuffix(".html") } } + ["index.html"]
        let harness = Path.join(output, "frames.html")
        func frames(_ extra: [String]) throws {
            let body = (pages + extra).map { "<iframe src=\"\(HTMLText.relativeURL($0))\"></iframe>" }.joined(separator: "\n")
            try Data("<!DOCTYPE html><html><body>\(body)</body></html>".utf8).write(to: URL(fileURLWithPath: harness))
        }
        let network = ["--proxy-server=127.0.0.1:\(proxy.port)", "--proxy-bypass-list=<-loopback>"]
        try frames([])
        let all = try chromium.run(network + ["--dump-dom", "file://" + harness])
        #expect(all.components(separatedBy: "<iframe").count - 1 == pages.count)
        #expect(proxy.requests().isEmpty, "the pages asked the network for: \(proxy.requests())")

        let original = try String(contentsOfFile: Path.join(output, bob), encoding: .utf8)
        let remote = "<img src=\"http://192.0.2.1/"
        let kept = original.replacingOccurrences(of: "<main>\n", with: "<main>\n\(remote)with-policy\">")
        let stripped = original.replacingOccurrences(of: "<meta http-equiv=\"Content-Security-Policy\"", with: "<meta name=\"x\"")
            .replacingOccurrences(of: "<main>\n", with: "<main>\n\(remote)without-policy\">")
        try Data(kept.utf8).write(to: URL(fileURLWithPath: Path.join(output, "1-alice/control-kept.html")))
        try Data(stripped.utf8).write(to: URL(fileURLWithPath: Path.join(output, "1-alice/control-stripped.html")))
        #expect(Self.externalReferences(kept).count == 1, "the static check sees it too")
        try frames(["1-alice/control-kept.html", "1-alice/control-stripped.html"])
        _ = try chromium.run(network + ["--dump-dom", "file://" + harness])
        let seen = proxy.requests()
        #expect(seen.contains { $0.contains("192.0.2.1/without-policy") }, "the control's request reached the proxy: \(seen)")
        #expect(!seen.contains { $0.contains("/with-policy") }, "the policy stops a remote picture: \(seen)")

        // 3. A page with a picture near its top, as a screenshot: not blank, and different when the
        //    media folder is not beside it (the picture really was drawn).
        let withPicture = try #require(pages.filter { $0 != "index.html" }.min { a, b in
            func offset(_ page: String) -> Int {
                let html = (try? String(contentsOfFile: Path.join(output, page), encoding: .utf8)) ?? ""
                return html.range(of: "<img class=\"media\"").map { html.distance(from: html.startIndex, to: $0.lowerBound) } ?? .max
            }
            return offset(a) < offset(b)
        })
        let shot = folder.file("shot.png"), bare = folder.file("bare.png")
        _ = try chromium.run(["--screenshot=\(shot)", "--window-size=1000,1400", "--hide-scrollbars", "file://" + Path.join(output, withPicture)])
        let elsewhere = folder.file("elsewhere/1-alice")
        try Folders.create(elsewhere, permissions: 0o700)
        let copy = Path.join(elsewhere, "page.html")
        try FileManager.default.copyItem(atPath: Path.join(output, withPicture), toPath: copy)
        _ = try chromium.run(["--screenshot=\(bare)", "--window-size=1000,1400", "--hide-scrollbars", "file://" + copy])
        let deviation = try Double(Self.vips(["deviate", shot]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(deviation > 10, "the screenshot is not blank: deviation \(deviation)")
        _ = try Self.vips(["subtract", shot, bare, folder.file("diff.v")])
        _ = try Self.vips(["abs", folder.file("diff.v"), folder.file("absdiff.v")])
        let difference = try Double(Self.vips(["avg", folder.file("absdiff.v")]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(difference > 2, "with and without its media the page looks different: mean difference \(difference)")
    }

    /// The `vips` command-line tool (libvips-tools, a peer): its standard output.
    static func vips(_ arguments: [String]) throws -> String {
        let result = try Chromium.execute("/usr/bin/vips", arguments, timeout: 60)
        guard result.status == 0 else { throw ChromiumFailure(message: "vips \(arguments.joined(separator: " ")) failed: \(result.error)") }
        return result.output
    }
}

struct ChromiumFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Headless Chromium, the peer `scripts/bootstrap` installs; missing, it is a failure, never a skip.
struct Chromium {
    let binary: String

    init() throws {
        let candidates = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":").map { "\($0)/chromium" }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw ChromiumFailure(message: "chromium is not installed: these tests load the HTML pages in it (scripts/bootstrap installs it)")
        }
        binary = found
    }

    /// One headless run with a fresh profile and the browser's own traffic (updates, network time,
    /// account checks, metrics, suggestions) turned off, so that whatever reaches the network was
    /// asked for by the page. The component updater and the account service ignore the switches
    /// that should stop them, so they are pointed at a closed loopback port (discard, 9) instead.
    func run(_ arguments: [String]) throws -> String {
        let profile = try TempFolder("sxkit-chromium")
        let quiet = ["--headless", "--no-sandbox", "--disable-gpu", "--user-data-dir=\(profile.path)", "--no-first-run",
                     "--no-default-browser-check", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                     "--disable-default-apps", "--disable-extensions", "--disable-domain-reliability", "--disable-breakpad",
                     "--disable-client-side-phishing-detection", "--no-pings", "--metrics-recording-only", "--mute-audio",
                     "--disable-features=OptimizationHints,MediaRouter,Translate,AutofillServerCommunication,NetworkTimeServiceQuerying",
                     "--gaia-url=http://127.0.0.1:9", "--component-updater=url-source=http://127.0.0.1:9"]
        let result = try Self.execute(binary, quiet + arguments, timeout: 120)
        guard result.status == 0 else { throw ChromiumFailure(message: "chromium \(arguments) exited \(result.status): \(result.error.suffix(2000))") }
        return result.output
    }

    static func execute(_ binary: String, _ arguments: [String], timeout: TimeInterval) throws -> (status: Int32, output: String, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = arguments
        let folder = try TempFolder("sxkit-run")
        _ = FileManager.default.createFile(atPath: folder.file("out"), contents: nil)
        _ = FileManager.default.createFile(atPath: folder.file("err"), contents: nil)
        let out = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("out")))
        let err = try FileHandle(forWritingTo: URL(fileURLWithPath: folder.file("err")))
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(50_000) }
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
            throw ChromiumFailure(message: "\(binary) did not finish within \(Int(timeout)) s")
        }
        try out.close()
        try err.close()
        return (process.terminationStatus, String(decoding: try folder.read("out"), as: UTF8.self), String(decoding: try folder.read("err"), as: UTF8.self))
    }
}

/// A TCP listener on loopback that records the first line of every connection made to it (as a
/// proxy it sees `GET http://host/path` or `CONNECT host:443`) and closes it.
final class CountingListener: @unchecked Sendable {
    let port: Int
    private let fd: Int32
    private let lock = NSLock()
    private var seen: [String] = []
    private var stopped = false
    private let thread: Thread

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw ChromiumFailure(message: "socket: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw ChromiumFailure(message: "bind/listen: \(errno)") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        self.fd = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let box = ListenerLoop(fd: fd)
        thread = Thread { box.run() }
        box.listener = self
        thread.start()
    }

    fileprivate func record(_ line: String) {
        lock.lock(); defer { lock.unlock() }
        seen.append(line)
    }

    fileprivate var isStopped: Bool {
        lock.lock(); defer { lock.unlock() }
        return stopped
    }

    func requests() -> [String] {
        lock.lock(); defer { lock.unlock() }
        return seen
    }

    func stop() {
        lock.lock()
        stopped = true
        lock.unlock()
        shutdown(fd, Int32(SHUT_RDWR))
        close(fd)
    }
}

private final class ListenerLoop: @unchecked Sendable {
    let fd: Int32
    weak var listener: CountingListener?

    init(fd: Int32) { self.fd = fd }

    func run() {
        while let listener, !listener.isStopped {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let client = accept(fd, nil, nil)
            guard client >= 0 else { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            var reader = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            var line = "(connected, sent nothing)"
            if poll(&reader, 1, 2000) > 0 {
                let n = read(client, &buffer, buffer.count)
                if n > 0 { line = String(decoding: buffer[0..<n], as: UTF8.self).components(separatedBy: "\r\n").first ?? "" }
            }
            listener.record(line)
            close(client)
        }
    }
}
