import CLibSSL
import SXXFTP

/// An OpenSSL TLS 1.3 context as XFTP uses it (simplexmq `src/Simplex/Messaging/Transport.hs`
/// 389-401 `defaultSupportedParams`): TLS 1.3, X25519 or X448 key exchange, Ed25519 or Ed448
/// certificates, the ALPN `xftp/1` (`src/Simplex/FileTransfer/Transport.hs` 110-114). SimpleX's own
/// peers offer only ChaCha20-Poly1305 in TLS 1.3; OpenSSL offers and accepts it among its defaults.
/// OpenSSL, not BoringSSL: SimpleX servers' certificates are Ed448 by default, which BoringSSL lacks.
/// The SSL_CTX is only read once made (each connection makes its own SSL), hence `@unchecked Sendable`.
public final class TLSContext: @unchecked Sendable {
    public static let xftpALPN = "xftp/1"

    let context: OpaquePointer
    /// The context a connection with SNI moves to (the web certificate), if any.
    private let webContext: OpaquePointer?
    public let isServer: Bool

    private init(context: OpaquePointer, isServer: Bool, webContext: OpaquePointer? = nil) {
        self.context = context
        self.isServer = isServer
        self.webContext = webContext
    }

    deinit {
        SSL_CTX_free(context)
        if let webContext { SSL_CTX_free(webContext) }
    }

    private static func base(server: Bool) throws(OpenSSLFailure) -> OpaquePointer {
        guard let context = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method()) else { throw OpenSSLFailure("making a TLS context") }
        guard sxkit_SSL_CTX_set_min_tls13(context) == 1, sxkit_SSL_CTX_set1_groups_list(context, "X25519:X448") == 1,
              sxkit_SSL_CTX_set1_sigalgs_list(context, "ed25519:ed448") == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLFailure("configuring TLS 1.3")
        }
        // No session tickets: every connection is a full handshake with its own tls-unique.
        _ = SSL_CTX_set_num_tickets(context, 0)
        return context
    }

    /// A client context offering `xftp/1`. The server's certificates are checked by the caller
    /// against the address's key hash once the handshake is done (`ServerChainCheck`), before any
    /// request is sent.
    ///
    /// `browser`: the signature algorithms a browser accepts (a server may present a web
    /// certificate to it, RSA or ECDSA), as SimpleX's browser client has them from its browser.
    public static func client(alpn: [String] = [xftpALPN], browser: Bool = false) throws(OpenSSLFailure) -> TLSContext {
        let context = try base(server: false)
        if browser, sxkit_SSL_CTX_set1_sigalgs_list(context, WebCredentials.signatureAlgorithms) != 1 {
            SSL_CTX_free(context)
            throw OpenSSLFailure("configuring TLS 1.3")
        }
        // Only what SimpleX's clients offer in TLS 1.3 (`Transport.hs` 393-396), so that a session
        // with any server is the one a SimpleX client would have.
        guard SSL_CTX_set_ciphersuites(context, "TLS_CHACHA20_POLY1305_SHA256") == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLFailure("setting the cipher suite")
        }
        let wire = ALPNList.wire(alpn)
        guard SSL_CTX_set_alpn_protos(context, wire, UInt32(wire.count)) == 0 else {
            SSL_CTX_free(context)
            throw OpenSSLFailure("setting ALPN")
        }
        SSL_CTX_set_verify(context, SSL_VERIFY_NONE, nil)
        return TLSContext(context: context, isServer: false)
    }

    /// A server context presenting `identity`'s chain [server, ca], choosing `xftp/1` (or `h2` for
    /// browsers, or `http/1.1`: `ALPNList.serverPreference`) when the client offers it. With `web`,
    /// a client that sends SNI (a browser: SimpleX's native clients send none) gets that certificate
    /// chain instead, one a browser trusts, with the signature algorithms browsers' certificates use
    /// (simplexmq `Transport.hs` 403-420 `defaultSupportedParamsHTTPS`); the browser client proves
    /// the server's identity through the XFTP handshake instead (`Server.hs` 188-210).
    public static func server(identity: ServerIdentity, web: WebCredentials? = nil) throws(OpenSSLFailure) -> TLSContext {
        let context = try base(server: true)
        guard SSL_CTX_use_certificate(context, identity.certificate.handle) == 1,
              sxkit_SSL_CTX_add1_chain_cert(context, identity.caCertificate.handle) == 1,
              SSL_CTX_use_PrivateKey(context, identity.key.handle) == 1,
              SSL_CTX_check_private_key(context) == 1 else {
            SSL_CTX_free(context)
            throw OpenSSLFailure("loading the server certificate")
        }
        selectALPN(context)
        guard let web else { return TLSContext(context: context, isServer: true) }
        let webContext: OpaquePointer
        do {
            webContext = try base(server: true)
        } catch {
            SSL_CTX_free(context)
            throw error
        }
        guard sxkit_SSL_CTX_set1_sigalgs_list(webContext, WebCredentials.signatureAlgorithms) == 1,
              SSL_CTX_use_certificate_chain_file(webContext, web.certificateChainFile) == 1,
              SSL_CTX_use_PrivateKey_file(webContext, web.keyFile, SSL_FILETYPE_PEM) == 1,
              SSL_CTX_check_private_key(webContext) == 1 else {
            SSL_CTX_free(context)
            SSL_CTX_free(webContext)
            throw OpenSSLFailure("loading the web certificate '\(web.certificateChainFile)' and its key '\(web.keyFile)'")
        }
        selectALPN(webContext)
        sxkit_SSL_CTX_switch_on_sni(context, webContext)
        return TLSContext(context: context, isServer: true, webContext: webContext)
    }

    private static func selectALPN(_ context: OpaquePointer) {
        SSL_CTX_set_alpn_select_cb(context, { _, out, outLength, offered, offeredLength, _ in
            ALPNList.select(out: out, outLength: outLength, offered: offered, offeredLength: offeredLength)
        }, nil)
    }
}

