import ATLPTLS
import Foundation
import HTTPServer
import SystemCalls
import Testing
import TestSupport

/// A real client (curl, from Tools/setup.sh) against the server: keep-alive across URLs, a form
/// POST with 100-continue, HEAD, and HTTPS with the certificate it is told to trust.
@Suite(.timeLimit(.minutes(3))) struct CurlTests {
    /// Runs curl with `arguments`; its standard output.
    func curl(_ arguments: [String]) throws -> String {
        let run = try runProgram("/usr/bin/env", ["curl", "--silent", "--show-error", "--max-time", "10", "--http1.1"] + arguments, timeout: 60)
        #expect(run.status == 0, "curl \(arguments) exited \(run.status): \(run.errors)")
        return run.output
    }

    @Test func curlReusesTheConnectionPostsAndAsksForHeads() throws {
        let (server, address) = try startServer()
        defer { server.stop() }
        let base = "http://\(address)"
        let two = try curl(["\(base)/echo/1?a=b", "\(base)/echo/2"])
        #expect(two == "GET /echo/1 a=b 0GET /echo/2 - 0")
        #expect(server.statistics.accepted == 1)  // one connection for both

        // curl sends Expect: 100-continue for a body over 1 MiB; ask for it on a small one too.
        let body = String(repeating: "k", count: 5000)
        let posted = try curl(["-H", "Expect: 100-continue", "--data-binary", body, "\(base)/echo"])
        #expect(posted == "POST /echo - 5000\n" + body)
        #expect(server.statistics.responses[100] == 1)

        let head = try curl(["--head", "\(base)/big?n=1234"])
        #expect(head.hasPrefix("HTTP/1.1 200 OK\r\n"))
        #expect(head.contains("Content-Length: 1234\r\n"))
    }

    @Test func curlSpeaksHTTPSWithTheCertificate() throws {
        let cert = try TestCertificate()
        let context = try TLSContext.server(certificateFile: cert.certificate, keyFile: cert.key)
        let (server, address) = try startServer(security: context.channels)
        defer { server.stop() }
        let text = try curl(["--cacert", cert.certificate, "https://\(address)/secure", "https://\(address)/echo"])
        #expect(text == "secureGET /echo - 0")
        #expect(server.statistics.accepted == 1)
    }
}
