import Foundation
import Testing
import SXCore
import SXTestSupport

/// `relay serve --web-root`: a browser's GET (with SNI) gets the web page's files, as simplexmq's
/// server serves its static path; curl, over TLS and HTTP/2 with SNI, plays the browser.
@Suite(.ownThreads)
struct RelayWebRootCommandTests {
    static func curl(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["--silent", "--insecure", "--http2"] + arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func browsersGetThePagesFilesAndNothingOutsideIt() throws {
        let folder = try TempFolder()
        let web = folder.file("www")
        try Folders.create(Path.join(web, "well-known"))
        try Folders.create(Path.join(web, "docs"))
        let index = "<!doctype html><title>xftp-web</title>\n"
        _ = try folder.write("www/index.html", Array(index.utf8))
        _ = try folder.write("www/app.js", Array("console.log(1)\n".utf8))
        _ = try folder.write("www/docs/index.html", Array("docs\n".utf8))
        _ = try folder.write("www/well-known/assetlinks.json", Array("[]\n".utf8))
        let big = try folder.write("www/big.bin", testBytes(300_000, seed: 4))
        _ = try folder.write("secret.txt", Array("not for browsers\n".utf8))
        #expect(symlink(folder.file("secret.txt"), Path.join(web, "out.txt")) == 0)

        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519",
                                      "--web-root", web])
        let port = relay.port
        // A host name, so that curl sends SNI, as a browser does.
        let base = "https://xftp.test:\(port)"
        let resolve = ["--resolve", "xftp.test:\(port):127.0.0.1"]
        let format = ["--write-out", "\n%{http_code} %{content_type} %{http_version}"]

        func get(_ path: String, _ extra: [String] = []) throws -> (body: String, meta: String) {
            let (status, output) = try Self.curl(resolve + format + extra + ["--path-as-is", base + path])
            #expect(status == 0, "curl \(path): \(status)")
            let split = output.range(of: "\n", options: .backwards).map { (String(output[..<$0.lowerBound]), String(output[$0.upperBound...])) }
            return split ?? ("", output)
        }
        #expect(try get("/") == (index, "200 text/html 2"))
        #expect(try get("/index.html?v=2") == (index, "200 text/html 2"))
        #expect(try get("/app.js") == ("console.log(1)\n", "200 application/javascript 2"))
        #expect(try get("/docs") == ("docs\n", "200 text/html 2"))
        #expect(try get("/.well-known/assetlinks.json") == ("[]\n", "200 application/json 2"))
        for outside in ["/../secret.txt", "/docs/../../secret.txt", "/out.txt", "/missing.html", "/%2e%2e/secret.txt"] {
            #expect(try get(outside).meta == "404  2", "\(outside)")
        }
        // A file larger than one read is sent whole.
        let (status, _) = try Self.curl(resolve + ["--output", folder.file("got.bin"), base + "/big.bin"])
        #expect(status == 0)
        #expect(try folder.read("got.bin") == FileBytes.read(big, limit: 1 << 20))
        let head = try Self.curl(resolve + ["--head", base + "/app.js"])
        #expect(head.output.hasPrefix("HTTP/2 200") && head.output.contains("content-type: application/javascript"), "\(head.output)")

        // A web root that is not there stops the server before it listens.
        let missing = try CLI.run(["relay", "serve", "--listen", "127.0.0.1:0", "--store", folder.file("store2"), "--web-root", folder.file("nope")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("the web page folder '\(folder.file("nope"))' does not exist or is not a folder"), "\(missing.stderr)")
    }

    /// With a web certificate (made here by the openssl tool), curl verifies the server as a browser
    /// does, against that certificate: the page loads, a CORS preflight is answered, and an XFTP
    /// answer to a browser carries CORS headers. Native clients still send and receive.
    @Test func aWebCertificateIsWhatBrowsersVerifyAndTheirRequestsGetCORS() throws {
        let folder = try TempFolder()
        let (certificate, key) = try WebCertificate.make(in: folder)
        try Folders.create(folder.file("www"))
        _ = try folder.write("www/index.html", Array("page\n".utf8))

        let relay = try RelayProcess(["--listen", "127.0.0.1:0", "--store", folder.file("store"), "--certificate-algorithm", "ed25519",
                                      "--web-root", folder.file("www"), "--web-certificate", certificate, "--web-key", key])
        let address = relay.address, port = relay.port
        let base = "https://xftp.test:\(port)/"
        // Verified (no --insecure): the web certificate is the one presented.
        func verified(_ arguments: [String]) throws -> (status: Int32, output: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            process.arguments = ["--silent", "--http2", "--cacert", certificate, "--resolve", "xftp.test:\(port):127.0.0.1"] + arguments
            let out = Pipe()
            process.standardOutput = out
            try process.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return (process.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        #expect(try verified([base]) == (0, "page\n"))
        let preflight = try verified(["--request", "OPTIONS", "--include", base])
        #expect(preflight.output.hasPrefix("HTTP/2 200"), "\(preflight.output)")
        for header in ["access-control-allow-origin: *", "access-control-allow-methods: POST, OPTIONS", "access-control-allow-headers: *",
                       "access-control-max-age: 86400"] {
            #expect(preflight.output.contains(header), "\(header): \(preflight.output)")
        }
        // A browser's first XFTP request (an empty POST: the hello) is answered with CORS headers.
        let hello = try verified(["--request", "POST", "--include", "--output", "-", base])
        #expect(hello.output.hasPrefix("HTTP/2 200") && hello.output.contains("access-control-allow-origin: *"), "\(hello.output.prefix(300))")

        // Native clients (no SNI) are unaffected.
        for sub in ["desc", "inbox", "tmp"] { try Folders.create(folder.file(sub)) }
        let source = try folder.write("note.bin", testBytes(100_000, seed: 3))
        let sent = try CLI.run(["transfer", "send", source, "--server", address, "-o", folder.file("desc"), "--temp-dir", folder.file("tmp")])
        #expect(sent.status == 0, "\(sent.stderr)")
        let got = try CLI.run(["transfer", "receive", folder.file("desc/note.bin.recipient-1.yaml"), "-o", folder.file("inbox"), "--temp-dir", folder.file("tmp")])
        #expect(got.status == 0, "\(got.stderr)")
        #expect(try folder.read("inbox/note.bin") == folder.read("note.bin"))

        let half = try CLI.run(["relay", "serve", "--store", folder.file("store3"), "--web-certificate", certificate])
        #expect(half.status == 2 && half.stderr.contains("--web-certificate and --web-key go together"), "\(half.stderr)")
    }
}
