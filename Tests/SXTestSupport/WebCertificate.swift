import Foundation

/// A self-signed P-256 certificate for a host name (also its subjectAltName) and its key (0600),
/// made by the openssl tool, not by sxkit: what a browser-facing server would be given.
public enum WebCertificate {
    public static func make(in folder: TempFolder, host: String = "xftp.test") throws -> (certificate: String, key: String) {
        let key = folder.file("web.key"), certificate = folder.file("web.crt")
        let make = Process()
        make.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        make.arguments = ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key,
                          "-out", certificate, "-subj", "/CN=\(host)", "-addext", "subjectAltName=DNS:\(host)", "-days", "2"]
        make.standardError = FileHandle.nullDevice
        try make.run()
        make.waitUntilExit()
        guard make.terminationStatus == 0, chmod(key, 0o600) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return (certificate, key)
    }
}
