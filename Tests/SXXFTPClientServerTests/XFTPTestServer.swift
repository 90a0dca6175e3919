import Foundation
import SXCore
import SXTestSupport
import SXTransfer
import SXXFTP
import SXXFTPServer

/// A server on a loopback port for one test, running until `stop`.
final class XFTPTestServer: Sendable {
    let server: XFTPServer
    let folder: TempFolder
    private let task: Task<Void, any Error>

    init(folder: TempFolder? = nil, configure: (inout XFTPServerConfiguration) -> Void = { _ in }) async throws {
        let folder = try folder ?? TempFolder("sxkit-xftp")
        var configuration = XFTPServerConfiguration(storeFolder: folder.file("store"), port: 0, certificateAlgorithm: .ed25519)
        configure(&configuration)
        self.folder = folder
        let server = try await XFTPServer.start(configuration)
        self.server = server
        task = Task { try await server.run() }
    }

    var address: XFTPServerAddress { server.address }

    func stop() async {
        await server.stop()
        _ = await task.result
    }
}
