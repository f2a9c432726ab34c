import Foundation

/// A self-signed certificate for 127.0.0.1, made with the `openssl` command for this test run.
public struct TestCertificate {
    /// PEM files: the certificate (also the authority a client trusts) and its private key.
    public let certificate: String
    public let key: String

    /// Valid from now for two days (`openssl req -x509 -days 2`).
    public init(commonName: String = "127.0.0.1") throws {
        let dir = try Self.directory()
        certificate = dir + "/cert.pem"
        key = dir + "/key.pem"
        try Self.openssl([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
            "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
    }

    /// Valid only from `start` to `end` (`YYYYMMDDHHMMSSZ`): an expired certificate, or one not
    /// valid yet. `openssl req -x509 -days` takes only a positive count of days from now
    /// (OpenSSL 3.0), so the request is signed by itself with `openssl ca -selfsign`, which takes both dates.
    public init(validFrom start: String, until end: String, commonName: String = "127.0.0.1") throws {
        let dir = try Self.directory()
        certificate = dir + "/cert.pem"
        key = dir + "/key.pem"
        let config = """
            [ca]
            default_ca = test
            [test]
            database = \(dir)/index.txt
            new_certs_dir = \(dir)
            serial = \(dir)/serial
            default_md = sha256
            policy = anything
            copy_extensions = copy
            [anything]
            commonName = supplied

            """
        try Data(config.utf8).write(to: URL(fileURLWithPath: dir + "/ca.cnf"))
        try Data().write(to: URL(fileURLWithPath: dir + "/index.txt"))
        try Data("01\n".utf8).write(to: URL(fileURLWithPath: dir + "/serial"))
        try Self.openssl([
            "req", "-new", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", dir + "/request.csr",
            "-subj", "/CN=\(commonName)", "-addext", "subjectAltName=IP:127.0.0.1",
        ])
        try Self.openssl([
            "ca", "-config", dir + "/ca.cnf", "-selfsign", "-batch", "-keyfile", key, "-in", dir + "/request.csr",
            "-out", certificate, "-startdate", start, "-enddate", end,
        ])
    }

    private static func directory() throws -> String {
        let dir = NSTemporaryDirectory() + "atlp-tls-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    private static func openssl(_ arguments: [String]) throws {
        let openssl = try runProgram("/usr/bin/env", ["openssl"] + arguments, timeout: 60)
        guard openssl.status == 0 else {
            throw CocoaError(
                .fileWriteUnknown,
                userInfo: [
                    NSLocalizedDescriptionKey:
                        "openssl \(arguments[0]) exited \(openssl.status); install the openssl command (Tools/setup.sh)"
                ])
        }
    }
}
