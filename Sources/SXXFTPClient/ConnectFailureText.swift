import Glibc
import NIOCore
import NIOPosix

/// A connection failure in a few words ("connection refused", "no route to host"), not the
/// structure SwiftNIO describes it with (`NIOConnectionError` lists every address tried).
enum ConnectFailureText {
    static func words(_ error: any Error) -> String {
        switch error {
        case let failure as NIOConnectionError:
            if let first = failure.connectionErrors.first { return words(first.error) }
            if failure.dnsAError != nil || failure.dnsAAAAError != nil { return "its name could not be resolved" }
            return "no address to connect to"
        case let io as IOError:
            return String(cString: strerror(io.errnoCode)).lowercased()
        case ChannelError.connectTimeout(let after):
            return "no answer within \(after.nanoseconds / 1_000_000_000) s"
        default:
            return String(describing: error)
        }
    }
}
