import ATLPWire
import CommandSupport
import Foundation
import Hooks
import KVCConfig
import RemoteConfig
import SystemCalls
import Tracker

/// `autotrack-agent replay`: a recording (a UI script) through the same pipeline as a live app.
public struct ReplayCommand: Command {
    public static let name = "replay"
    public static let abstract = "runs a recording (view trees and interactions) through the plan to a collector"
    public static let help = """
        USAGE: autotrack-agent replay --recording FILE --config FILE [--config FILE ...]
                                      --to HOST:PORT [--to HOST:PORT ...] [--tls [--tls-ca FILE]]
                                      [--app-key KEY] [--app-version VERSION] [--token TOKEN]
                                      [--spool DIR] [--timeout SECONDS]

        Reads a recording (docs/recording-format.md: the screens as view trees, and the
        taps, selections, value changes, gestures, scrolls and page enters/leaves on them),
        checks all of it, then plays it through the same pipeline as a live app: each
        interaction becomes what the hooks deliver, the tracking plan names it, labels it and
        reads KVC values from the recorded views (kvc_error where a key is missing), and the
        events go over TCP (ATLP/1, spooled, exactly once) to the collector.

        Prints one summary line on standard output:
          replay: 9 interactions: 10 events (1 kvc_error), session rec-1: 10 acknowledged (10 stored, 0 duplicates, 0 rejected)
        A recording that names its session replays to the same event ids, so replaying it
        twice stores it once. Exit status 0 when every event was acknowledged, 1 otherwise
        (the reason on standard error), 2 for a usage error.

        OPTIONS:
          --recording FILE      the recording (JSON)
          --config FILE         a configuration document; repeat for several (they merge)
          --to HOST:PORT        the collector; repeat it to give collectors to fail over to, in order
          --tls                 speak TLS; the collector's certificate must name the --to address
                                and come from an authority the system trusts...
          --tls-ca FILE         ...or from this one (PEM); implies --tls
          --app-key KEY         override the recording's appKey
          --app-version VERSION override the recording's appVersion
          --token TOKEN         the collector's ingest token; also $AUTOTRACK_INGEST_TOKEN
          --spool DIR           the spool folder (default: a temporary one, removed when all is acknowledged)
          --timeout SECONDS     how long to wait for acknowledgements (default 30)
          -h, --help            show this help

        EXAMPLE:
          autotrack-collector serve --listen 127.0.0.1:7070 --db shop.sqlite &
          autotrack-agent replay --recording Examples/recording.json --config Examples/shop-events.json \\
              --config Examples/shop-labels.plist --config Examples/shop-rules.json --to 127.0.0.1:7070

        """

    let recordingPath: String
    let configs: [String]
    /// The collectors, first one first, and TLS.
    let collectors: CollectorOptions
    let appKey: String?
    let appVersion: String?
    let token: String?
    let spool: String?
    let timeout: Double

    public init(arguments: inout Arguments) throws(UsageError) {
        recordingPath = try arguments.requiredOption("recording")
        configs = try arguments.options("config")
        guard !configs.isEmpty else { throw UsageError("missing required option --config FILE (give it once per file)") }
        collectors = try CollectorOptions(arguments: &arguments)
        try collectors.requireAddress()
        appKey = try arguments.option("app-key")
        appVersion = try arguments.option("app-version")
        token = try arguments.option("token") ?? ProcessInfo.processInfo.environment["AUTOTRACK_INGEST_TOKEN"]
        spool = try arguments.option("spool")
        timeout = try arguments.doubleOption("timeout", in: 0.1...3600) ?? 30
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        let recording: Recording
        do {
            recording = try Recording(contentsOf: URL(fileURLWithPath: recordingPath))
        } catch {
            io.printError("autotrack-agent replay: \(error)")
            return .failure
        }
        guard let plan = loadPlan(files: configs, io: io, command: "autotrack-agent replay") else { return .failure }
        let app: TrackedApp
        do {
            app = try TrackedApp(key: appKey ?? recording.appKey, version: appVersion ?? recording.appVersion)
        } catch {
            io.printError("autotrack-agent replay: \(error)")
            return .failure
        }

        var scratch: ScratchFolder?
        let spoolPath: String
        if let spool {
            spoolPath = spool
        } else {
            do {
                let s = try ScratchFolder("replay")
                scratch = s
                spoolPath = s.path
            } catch {
                io.printError("autotrack-agent replay: cannot create a temporary spool; check that $TMPDIR names a writable folder, or give one with --spool")
                return .failure
            }
        }
        guard let connections = collectors.connections(command: "autotrack-agent replay", io: io) else { return .failure }
        let pipeline: TrackingPipeline
        do {
            let link = CollectorLink(
                addresses: connections.addresses,
                hello: Hello(appKey: app.key, appVersion: app.version, agent: "autotrack-agent replay", token: token),
                security: connections.security)
            pipeline = try TrackingPipeline(plan: plan, app: app, link: link, spool: spoolPath, session: recording.session)
        } catch {
            io.printError("autotrack-agent replay: cannot open the spool '\(spoolPath)': \(error)")
            return .failure
        }
        defer { pipeline.close() }

        let player = RecordingPlayer(recording, now: Int64(Date().timeIntervalSince1970 * 1000))
        player.play(into: pipeline.tracker)
        let wait = duration(seconds: timeout)
        let delivered = pipeline.drain(deadline: .now + wait)
        io.print("replay: " + pipeline.summary)
        guard delivered else {
            io.printError("autotrack-agent replay: " + pipeline.failure(timeout: wait, spool: spoolPath))
            return .failure
        }
        pipeline.close()
        scratch?.remove()
        return .success
    }
}
