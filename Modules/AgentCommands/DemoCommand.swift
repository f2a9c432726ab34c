import ATLPWire
public import CommandSupport
import DemoShop
import Foundation
import Interactions
import KVCConfig
import AgentPipeline
import SystemCalls
import Tracker
import Hooks

/// `autotrack-agent demo`: the demo shop's scripted session, end to end, with the example configuration.
public struct DemoCommand: Command {
    public static let name = "demo"
    public static let abstract = "runs the demo shop's scripted session through hooks, the plan and TCP, and shows the report"
    public static let discussion = """
        Runs the simulated shop app (DemoShop) through its scripted session: launch, a favourite
        tap, a product page, size and quantity changes, an image tap, add to cart, back, a scroll
        that reuses cells, share, a second product page, the in-stock switch, background and
        foreground. Every interaction goes through the hooks, the tracking plan (event ids,
        labels, KVC values read from the live views, kvc_error records) and TCP (ATLP/1) to a
        collector, as app "\(DemoConfiguration.appKey)" version \(DemoConfiguration.appVersion).

        Without --to, it starts its own collector (autotrack-collector serve, found beside this
        program or at $AUTOTRACK_COLLECTOR) on a loopback port with a
        temporary database (or the database FILE given with --db, which is kept), runs the session, waits until every event is acknowledged, and
        prints the collector's report (docs/reports.md) on standard output; the one-line
        summary goes to standard error. With --to, it ships to that collector and prints the
        summary on standard output (when the collector does not acknowledge every event, the
        spool is kept and the 'autotrack-agent send' command that resends it is printed):
          demo: 25 interactions: 26 events (1 kvc_error), session s-…: 26 acknowledged (26 stored, 0 duplicates, 0 rejected)

        The configuration is the example in Examples/ (shop-events.json, shop-labels.plist,
        shop-rules.json), built into the tool, so no file is needed; --config replaces it.
        Rules published to the collector (autotrack-collector rules publish) are merged over it:
        the tracker asks the collector (CONFIG) before the session starts and then every
        --config-refresh seconds while it runs (docs/agent.md "Remote configuration"). The
        agent's data (device id, last good rules) lives in the temporary folder of the run.
        While someone circles the app in the studio (the collector's CONFIG answer says circle
        mode), or with --snapshots, each page entered is also sent as a snapshot: a picture drawn
        from the page's view tree and the tree with frames and readable properties
        (docs/agent.md "Snapshots"); the count goes to standard error.
        --debug is run's debug mode: one line per interaction on standard error, with the rules
        that matched and the values read, or the nearest rule and where its path differs
        (docs/agent.md "Debug mode").
        Exit status 0 when every event was acknowledged, 1 otherwise, 2 for a usage error.
        """
    static let to = CollectorOptions.to.described(
        "ship to this collector instead of an embedded one; more are failover, tried in order when one does not answer")
    static let token = AgentOptions.ingestToken.described("with --to: the collector's ingest token")
    static let config = AgentOptions.config.described("a configuration document; several merge (default: the examples)")
    static let format = Option.single("format", "FORMAT", help: "the report's format without --to: table, json, csv, html", default: "table")
    static let treeDir = Option.single(
        "tree-dir", "DIR",
        help: "write each page's view tree to DIR/<page>.json as it is entered (the input of `autotrack-agent drift`); DIR is created if needed")
    static let db = Option.single(
        "db", "FILE",
        help: "without --to: keep the embedded collector's database at FILE (created when absent), for 'autotrack-collector report --db FILE'")
    static let snapshots = Option.flag("snapshots", help: "send a snapshot of each page entered, as in circle mode")
    static let configRefresh = Option.single(
        "config-refresh", "SECONDS", help: "how often the tracker asks the collector for rules", default: "60")
    public static let optionGroups = [
        OptionGroup([token, config, format, AgentOptions.timeout, treeDir, db, snapshots, AgentOptions.debug, configRefresh]),
        CollectorOptions.group(to: to),
    ]
    public static let examples = """
        autotrack-agent demo
        autotrack-agent demo --tree-dir trees
        autotrack-agent demo --snapshots --db demo.sqlite
        autotrack-agent demo --debug --format json
        autotrack-agent demo --debug --config Examples/shop-privacy.json --format csv
        autotrack-agent demo --config-refresh 5 --format json
        autotrack-agent demo --db demo.sqlite
        autotrack-collector serve --listen 127.0.0.1:7070 --db shop.sqlite &
        autotrack-agent demo --to 127.0.0.1:7070
        """

    /// The `--to` collectors (none: the embedded one) and TLS.
    let collectors: CollectorOptions
    let token: String?
    let configs: [String]
    /// `autotrack-collector report --format`'s value.
    let format: String
    let timeout: Double
    let treeDir: String?
    let configRefresh: Double
    let database: String?
    let snapshots: Bool
    let debug: Bool

