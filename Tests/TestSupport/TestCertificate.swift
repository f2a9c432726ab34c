import Foundation

/// A self-signed certificate for 127.0.0.1, made with the `openssl` command for this test run.
public struct TestCertificate {
    /// PEM files: the certificate (also the authority a client trusts) and its private key.
    public let certificate: String
    public let key: String

    public init(commonName: String = "127.0.0.1") throws {
        let dir = NSTemporaryDirectory() + "atlp-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        certificate = dir + "/cert.pem"
        key = dir + "/key.pem"
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=IP:127.0.0.1",
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        try openssl.run()
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl req exited \(openssl.terminationStatus); install the openssl command (Tools/setup.sh)"])
        }
    }
}
