import Foundation
import Testing
import SXCore
import SXCrypto
import SXTestSupport
@testable import SXXFTP

/// The longer chains simplexmq's `chainIdCaCerts` names (`Transport/Shared.hs` 27-35): [leaf,
/// identity, operator] and [leaf, identity, network, anchor], the key hash being the identity's,
/// the path checked from the leaf up to the last certificate as x509-validation's `doCheckChain`
/// does. The certificates are made by the `openssl` command, and `openssl verify` says
/// independently which chains are sound.
@Suite(.ownThreads) struct LongerChainTests {
    /// Certificates made by `openssl req`, with no extension but those asked for.
    final class Maker {
        let folder: TempFolder
        init() throws {
            folder = try TempFolder("sxkit-chains")
            _ = try folder.write("req.cnf", Array("[req]\ndistinguished_name = dn\n[dn]\n".utf8))
        }

        @discardableResult
        func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
            try PeerCommand.run("/usr/bin/openssl", arguments)
        }

        /// Makes `name`.key and `name`.crt, issued by `issuer` (self-signed when nil), and returns its DER.
        @discardableResult
        func make(_ name: String, issuer: String?, extensions: [String]) throws -> [UInt8] {
            let made = try run(["genpkey", "-algorithm", "ed25519", "-out", folder.file(name + ".key")])
            #expect(made.status == 0, "\(made.output)")
            var arguments = ["req", "-x509", "-new", "-config", folder.file("req.cnf"), "-key", folder.file(name + ".key"),
                             "-subj", "/O=sxkit test/CN=\(name)", "-days", "30", "-out", folder.file(name + ".crt")]
            if let issuer { arguments += ["-CA", folder.file(issuer + ".crt"), "-CAkey", folder.file(issuer + ".key")] }
            for extensionText in extensions { arguments += ["-addext", extensionText] }
            let issued = try run(arguments)
            #expect(issued.status == 0, "\(issued.output)")
            let der = try run(["x509", "-in", folder.file(name + ".crt"), "-outform", "DER", "-out", folder.file(name + ".der")])
            #expect(der.status == 0, "\(der.output)")
            return try folder.read(name + ".der")
        }

