/// The errors an XFTP server answers with (`src/Simplex/FileTransfer/Transport.hs` 223-256, encoded
/// 297-334 as their names; `CMD` carries a `CommandError`, `Protocol.hs` of SMP).
public enum XFTPErrorCode: Sendable, Equatable, CustomStringConvertible {
    public enum CommandProblem: String, Sendable, CaseIterable {
        case unknown = "UNKNOWN", syntax = "SYNTAX", prohibited = "PROHIBITED"
        case noAuth = "NO_AUTH", hasAuth = "HAS_AUTH", noEntity = "NO_ENTITY"
    }

    case block, session, handshake
    case command(CommandProblem)
    case auth
    /// The server blocked the file; the blocking information as the server sent it.
    case blocked([UInt8])
    case size, quota, digest, crypto, noFile, hasFile, fileIO, timeout, `internal`
    case duplicate

    public var encoded: [UInt8] {
        switch self {
        case .command(let problem): Array("CMD \(problem.rawValue)".utf8)
        case .blocked(let info): Array("BLOCKED ".utf8) + info
        default: Array(name.utf8)
        }
    }

    /// The protocol's name for the error.
    public var name: String {
        switch self {
        case .block: "BLOCK"
        case .session: "SESSION"
        case .handshake: "HANDSHAKE"
        case .command: "CMD"
        case .auth: "AUTH"
        case .blocked: "BLOCKED"
        case .size: "SIZE"
        case .quota: "QUOTA"
        case .digest: "DIGEST"
        case .crypto: "CRYPTO"
        case .noFile: "NO_FILE"
        case .hasFile: "HAS_FILE"
        case .fileIO: "FILE_IO"
        case .timeout: "TIMEOUT"
        case .internal: "INTERNAL"
        case .duplicate: "DUPLICATE_"
        }
    }

    public var description: String { String(decoding: encoded, as: UTF8.self) }

    public static func parse(_ bytes: [UInt8]) throws(XFTPWireError) -> XFTPErrorCode {
        var reader = XFTPReader(bytes)
        let word = reader.tag()
        let simple: [String: XFTPErrorCode] = [
            "BLOCK": .block, "SESSION": .session, "HANDSHAKE": .handshake, "AUTH": .auth, "SIZE": .size, "QUOTA": .quota,
            "DIGEST": .digest, "CRYPTO": .crypto, "NO_FILE": .noFile, "HAS_FILE": .hasFile, "FILE_IO": .fileIO,
            "TIMEOUT": .timeout, "INTERNAL": .internal, "DUPLICATE_": .duplicate,
        ]
        if let code = simple[word] {
            try reader.expectEnd(field: "error")
            return code
        }
        switch word {
        case "CMD":
            try reader.space(field: "CMD error")
            let problem = reader.tag()
            try reader.expectEnd(field: "CMD error")
            // SMP's old name for NO_ENTITY is still read (xftp-web `protocol/commands.ts` 101).
            if problem == "NO_QUEUE" { return .command(.noEntity) }
            guard let known = CommandProblem(rawValue: problem) else { throw .invalid(field: "CMD error", reason: "'\(problem)' is not a command error") }
            return .command(known)
        case "BLOCKED":
            try reader.space(field: "BLOCKED error")
            return .blocked(reader.rest())
        default:
            throw .unknownTag(word)
        }
    }
}