    public init(arguments: inout Arguments) throws(UsageError) {
        collectors = try CollectorOptions(arguments: &arguments)
        let external = !collectors.addresses.isEmpty
        token = try arguments.value(Self.token)
        configs = try arguments.values(Self.config)
        let formatGiven = arguments.contains(Self.format)
        let formatText = try arguments.value(defaulted: Self.format)
        guard Self.reportFormats.contains(formatText) else {
            throw UsageError("--format takes \(Self.reportFormats.joined(separator: ", ")), not '\(formatText)'")
        }
        guard !(formatGiven && external) else {
            throw UsageError(
                "--format shapes the embedded collector's report; with --to, run 'autotrack-collector report' on that collector's database")
        }
        format = formatText
        timeout = try arguments.double(defaulted: AgentOptions.timeout, in: 0.1...3600)
        treeDir = try arguments.value(Self.treeDir)
        configRefresh = try arguments.double(defaulted: Self.configRefresh, in: 0.01...86_400)
        database = try arguments.value(Self.db)
        snapshots = arguments.isSet(Self.snapshots)
        debug = arguments.isSet(AgentOptions.debug)
        if database != nil, external {
            throw UsageError("--db keeps the embedded collector's database; with --to, the database is that collector's")
        }
        if database?.isEmpty == true { throw UsageError("--db needs a file path") }
        try arguments.finish()
    }

    public func run(io: any OutputStreams) -> ExitCode {
        guard let plan = loadDemoPlan(io: io) else { return .failure }
        let scratch: ScratchFolder
        do {
            scratch = try ScratchFolder("demo")
        } catch {
            io.printError("autotrack-agent demo: cannot create a temporary folder ; check that $TMPDIR names a writable folder")
            return .failure
        }
        var keepScratch = false
        defer { if !keepScratch { scratch.remove() } }

        // The collector: the given one, or its own (`serve` as a child, on a loopback port).
        var embedded: DemoCollector?
        let db = database ?? scratch.path + "/demo.sqlite"
        guard var connections = collectors.connections(command: "autotrack-agent demo", io: io) else { return .failure }
        if collectors.addresses.isEmpty {
            // Its own collector takes the pictures --snapshots asks for (serve's --accept-snapshots).
            do {
                let collector = try DemoCollector(database: db, acceptsSnapshots: snapshots, scratch: scratch.path)
                connections.addresses = [collector.address]
                embedded = collector
            } catch {
                io.printError("autotrack-agent demo: its collector did not start: \(error)")
                return .failure
            }
        }
        defer { embedded?.stop() }

        // The scripted session runs on a manual clock from now: waits take no real time, dwell
        // times are exact; the tracker's time rules read the same clock.
        let clock = ManualInteractionClock(wallMilliseconds: Int64(Date().timeIntervalSince1970 * 1000))
        let spool = scratch.path + "/spool"
        let link = CollectorLink(
            addresses: connections.addresses,
            hello: Hello(
                appKey: DemoConfiguration.appKey, appVersion: DemoConfiguration.appVersion, agent: "autotrack-agent demo",
                token: embedded == nil ? token : nil),
            security: connections.security)
        guard let pipeline = startPipeline(plan: plan, link: link, spool: spool, clock: clock, dataDirectory: scratch.path + "/data", io: io)
        else { return .failure }
        defer { pipeline.close() }
        // Rules from the collector before the session, so its events do not depend on a race.
        pipeline.refresher?.waitForFirstAttempt(timeout: .seconds(5))
        guard runSession(pipeline: pipeline, link: link, clock: clock, io: io) else { return .failure }

        let delivered = pipeline.drain(deadline: .now + duration(seconds: timeout))
        let summary = "demo: " + pipeline.summary
        if !delivered {
            keepScratch = embedded == nil
            io.print(summary)
            io.printError("autotrack-agent demo: " + pipeline.failure(timeout: duration(seconds: timeout), spool: spool))
            if embedded == nil {
                io.printError(
                    "autotrack-agent demo: resend them with: autotrack-agent send --spool \(spool) \(collectors.commandLine)"
                        + " --app-key \(DemoConfiguration.appKey) --app-version \(DemoConfiguration.appVersion) /dev/null")
            }
            return .failure
        }
        guard let collector = embedded else {
            io.print(summary)
            return .success
        }
        guard printReport(plan: plan, collector: collector, database: db, scratch: scratch.path, io: io) else { return .failure }
        io.printError(summary)
        return .success
    }

