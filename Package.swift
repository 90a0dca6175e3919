// swift-tools-version: 6.2
import PackageDescription

/// Swift 6 language mode everywhere; warnings are errors so that "zero warnings" is enforced, not hoped for.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]
/// LLVM's linker for the executables: release builds link the Swift libraries in statically
/// (scripts/build-release), and GNU ld echoes a mktemp warning from inside the toolchain's Foundation archive.
let lld: [LinkerSetting] = [
    .unsafeFlags(["-use-ld=lld"]),
    // Release binaries export no dynamic symbols: nothing loads them or looks symbols up in them, and
    // the 39,000 exported names (dynsym, dynstr, hash) were read in at every start: 3-4 MB of peak RSS
    // (`sxkit --help` 42.5 → 38.6 MB, `files encrypt` of 64 MiB 48.1 → 45.0 MB).
    .unsafeFlags(["-Xlinker", "--no-export-dynamic"], .when(configuration: .release)),
]

/// The executable `Fuzz<name>` in `Fuzz/<name>/`, on FuzzSupport and the modules whose parser it drives.
func fuzzTarget(_ name: String, _ dependencies: [Target.Dependency]) -> Target {
    .executableTarget(name: "Fuzz" + name, dependencies: ["FuzzSupport"] + dependencies, path: "Fuzz/" + name,
                      swiftSettings: strict, linkerSettings: lld)
}