/// A certificate chain and key (PEM files) for browsers, such as one a public CA issued for the
/// server's host name.
public struct WebCredentials: Sendable, Equatable {
    public var certificateChainFile: String
    public var keyFile: String

    public init(certificateChainFile: String, keyFile: String) {
        self.certificateChainFile = certificateChainFile
        self.keyFile = keyFile
    }

    /// simplexmq's HTTPS signature algorithms (`Transport.hs` 408-420), in OpenSSL's names.
    static let signatureAlgorithms = "ed448:ed25519:ecdsa_secp256r1_sha256:ecdsa_secp384r1_sha384:ecdsa_secp521r1_sha512:"
        + "rsa_pss_rsae_sha512:rsa_pss_rsae_sha384:rsa_pss_rsae_sha256:rsa_pkcs1_sha512:rsa_pkcs1_sha384:rsa_pkcs1_sha256"
}

/// ALPN protocol lists in their wire form (RFC 7301: each name after its length byte).
enum ALPNList {
    static func wire(_ names: [String]) -> [UInt8] { names.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } }

    /// The server's preference, simplexmq's (`Server/Main.hs` 319: `alpnSupportedXFTPhandshakes <>
    /// httpALPN`): xftp/1; h2 (SimpleX's web client); http/1.1, which SimpleX's native clients offer
    /// instead of xftp/1 for servers on the web port (preset servers by default, every server when
    /// the user asks: `Client.hs` 136, `Messaging/Client.hs` 721-729), and then make the same
    /// handshake over HTTP/2 (`Client.hs` 149-152, `Server.hs` 165). A server that chose nothing for
    /// them would be taken for a pre-handshake one, spoken to in version 1 without a handshake.
    nonisolated(unsafe) static let serverPreference: UnsafeMutableBufferPointer<UInt8> = {
        let bytes = wire([TLSContext.xftpALPN, "h2", "http/1.1"])
        let buffer = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: bytes.count)
        _ = buffer.initialize(from: bytes)
        return buffer
    }()

    static func select(out: UnsafeMutablePointer<UnsafePointer<UInt8>?>?, outLength: UnsafeMutablePointer<UInt8>?,
                       offered: UnsafePointer<UInt8>?, offeredLength: UInt32) -> Int32 {
        var chosen: UnsafeMutablePointer<UInt8>?
        var chosenLength: UInt8 = 0
        let result = SSL_select_next_proto(&chosen, &chosenLength, serverPreference.baseAddress, UInt32(serverPreference.count), offered, offeredLength)
        guard result == OPENSSL_NPN_NEGOTIATED, let chosen else { return SSL_TLSEXT_ERR_NOACK }
        out?.pointee = UnsafePointer(chosen)
        outLength?.pointee = chosenLength
        return SSL_TLSEXT_ERR_OK
    }
}
