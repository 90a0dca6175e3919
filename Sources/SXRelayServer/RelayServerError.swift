import SXCore

/// Why the relay server could not start or keep running.
public enum RelayServerError: SXError {
    case storeUnusable(path: String, cause: String)
    case cannotListen(address: String, cause: String)

    public var description: String {
        switch self {
        case .storeUnusable(let path, let cause):
            return "cannot use '\(path)' as the relay store: \(cause)"
        case .cannotListen(let address, let cause):
            return "cannot listen on \(address): \(cause)"
        }
    }

    public var remedy: Remedy? {
        if case .cannotListen = self { return .chooseListenAddress }
        return nil
    }
}
