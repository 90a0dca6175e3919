import CLibSSL

/// What OpenSSL said when a call failed: its error queue, emptied, so that the next failure does not
/// report this one's reasons.
public struct OpenSSLFailure: Error, Sendable, Equatable, CustomStringConvertible {
    public var operation: String
    public var reasons: [String]

    public init(_ operation: String) {
        self.operation = operation
        var reasons: [String] = []
        while case let code = ERR_get_error(), code != 0 {
            var text = [CChar](repeating: 0, count: 256)
            ERR_error_string_n(code, &text, text.count)
            reasons.append(String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.reasons = reasons
    }

    public var description: String {
        reasons.isEmpty ? "\(operation) failed" : "\(operation) failed: \(reasons.joined(separator: "; "))"
    }
}
