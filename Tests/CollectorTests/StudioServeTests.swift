import Collector
import Foundation
import SystemCalls
import Testing
import TestSupport

/// The studio beside ATLP in one collector: HTTPS with the ATLP server's certificate (and the
/// `Secure` cookie), and no studio without an admin token.
@Suite struct StudioServeTests {
    /// `curl` trusting `ca`; the status line's code and the response headers.
    static func curl(_ arguments: [String]) throws -> String {
        try runProgram("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "--max-time", "20"] + arguments, timeout: 60).output
    }

    @Test(.timeLimit(.minutes(3))) func studioSpeaksHTTPSWithTheCollectorsCertificate() throws {
        let tls = try TestCertificate()
        var options = EmbeddedCollector.Options(access: CollectorAccess(adminToken: "admin"))
        options.tlsCertificate = tls.certificate
        options.tlsKey = tls.key
        options.studio = SocketAddress(host: "127.0.0.1", port: 0)
        let db = Fixtures.temporaryDirectory("studio-tls").appendingPathComponent("events.sqlite").path
        let collector = EmbeddedCollector(dbPath: db, options: options)
        _ = try collector.start()
        defer { collector.stop() }
        let studio = try #require(collector.studioAddress)
        let url = "https://127.0.0.1:\(studio.port)"
        let login = try Self.curl(["--cacert", tls.certificate, "-H", "Content-Type: application/json", "-d", #"{"token":"admin"}"#, url + "/login"])
        #expect(login.hasPrefix("HTTP/1.1 200"))
        let cookie = login.split(separator: "\r\n").first { $0.lowercased().hasPrefix("set-cookie:") } ?? ""
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.hasSuffix("; Secure"))
        #expect(try Self.curl(["--cacert", tls.certificate, url + "/api/apps"]).hasPrefix("HTTP/1.1 401"))
        #expect(try Self.curl(["--cacert", tls.certificate, "-H", "Authorization: Bearer admin", url + "/api/apps"]).hasPrefix("HTTP/1.1 200"))
        // Plain HTTP to the HTTPS port gets no answer from the studio.
        #expect(!(try Self.curl(["http://127.0.0.1:\(studio.port)/api/apps"]).contains("200")))
    }

    @Test func noStudioWithoutAnAdminToken() throws {
        var options = EmbeddedCollector.Options()
        options.studio = SocketAddress(host: "127.0.0.1", port: 0)
        let db = Fixtures.temporaryDirectory("studio-no-token").appendingPathComponent("events.sqlite").path
        let collector = EmbeddedCollector(dbPath: db, options: options)
        #expect(throws: CollectorStartError.self) { try collector.start() }
        #expect(collector.studioAddress == nil)
    }
}
