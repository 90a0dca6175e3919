import SXCore

/// An XFTP server's identity, laid out as simplexmq's `xftp-server init` leaves it in its folder
/// (`src/Simplex/Messaging/Server/CLI.hs` 116-129, 151-198): `ca.key`/`ca.crt`, the identity (CA)
/// certificate whose SHA-256 is the key hash in the server's address, and `server.key`/`server.crt`,
/// the TLS certificate it signed; `fingerprint` holds the key hash (base64url). The TLS chain is
/// [server, ca] (`Transport/Server.hs` 252-256). Keys are 0600.
public struct ServerIdentity: Sendable {
    public let caCertificate: Certificate
    public let certificate: Certificate
    /// The TLS certificate's key: it also signs the handshake's session key.
    public let key: SigningKey

    public var keyHash: [UInt8] { caCertificate.fingerprint }
    /// DER, leaf first, as the TLS server presents it.
    public var chain: [Certificate] { [certificate, caCertificate] }

    static let files = (caKey: "ca.key", caCertificate: "ca.crt", key: "server.key", certificate: "server.crt", fingerprint: "fingerprint")

    /// Makes a new CA and server certificate. `commonName` is the server's host name or address.
    public static func create(commonName: String, algorithm: SigningKey.Algorithm) throws(OpenSSLFailure) -> (identity: ServerIdentity, caKey: SigningKey) {
        let caKey = try SigningKey.generate(algorithm)
        let caName = [("CN", "SMP server CA"), ("O", "SimpleX")]
        let ca = try Certificate.issue(subject: caName, key: caKey, issuer: nil, issuerKey: caKey, isCA: true)
        let key = try SigningKey.generate(algorithm)
        let certificate = try Certificate.issue(subject: [("CN", commonName)], key: key, issuer: ca, issuerKey: caKey, isCA: false)
        return (ServerIdentity(caCertificate: ca, certificate: certificate, key: key), caKey)
    }

    /// Reads the identity from `folder`, or, when the folder holds none of its files, creates one
    /// there. Returns whether it was created. Half an identity is refused, never overwritten.
    public static func loadOrCreate(folder: String, commonName: String, algorithm: SigningKey.Algorithm) throws -> (identity: ServerIdentity, created: Bool) {
        let names = [files.caKey, files.caCertificate, files.key, files.certificate]
        let present = names.filter { POSIXFile.exists(Path.join(folder, $0)) }
        if present.count == names.count {
            return (try load(folder: folder), false)
        }
        guard present.isEmpty else { throw ServerIdentityFilesProblem.incomplete(folder: folder, missing: names.filter { !present.contains($0) }) }
        let (identity, caKey) = try create(commonName: commonName, algorithm: algorithm)
        try AtomicFileWriter.write(caKey.pem(), to: Path.join(folder, files.caKey), mode: 0o600)
        try AtomicFileWriter.write(identity.key.pem(), to: Path.join(folder, files.key), mode: 0o600)
        try AtomicFileWriter.write(identity.caCertificate.pem(), to: Path.join(folder, files.caCertificate), mode: 0o644)
        try AtomicFileWriter.write(identity.certificate.pem(), to: Path.join(folder, files.certificate), mode: 0o644)
        try AtomicFileWriter.write(Array((Base64URL.encode(identity.keyHash) + "\n").utf8), to: Path.join(folder, files.fingerprint), mode: 0o644)
        return (identity, true)
    }

    public static func load(folder: String) throws -> ServerIdentity {
        let limit = 64 * 1024
        let ca = try Certificate.fromPEM(FileBytes.read(Path.join(folder, files.caCertificate), limit: limit))
        let certificate = try Certificate.fromPEM(FileBytes.read(Path.join(folder, files.certificate), limit: limit))
        let key = try SigningKey.fromPEM(FileBytes.read(Path.join(folder, files.key), limit: limit))
        guard certificate.isSigned(by: ca) else { throw ServerIdentityFilesProblem.notIssuedByCA(folder: folder) }
        return ServerIdentity(caCertificate: ca, certificate: certificate, key: key)
    }
}

/// Why a server folder's identity files cannot be used.
public enum ServerIdentityFilesProblem: SXError, Equatable {
    case incomplete(folder: String, missing: [String])
    case notIssuedByCA(folder: String)

    public var description: String {
        switch self {
        case .incomplete(let folder, let missing):
            "the server identity in '\(folder)' is incomplete (\(missing.joined(separator: ", ")) missing); restore the files, or use an empty folder for a new identity"
        case .notIssuedByCA(let folder): "server.crt in '\(folder)' was not issued by ca.crt there"
        }
    }
}
