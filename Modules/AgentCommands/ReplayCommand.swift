import ATLPWire
public import CommandSupport
import Foundation
import Hooks
import KVCConfig
import AgentPipeline
import SystemCalls
import Tracker

/// `autotrack-agent replay`: a recording (a UI script) through the same pipeline as a live app.
public struct ReplayCommand: Command {
    public static let name = "replay"
    public static let abstract = "runs a recording (view trees and interactions) through the plan to a collector"
    public static let discussion = """
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
        """
    static let recording = Option.single("recording", "FILE", help: "the recording (JSON)", required: true)
    static let config = AgentOptions.config.required()
    static let appKey = Option.single("app-key", "KEY", help: "override the recording's appKey")
    static let appVersion = Option.single("app-version", "VERSION", help: "override the recording's appVersion")
    static let spool = Option.single(
        "spool", "DIR", help: "the spool folder (default: a temporary one, removed when all is acknowledged)")
    public static let optionGroups = [
        OptionGroup([recording, config, appKey, appVersion, AgentOptions.ingestToken, spool, AgentOptions.timeout]),
        CollectorOptions.group(requiringAddress: true),
    ]
    public static let examples = """
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
        recordingPath = try arguments.required(Self.recording)
        configs = try arguments.values(Self.config)
        collectors = try CollectorOptions(arguments: &arguments)
        try collectors.requireAddress()
        appKey = try arguments.value(Self.appKey)
        appVersion = try arguments.value(Self.appVersion)
        token = try arguments.value(AgentOptions.ingestToken)
        spool = try arguments.value(Self.spool)
        timeout = try arguments.double(defaulted: AgentOptions.timeout, in: 0.1...3600)
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
