import Collector
import Foundation
import Synchronization
import TestSupport
import Testing

/// `serve` warns at start when its TLS certificate is expired or not valid yet (every agent that
/// verifies it would refuse to connect), and starts anyway; a valid one starts quietly.
@Suite struct TLSCertificateValidityTests {
    /// The lines the collector logs while it starts with `certificate`, and that it served.
    func startLog(_ certificate: TestCertificate) throws -> [String] {
        let lines = Mutex<[String]>([])
        var options = EmbeddedCollector.Options()
        options.tlsCertificate = certificate.certificate
        options.tlsKey = certificate.key
        let db = Fixtures.temporaryDirectory("tls-validity").appendingPathComponent("events.sqlite").path
        let collector = EmbeddedCollector(dbPath: db, options: options, log: { line in lines.withLock { $0.append(line) } })
        _ = try collector.start()
        collector.stop()
        return lines.withLock { $0 }
    }

    @Test(.timeLimit(.minutes(3))) func serveWarnsWhenTheCertificateExpiredOrIsNotValidYet() throws {
        let expired = try TestCertificate(validFrom: "20000101000000Z", until: "20000102000000Z")
        let log = try startLog(expired)
        #expect(log.count == 1, "\(log)")
        #expect(log.first?.hasPrefix("warning: the TLS certificate \(expired.certificate) expired on 2000-01-02T00:00:00Z") == true, "\(log)")
        #expect(log.first?.contains("clients that verify it (every Autotrack agent with --tls) refuse to connect; renew it") == true)

        let future = try TestCertificate(validFrom: "20991231000000Z", until: "21000101000000Z")
        let early = try startLog(future)
        #expect(early.first?.hasPrefix(
            "warning: the TLS certificate \(future.certificate) is not valid yet: its validity starts on 2099-12-31T00:00:00Z") == true,
            "\(early)")
        #expect(early.first?.contains("check this machine's clock") == true)

        #expect(try startLog(TestCertificate()).isEmpty)
    }
}