let package = Package(
    name: "sxkit",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "sxkit", targets: ["sxkit"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        // NIO, HTTP/2: the XFTP client's and server's transport.
        .package(url: "https://github.com/apple/swift-nio", from: "2.100.0"),
        .package(url: "https://github.com/apple/swift-nio-http2", from: "1.46.0"),
    ],
    targets: [
        // System-library shims: a module map and a header each, located through pkg-config.
        .systemLibrary(name: "CSQLCipher", pkgConfig: "sqlcipher", providers: [.apt(["libsqlcipher-dev"])]),
        .systemLibrary(name: "CSodium", pkgConfig: "libsodium", providers: [.apt(["libsodium-dev"])]),
        .systemLibrary(name: "CArchive", pkgConfig: "libarchive", providers: [.apt(["libarchive-dev"])]),
        .systemLibrary(name: "CVips", pkgConfig: "vips", providers: [.apt(["libvips-dev"])]),
        // libjpeg-turbo (libvips' own JPEG codec) for the final encode's progressive scan script: one C
        // function (encode.c), since libjpeg's error_exit must longjmp across its frames.
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .systemLibrary(name: "CLibCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // OpenSSL's libssl: XFTP's TLS (Ed448 certificates, tls-unique) and its X.509 certificates.
        .systemLibrary(name: "CLibSSL", pkgConfig: "libssl", providers: [.apt(["libssl-dev"])]),
        // zlib's raw DEFLATE, for the xftp CLI's web links (simplexmq Client/Main.hs encodeWebURI).
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        // libqrencode, for the migration link as a QR code in the terminal.
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),

        .target(name: "SXCore", swiftSettings: strict),
        // libsodium for the ciphers; OpenSSL's libcrypto for SHA-256/512 (the CPU's SHA and AVX2 code).
        .target(name: "SXCrypto", dependencies: ["SXCore", "CSodium", "CLibCrypto"], swiftSettings: strict),
        .target(name: "SXDatabase", dependencies: ["SXCore", "CSQLCipher"], swiftSettings: strict),
        .target(name: "SXArchive", dependencies: ["SXCore", "SXDatabase", "CArchive"], swiftSettings: strict),
        // Image compression to the inline limit; Vips/ is the libvips bridge it stands on.
        .target(name: "SXImages", dependencies: ["SXCore", "CVips", "CJPEG"], swiftSettings: strict),
        // Chunk plans, transfer-file encryption, file descriptions, relays and send/receive.
        .target(name: "SXTransfer", dependencies: ["SXCore", "SXCrypto", "CZlib", .product(name: "Yams", package: "Yams")], swiftSettings: strict),
        // XFTP, SimpleX's file-transfer protocol: its wire encodings (blocks, transmissions, commands,
        // responses, handshakes) and server identities (certificates, key hashes) on OpenSSL's libcrypto.
        .target(name: "SXXFTP", dependencies: ["SXCore", "SXCrypto", "CLibSSL"], swiftSettings: strict),
        // XFTP's transport: TLS 1.3 on OpenSSL as a NIO channel handler (the session id is tls-unique).
        .target(
            name: "SXXFTPTransport",
            dependencies: ["SXCore", "SXXFTP", "CLibSSL", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"),
                           .product(name: "NIOHPACK", package: "swift-nio-http2")],
            swiftSettings: strict
        ),
        // The XFTP server (`sxkit relay serve`): identity, store and its log, handshake and commands.
        .target(
            name: "SXXFTPServer",
            dependencies: ["SXCore", "SXCrypto", "SXXFTP", "SXTransfer", "SXXFTPTransport", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2"), .product(name: "NIOHPACK", package: "swift-nio-http2")],
            swiftSettings: strict
        ),
        // The XFTP client: connections (TLS, HTTP/2, handshake), commands, and XFTP servers as relays.
        .target(
            name: "SXXFTPClient",
            dependencies: ["SXCore", "SXCrypto", "SXTransfer", "SXXFTP", "SXXFTPTransport", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP2", package: "swift-nio-http2")],
            swiftSettings: strict
        ),
        // Moving a whole profile to another machine: archive export + transfer, transfer + archive import.
        .target(name: "SXProfileMove", dependencies: ["SXCore", "SXCrypto", "SXDatabase", "SXArchive", "SXTransfer"], swiftSettings: strict),
        // The storage report, cleaning and `check` of a data directory (needs the import's staging
        // names, and the CryptoFiles' tag check for `check --read-data`).
        .target(name: "SXStorage", dependencies: ["SXCore", "SXDatabase", "SXArchive", "SXFileEncryption"], swiftSettings: strict),
        // `chats`: the conversations of a chat database, read without writing a byte.
        .target(name: "SXChats", dependencies: ["SXCore", "SXCrypto", "SXDatabase"], swiftSettings: strict),
        // `files`: the journalled batch engine for CryptoFiles, given paths or a data directory's files
        // folder (kept in step with the chat DB's keys).
        .target(name: "SXFileEncryption", dependencies: ["SXCore", "SXCrypto", "SXDatabase"], swiftSettings: strict),
        // Sample data directories for the demo, tests and benchmarks.
        .target(name: "SXSample", dependencies: ["SXCore", "SXCrypto", "SXDatabase", "SXImages"], swiftSettings: strict),
        // What only the CLI needs to talk to a terminal: the locked stdout/stderr writer, the progress
        // renderers and their ticker, the JSON printer. No domain module depends on it: they never print.
        .target(name: "SXTerminal", dependencies: ["SXCore", "CQRencode"], swiftSettings: strict),
        .executableTarget(
            name: "sxkit",
            dependencies: [
                "SXCore", "SXTerminal", "SXCrypto", "SXDatabase", "SXArchive", "SXImages", "SXSample", "SXTransfer",
                "SXXFTPClient", "SXXFTPServer", "SXXFTPTransport", "SXProfileMove", "SXStorage", "SXChats", "SXFileEncryption",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict,
            linkerSettings: lld
        ),

        // Fuzz targets (README "Fuzzing", scripts/fuzz): one small executable per parser, under Fuzz/.
        // A plain build makes each a replay tool; `-DSXKIT_FUZZ` with `-sanitize=fuzzer,address` makes
        // it a libFuzzer binary. FuzzSupport is their shared entry point.
        .target(name: "FuzzSupport", dependencies: ["SXCore"], path: "Fuzz/Support", swiftSettings: strict),
        fuzzTarget("Descriptions", ["SXTransfer"]),
        fuzzTarget("Zip", ["SXArchive", "SXCore"]),
        fuzzTarget("TransferFile", ["SXCrypto", "SXCore"]),
        fuzzTarget("Settings", ["SXCore"]),
        fuzzTarget("MigrationNames", ["SXDatabase", "SXCore"]),
        fuzzTarget("XFTPWire", ["SXXFTP"]),
        fuzzTarget("ItemContent", ["SXChats"]),

        // Shared test helpers, including the relay conformance checks every ChunkRelay runs.
        .target(name: "SXTestSupport", dependencies: ["SXCore", "SXCrypto", "SXSample", "SXTransfer", "CSodium"], path: "Tests/SXTestSupport", swiftSettings: strict),
        .testTarget(name: "SXCoreTests", dependencies: ["SXCore", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXTerminalTests", dependencies: ["SXTerminal", "SXCore"], swiftSettings: strict),
        .testTarget(name: "SXCryptoTests", dependencies: ["SXCrypto", "SXCore", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXImagesTests", dependencies: ["SXImages", "SXSample", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXKitCLITests", dependencies: ["SXCore", "SXCrypto", "SXDatabase", "SXImages", "SXSample", "SXTestSupport", "SXTransfer", "SXXFTPClient", "SXXFTP"], swiftSettings: strict),
        .testTarget(name: "SXFileEncryptionTests", dependencies: ["SXFileEncryption", "SXCore", "SXCrypto", "SXDatabase", "SXSample", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXXFTPTests", dependencies: ["SXXFTP", "SXCrypto", "SXCore", "SXTestSupport", "CSodium"], swiftSettings: strict),
        .testTarget(
            name: "SXXFTPClientServerTests",
            dependencies: ["SXXFTPClient", "SXXFTPServer", "SXXFTPTransport", "SXXFTP", "SXTransfer", "SXCrypto", "SXCore", "SXTestSupport", "CSodium",
                           .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SXXFTPTransportTests",
            dependencies: ["SXXFTPTransport", "SXXFTP", "SXCore", "SXTestSupport", .product(name: "NIOCore", package: "swift-nio"),
                           .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOEmbedded", package: "swift-nio"),
                           .product(name: "NIOHTTP2", package: "swift-nio-http2")],
            swiftSettings: strict
        ),
        .testTarget(name: "SXTransferTests", dependencies: ["SXTransfer", "SXCrypto", "SXCore", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXChatsTests", dependencies: ["SXChats", "SXCore", "SXDatabase", "SXSample", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXStorageTests", dependencies: ["SXStorage", "SXCore", "SXCrypto", "SXDatabase", "SXSample", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXArchiveTests", dependencies: ["SXArchive", "SXCore", "SXDatabase", "SXSample", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXDatabaseTests", dependencies: ["SXDatabase", "SXCore", "SXSample", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXProfileMoveTests", dependencies: ["SXProfileMove", "SXArchive", "SXTransfer", "SXDatabase", "SXSample", "SXCore", "SXCrypto", "SXTestSupport"], swiftSettings: strict),
        .testTarget(name: "SXSampleTests", dependencies: ["SXSample", "SXDatabase", "SXImages", "SXCore", "SXCrypto", "SXTestSupport"], swiftSettings: strict),
    ],
    swiftLanguageModes: [.v6]
)