        /// Whether `openssl verify` accepts `leaf` through `untrusted` up to `anchor`.
        func opensslAccepts(leaf: String, untrusted: [String], anchor: String) throws -> Bool {
            var arguments = ["verify", "-CAfile", folder.file(anchor + ".crt")]
            if !untrusted.isEmpty {
                let bundle = try untrusted.flatMap { try folder.read($0 + ".crt") }
                arguments += ["-untrusted", try folder.write("untrusted.pem", bundle)]
            }
            return try run(arguments + [folder.file(leaf + ".crt")]).status == 0
        }
    }

    static let authority = ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,keyCertSign,cRLSign"]
    static let server = ["basicConstraints=CA:FALSE", "keyUsage=critical,digitalSignature"]

    @Test func anOperatorsChainIsAcceptedByTheIdentitysHash() throws {
        let maker = try Maker()
        let operatorCertificate = try maker.make("operator", issuer: nil, extensions: Self.authority)
        let identity = try maker.make("identity", issuer: "operator", extensions: Self.authority)
        let leaf = try maker.make("leaf", issuer: "identity", extensions: Self.server)
        #expect(try maker.opensslAccepts(leaf: "leaf", untrusted: ["identity"], anchor: "operator"))
        let chain = [leaf, identity, operatorCertificate]
        #expect(try ServerChainCheck.validate(chain: chain, keyHash: SHA256Digest.of(identity)).der == leaf)
        // The key hash names the second certificate, never the anchor.
        #expect(throws: ServerIdentityProblem.self) { try ServerChainCheck.validate(chain: chain, keyHash: SHA256Digest.of(operatorCertificate)) }
    }

    @Test func aNetworksChainIsAcceptedByTheIdentitysHash() throws {
        let maker = try Maker()
        let anchor = try maker.make("anchor", issuer: nil, extensions: Self.authority)
        let network = try maker.make("network", issuer: "anchor", extensions: Self.authority)
        let identity = try maker.make("identity", issuer: "network", extensions: Self.authority)
        let leaf = try maker.make("leaf", issuer: "identity", extensions: Self.server)
        #expect(try maker.opensslAccepts(leaf: "leaf", untrusted: ["identity", "network"], anchor: "anchor"))
        #expect(try ServerChainCheck.validate(chain: [leaf, identity, network, anchor], keyHash: SHA256Digest.of(identity)).der == leaf)
        // x509-validation does not ask that the path pass through the identity: a leaf the network
        // issued is accepted too, as there.
        let stray = try maker.make("stray", issuer: "network", extensions: Self.server)
        #expect(try ServerChainCheck.validate(chain: [stray, identity, network, anchor], keyHash: SHA256Digest.of(identity)).der == stray)
    }

    /// Not a CA, or a CA whose key usage does not allow signing certificates.
    @Test(arguments: [["basicConstraints=critical,CA:FALSE"], ["basicConstraints=critical,CA:TRUE", "keyUsage=critical,digitalSignature"]])
    func anIdentityThatMayNotIssueCertificatesIsRefused(identityExtensions: [String]) throws {
        let maker = try Maker()
        let operatorCertificate = try maker.make("operator", issuer: nil, extensions: Self.authority)
        let identity = try maker.make("identity", issuer: "operator", extensions: identityExtensions)
        let leaf = try maker.make("leaf", issuer: "identity", extensions: Self.server)
        #expect(try !maker.opensslAccepts(leaf: "leaf", untrusted: ["identity"], anchor: "operator"))
        #expect(throws: ServerIdentityProblem.issuerNotAnAuthority) {
            try ServerChainCheck.validate(chain: [leaf, identity, operatorCertificate], keyHash: SHA256Digest.of(identity))
        }
    }

    /// Path lengths counted as x509-validation counts them: the leaf's issuer at level 0.
    @Test func pathLengthsThatAllowThePathAreAccepted() throws {
        let maker = try Maker()
        let anchor = try maker.make("anchor", issuer: nil, extensions: Self.authority)
        let network = try maker.make("network", issuer: "anchor", extensions: ["basicConstraints=critical,CA:TRUE,pathlen:1"])
        let identity = try maker.make("identity", issuer: "network", extensions: ["basicConstraints=critical,CA:TRUE,pathlen:0"])
        let leaf = try maker.make("leaf", issuer: "identity", extensions: Self.server)
        #expect(try maker.opensslAccepts(leaf: "leaf", untrusted: ["identity", "network"], anchor: "anchor"))
        #expect(try ServerChainCheck.validate(chain: [leaf, identity, network, anchor], keyHash: SHA256Digest.of(identity)).der == leaf)
    }

    @Test func aPathLongerThanAnIssuersPathLengthIsRefused() throws {
        let maker = try Maker()
        let anchor = try maker.make("anchor", issuer: nil, extensions: Self.authority)
        let network = try maker.make("network", issuer: "anchor", extensions: ["basicConstraints=critical,CA:TRUE,pathlen:0"])
        let identity = try maker.make("identity", issuer: "network", extensions: Self.authority)
        let leaf = try maker.make("leaf", issuer: "identity", extensions: Self.server)
        #expect(try !maker.opensslAccepts(leaf: "leaf", untrusted: ["identity", "network"], anchor: "anchor"))
        #expect(throws: ServerIdentityProblem.issuerNotAnAuthority) {
            try ServerChainCheck.validate(chain: [leaf, identity, network, anchor], keyHash: SHA256Digest.of(identity))
        }
    }

    @Test func aLeafSignedByAnotherKeyUnderTheIdentitysNameIsRefused() throws {
        let maker = try Maker()
        let operatorCertificate = try maker.make("operator", issuer: nil, extensions: Self.authority)
        let identity = try maker.make("identity", issuer: "operator", extensions: Self.authority)
        // A second "identity" (same name, its own key) issues the leaf; the chain carries the first.
        let other = try Maker()
        try other.make("identity", issuer: nil, extensions: Self.authority)
        let leaf = try other.make("leaf", issuer: "identity", extensions: Self.server)
        #expect(throws: ServerIdentityProblem.badCertificateSignature) {
            try ServerChainCheck.validate(chain: [leaf, identity, operatorCertificate], keyHash: SHA256Digest.of(identity))
        }
    }
}
