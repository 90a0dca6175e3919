import Foundation
import SXCore
import SXSample
import SXTestSupport
import Testing

/// Operations whose size is known before they start refuse up front on a file system without room
/// for it and 64 MiB to spare, saying how much they need, before anything is written (issue 18,
/// point 2). Each runs in a small tmpfs mounted in a mount namespace of its own, so the checks run in
/// there too: the script prints the exit status and what the file system holds before and after.
@Suite(.ownThreads, .enabled(if: FileSizeLimitTests.canMountTmpfs, "needs user namespaces to mount a tmpfs"))
struct FreeSpaceCheckTests {
    static let passphrase = "correct horse battery staple"

    /// Mounts a tmpfs of `size` at $1, runs `prepare` then `body` with sxkit as $2 (then
    /// `arguments`); returns the body's exit status and whether every file under $1 (its SHA-256)
    /// is as it was before the body ran.
    static func onSmallDisk(size: String, prepare: String, run body: String, _ arguments: [String],
                            environment: [String: String] = [:]) throws -> (status: Int32?, same: Bool, stderr: String) {
        let mountPoint = try TempFolder().file("disk")
        try Folders.create(mountPoint)
        let script = """
            set -u
            mount -t tmpfs -o size=\(size) tmpfs "$1" || exit 99
            snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0r sha256sum); }
            \(prepare)
            before=$(snapshot "$1")
            \(body)
            echo "status=$?"
            if [ "$before" = "$(snapshot "$1")" ]; then echo same; fi
            """
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/unshare")
        process.arguments = ["-rm", "/bin/bash", "-c", script, "bash", mountPoint, CLI.binary] + arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "SXKIT_PASSPHRASE")
        for (k, v) in environment { env[k] = v }
        process.environment = env
        let r = try capture(process)
        let lines = r.stdout.split(separator: "\n")
        let status = lines.first { $0.hasPrefix("status=") }.flatMap { Int32($0.dropFirst(7)) }
        return (status, lines.contains("same"), r.stderr)
    }

    static func expectRefused(_ r: (status: Int32?, same: Bool, stderr: String), _ purpose: String,
                              sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(r.status == 1, "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.stderr.hasPrefix("sxkit: \(purpose) needs ") && r.stderr.contains(" free (keeping 64.0 MiB spare); free some space")
                    && r.stderr.hasSuffix("nothing was changed\n") && r.stderr.split(separator: "\n").count == 1,
                "\(r.stderr)", sourceLocation: sourceLocation)
        #expect(r.same, "the file system's files changed", sourceLocation: sourceLocation)
    }

    @Test func rekeyRefusesWithoutRoomForTheExportedCopies() throws {
        let folder = try TempFolder()
        let sample = try SampleCopies.create(at: folder.file("data"), options: .init(photos: 1, documents: 1, chatItems: 600))
        let newFile = try folder.write("new", Array("another passphrase".utf8))
        chmod(newFile, 0o600)  // a private passphrase file: no warning on stderr
        let r = try Self.onSmallDisk(size: "40m", prepare: #"cp -a "$3" "$1/data""#,
                                     run: #""$2" db rekey --data-dir "$1/data" --new-passphrase-file "$4" --quiet"#,
                                     [sample.directory.root, newFile], environment: ["SXKIT_PASSPHRASE": Self.passphrase])
        Self.expectRefused(r, "changing the passphrase")
    }

    @Test func transferReceiveRefusesWithoutRoomForTheChunks() throws {
        let s = try TransferCommandTests.Setup()
        let original = try s.file("six.bin", size: 6 << 20)
        #expect(try s.send(original, ["--quiet"]).status == 0)
        let r = try Self.onSmallDisk(size: "40m", prepare: #"mkdir "$1/inbox""#,
                                     run: #""$2" transfer receive "$3" -o "$1/inbox" --temp-dir "$1/recv-tmp" --quiet"#,
                                     [Path.join(s.descriptions, "six.bin.recipient-1.yaml")])
        Self.expectRefused(r, "receiving the file of '\(Path.join(s.descriptions, "six.bin.recipient-1.yaml"))'")
    }

    @Test func migrateReceiveRefusesWithoutRoomForTheArchiveAndItsImport() throws {
        let s = try MigrateCommandTests.Setup()
        #expect(try s.send().status == 0)
        let description = try s.recipientDescription()
        let r = try Self.onSmallDisk(size: "40m", prepare: "",
                                     run: #""$2" migrate receive "$3" --data-dir "$1/data" --passphrase-file "$4" --quiet"#,
                                     [description, s.pass])
        Self.expectRefused(r, "receiving and importing the migration archive of '\(description)'")
    }

    @Test func filesEncryptInPlaceRefusesWithoutRoomForTheLargestGroup() throws {
        let folder = try TempFolder()
        let big = try folder.write("docs/big.bin", testBytes(6 << 20, seed: 7))
        let r = try Self.onSmallDisk(size: "40m", prepare: #"cp -a "$(dirname "$3")" "$1/docs""#,
                                     run: #""$2" files encrypt "$1/docs" --in-place --manifest "$1/keys.json" --quiet"#, [big])
        Self.expectRefused(r, "encrypting in place")
    }
}