    /// The built-in example plan, or the `--config` files' (nil, said on standard error, when they do not load).
    private func loadDemoPlan(io: any OutputStreams) -> TrackingPlan? {
        guard configs.isEmpty else { return loadPlan(files: configs, io: io, command: "autotrack-agent demo") }
        do {
            return try DemoConfiguration.plan()
        } catch {
            io.printError("autotrack-agent demo: the built-in example configuration does not load (a bug): \(error)")
            return nil
        }
    }

    /// The demo app's tracking pipeline to `link`, on `clock`, asking the collector for rules.
    private func startPipeline(
        plan: TrackingPlan, link: CollectorLink, spool: String, clock: ManualInteractionClock, dataDirectory: String, io: any OutputStreams
    ) -> TrackingPipeline? {
        do {
            let app = try TrackedApp(key: DemoConfiguration.appKey, version: DemoConfiguration.appVersion)
            var settings = TrackerSettings()
            settings.clock = clock
            settings.configRefresh = duration(seconds: configRefresh)
            settings.dataDirectory = dataDirectory
            settings.superProperties = SuperProperties.standard(app: app, toolkit: "uikit-model")
            if debug { settings.debugOutput = { line in io.printError(line) } }
            return try TrackingPipeline(plan: plan, app: app, link: link, spool: spool, session: nil, settings: settings, remoteConfig: true)
        } catch {
            io.printError("autotrack-agent demo: cannot start shipping events: \(error)")
            return nil
        }
    }

    /// Runs the scripted session into the pipeline's tracker, writing page trees (`--tree-dir`)
    /// and sending snapshots (circle mode, `--snapshots`) on the way; false, said on standard error, on failure.
    private func runSession(pipeline: TrackingPipeline, link: CollectorLink, clock: ManualInteractionClock, io: any OutputStreams) -> Bool {
        var treeWriter: PageTreeWriter?
        if let treeDir {
            do {
                try FileManager.default.createDirectory(atPath: treeDir, withIntermediateDirectories: true)
            } catch {
                io.printError("autotrack-agent demo: cannot create --tree-dir \(treeDir); check its parent folder exists and is writable")
                return false
            }
            treeWriter = PageTreeWriter(directory: treeDir, next: pipeline.tracker)
        }
        // Snapshots on a connection of their own, in circle mode or with --snapshots.
        let tracker = pipeline.tracker
        let sender = link.snapshotSender(device: { tracker.identity.namedDevice })
        defer { sender.close() }
        let forced = snapshots
        let refresher = pipeline.refresher
        let snapshotter = PageSnapshotter(
            next: treeWriter ?? pipeline.tracker, isOn: { forced || refresher?.circleMode == true },
            ignoring: { tracker.plan.ignores($0) }, send: { sender.send($0) })
        let run = DemoRun(observer: snapshotter, clock: clock)
        do {
            try run.run(.standard)
        } catch {
            io.printError("autotrack-agent demo: \(error)")
            return false
        }
        run.hooks.stop()
        if snapshotter.taken > 0 {
            sender.flush(timeout: duration(seconds: timeout))
            let s = sender.statistics
            io.printError(
                "autotrack-agent demo: \(s.sent) of \(snapshotter.taken) page snapshots acknowledged"
                    + (s.lastError.map { " (last error: \($0))" } ?? ""))
        }
        if let treeWriter {
            if let failure = treeWriter.failure {
                io.printError("autotrack-agent demo: \(failure); check that --tree-dir is writable")
                return false
            }
            io.printError("autotrack-agent demo: wrote \(treeWriter.written.count) page trees to \(treeDir ?? "")")
        }
        return true
    }

    /// The formats of `autotrack-collector report --format` (AgentCommandsTests checks them against it).
    static let reportFormats = ["table", "json", "csv", "html"]

    /// Publishes the plan's rules to the demo's collector (so its report shows their coverage),
    /// stops it, and prints `autotrack-collector report` of its database; false, said on standard
    /// error, when that failed.
    private func printReport(
        plan: TrackingPlan, collector: DemoCollector, database db: String, scratch: String, io: any OutputStreams
    ) -> Bool {
        do {
            try collector.publish(plan.rules.map(\.json))
        } catch {
            io.printError("autotrack-agent demo: publishing the plan's rules to its collector failed: \(error)")
            return false
        }
        guard collector.stop() == 0 else {
            io.printError("autotrack-agent demo: its collector did not stop cleanly:\n\(collector.logTail)")
            return false
        }
        switch collector.report(database: db, format: format, scratch: scratch) {
        case .failure(let error):
            io.printError("autotrack-agent demo: \(error)")
            return false
        case .success(var text):
            // A temporary database is gone when demo exits: name no path that will not exist.
            if database == nil {
                text = text.replacingOccurrences(of: db, with: "a temporary database, removed on exit (give --db FILE to keep it)")
            }
            io.out(text.hasSuffix("\n") ? text : text + "\n")
            return true
        }
    }
}
