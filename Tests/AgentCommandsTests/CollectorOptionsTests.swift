@testable import AgentCommands
import Collector
import CommandSupport
import EventModel
import EventStore
import Foundation
import ProgramLaunch
import Testing
import TestSupport

/// Every client command takes several `--to` (failover in order) and `--tls` / `--tls-ca`
/// (docs/security.md "TLS", docs/collector.md "Several collectors").
@Suite struct CollectorOptionsTests {
    /// A collector serving TLS only, with a certificate made for this test, and an admin token.
    final class TLSCollector {
        let certificate: TestCertificate
        let directory: URL
        let collector: EmbeddedCollector
        let address: String

        init(_ label: String) throws {
            certificate = try TestCertificate()
            directory = Fixtures.temporaryDirectory(label)
            var options = EmbeddedCollector.Options(access: CollectorAccess(adminToken: "admin"))
            options.tlsCertificate = certificate.certificate
            options.tlsKey = certificate.key
            collector = EmbeddedCollector(dbPath: directory.appendingPathComponent("db.sqlite").path, options: options)
            address = "\(try collector.start())"
        }

        deinit {
            collector.stop()
            try? FileManager.default.removeItem(at: directory)
        }

        var events: Int { (try? collector.store?.totals(EventFilter()).events) ?? -1 }
    }

    func agent(_ arguments: [String]) -> (code: ExitCode, io: CapturedStreams) {
        let io = CapturedStreams()
        return (AgentCLI.group.main(arguments, io: io), io)
    }

    var examples: URL { Fixtures.repositoryRoot.appendingPathComponent("Examples") }

    @Test func optionsParseRepeatedCollectorsAndTLS() throws {
        var arguments = Arguments(["--to", "127.0.0.1:1", "--to", "[::1]:7070", "--tls-ca", "ca.pem"])
        let options = try CollectorOptions(arguments: &arguments)
        #expect(options.addresses.map(\.description) == ["127.0.0.1:1", "[::1]:7070"])
        #expect(options.tls == CollectorOptions.ClientTLS(authorityFile: "ca.pem"))
        #expect(options.commandLine == "--to 127.0.0.1:1 --to [::1]:7070 --tls-ca ca.pem")
        var system = Arguments(["--to", "127.0.0.1:1", "--tls"])
        #expect(try CollectorOptions(arguments: &system).tls == CollectorOptions.ClientTLS(authorityFile: nil))
        var plain = Arguments(["--to", "127.0.0.1:1"])
        #expect(try CollectorOptions(arguments: &plain).tls == nil)
        var alone = Arguments(["--tls"])
        #expect(throws: UsageError.self) { try CollectorOptions(arguments: &alone) }
    }

    @Test func demoShipsOverTLSAndFailsOverToTheCollectorThatAnswers() throws {
        let c = try TLSCollector("demo-tls")
        // Port 1 on loopback refuses connections: the events go to the second collector, over TLS.
        let (code, io) = agent(["demo", "--to", "127.0.0.1:1", "--to", c.address, "--tls-ca", c.certificate.certificate])
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardOutput.contains("26 acknowledged (26 stored, 0 duplicates, 0 rejected)"))
        #expect(c.events == 26)
        // In clear, the TLS collector acknowledges nothing; the resend command names the TLS options.
        let (plain, io2) = agent(["demo", "--to", c.address, "--timeout", "0.5"])
        #expect(plain == .failure)
        #expect(io2.standardError.contains("resend them with: autotrack-agent send --spool"))
        #expect(c.events == 26)
        let (badCA, io3) = agent(["demo", "--to", c.address, "--tls-ca", "/nonexistent/ca.pem"])
        #expect(badCA == .failure)
        #expect(io3.standardError.contains("cannot set up TLS"))
        #expect(io3.standardError.contains("check --tls-ca /nonexistent/ca.pem"))
    }

    @Test func replayShipsOverTLS() throws {
        let c = try TLSCollector("replay-tls")
        let configs = ["shop-events.json", "shop-labels.plist", "shop-rules.json"].flatMap {
            ["--config", examples.appendingPathComponent($0).path]
        }
        let recording = examples.appendingPathComponent("recording.json").path
        let (code, io) = agent(
            ["replay", "--recording", recording, "--to", c.address, "--tls-ca", c.certificate.certificate] + configs)
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardOutput.contains("19 acknowledged (19 stored"))
        #expect(c.events == 19)
    }

    @Test func rulesPublishGoesOverTLSAndTriesTheNextCollector() throws {
        let c = try TLSCollector("publish-tls")
        let rules = examples.appendingPathComponent("shop-rules.json").path
        let io = CapturedStreams()
        let code = CollectorCLI.group.main(
            ["rules", "publish", rules, "--to", "127.0.0.1:1", "--to", c.address, "--token", "admin",
             "--tls-ca", c.certificate.certificate], io: io)
        #expect(code == .success, "\(io.standardError)")
        #expect(io.standardOutput.hasPrefix("stored ") && io.standardOutput.hasSuffix(" at \(c.address)\n"))
        let published = try #require(try c.collector.store?.ruleSets(appKey: "shop"))
        #expect(published.first?.rules.isEmpty == false)
        // Without TLS the collector says, in plain text, that it expects TLS.
        let io2 = CapturedStreams()
        let plain = CollectorCLI.group.main(
            ["rules", "publish", rules, "--to", c.address, "--token", "admin", "--timeout", "1"], io: io2)
        #expect(plain == .failure)
        #expect(io2.standardError.contains("autotrack-collector rules publish: the collector at \(c.address) expects TLS: add --tls"))
        // And with TLS to a plain collector, that it does not speak TLS.
        let plainCollector = EmbeddedCollector(dbPath: Fixtures.temporaryDirectory("publish-plain").appendingPathComponent("db.sqlite").path)
        let plainAddress = "\(try plainCollector.start())"
        defer { plainCollector.stop() }
        let io3 = CapturedStreams()
        let tls = CollectorCLI.group.main(
            ["rules", "publish", rules, "--to", plainAddress, "--token", "admin", "--timeout", "1", "--tls-ca", c.certificate.certificate],
            io: io3)
        #expect(tls == .failure)
        #expect(io3.standardError.contains("the collector at \(plainAddress) does not speak TLS on this port"), "\(io3.standardError)")
    }

    @Test func runCarriesCollectorsAndTLSToThePreload() throws {
        var arguments = Arguments(["--to", "127.0.0.1:1", "--to", "127.0.0.1:2", "--tls-ca", "ca.pem", "--", "autotrack-gtk-shop"])
        let command = try RunCommand(arguments: &arguments)
        let environment = command.settings.environment
        #expect(environment[LaunchSettings.collectorKey] == "127.0.0.1:1,127.0.0.1:2")
        #expect(environment[LaunchSettings.tlsKey] == "1")
        #expect(environment[LaunchSettings.tlsAuthorityKey] == FileManager.default.currentDirectoryPath + "/ca.pem")
        let read = LaunchSettings(environment: environment, program: "autotrack-gtk-shop")
        #expect(read == command.settings)
        var plain = Arguments(["--to", "127.0.0.1:1", "--", "autotrack-gtk-shop"])
        let plainEnvironment = try RunCommand(arguments: &plain).settings.environment
        #expect(plainEnvironment[LaunchSettings.tlsKey] == nil && plainEnvironment[LaunchSettings.tlsAuthorityKey] == nil)
    }
}
