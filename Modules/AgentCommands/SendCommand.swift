import ATLPClient
import ATLPWire
public import CommandSupport
import EventModel
import Foundation
import AgentPipeline
import SystemCalls

/// `autotrack-agent send`: ships an NDJSON file of events to a collector, reliably, exactly once.
public struct SendCommand: Command {
    public static let name = "send"
    public static let abstract = "ships NDJSON events to a collector through a disk spool (exactly once)"
    public static let discussion = """
        Reads events, one JSON object per line (docs/wire.md §3), from FILE or standard input ('-',
        the default), and ships them to the collector over ATLP/1. Each valid event is written to
        a disk spool first; it leaves the spool only when the collector's ACK covers it (the ACK
        comes after the commit). A dropped connection or a restarted collector is reconnected and
        the unacknowledged batches are resent; the collector drops repeated ids, so every event is
        stored exactly once. If send itself is killed, the next run on the same spool resends
        what was left (and says so). Re-running with the same file is safe: repeats are counted
        as duplicates, not stored twice.

        A line that is not a valid event is reported on standard error with its line number
        ("line 12: ts must be an integer, found a string") and skipped; the rest go on. Blank
        lines are ignored. On a terminal, progress is redrawn in place on standard error.

        Standard output gets one summary line:
          sent 1000 events: 1000 acknowledged (998 stored, 2 duplicates, 0 rejected), 1 invalid line skipped
        followed, when they apply, by ", N not acknowledged" and
        ", N resent from an earlier run". Exit status: 0 when every event was acknowledged;
        1 when some were not (collector unreachable past --timeout, or it refused us, e.g. a
        wrong token: the reason is on standard error), when the spool holds a batch file it
        cannot send (named on standard error, and kept), or when the spool cannot take an event
        (a full disk, the file-size limit of 'ulimit -f'); 2 for a usage error. Invalid lines do
        not change the exit status, except with --strict: then an input with no valid event
        (empty, or every line invalid) exits 1; without it, that is noted on standard error.
        """
    static let appKey = Option.single(
        "app-key", "KEY", help: "the app the events belong to (sent in HELLO)", required: true)
    static let appVersion = Option.single("app-version", "VERSION", help: "the app's version (sent in HELLO)", required: true)
    static let spool = Option.single(
        "spool", "DIR",
        help: "the spool folder (default: a folder per app key under $XDG_CACHE_HOME or ~/.cache, else the temporary folder: "
            + "autotrack/spool/KEY). One send per spool at a time.")
    static let timeout = Option.single(
        "timeout", "SECONDS", help: "give up when nothing is acknowledged for this long", default: "60")
    static let batchEvents = Option.single("batch-events", "N", help: "events per batch", default: "500")
    static let strict = Option.flag("strict", help: "exit 1 when the input holds no valid event (empty or all invalid)")
    public static let optionGroups = [
        OptionGroup([appKey, appVersion, spool, AgentOptions.ingestToken, timeout, batchEvents, strict]),
        CollectorOptions.group(requiringAddress: true),
    ]
    public static let positionals = "[FILE | -]"
    public static let examples = """
        autotrack-collector serve --listen 127.0.0.1:7070 --db shop.sqlite &
        autotrack-agent send --to 127.0.0.1:7070 --app-key shop --app-version 1.2.0 Examples/events.ndjson
        """

    /// The collectors, first one first, and TLS.
    let collectors: CollectorOptions
    let appKey: String
    let appVersion: String
    let spool: String
    let token: String?
    let timeout: Double
    let batchEvents: Int
    let input: String
    let strict: Bool

    public init(arguments: inout Arguments) throws(UsageError) {
        collectors = try CollectorOptions(arguments: &arguments)
        try collectors.requireAddress()
        appKey = try arguments.required(Self.appKey)
        appVersion = try arguments.required(Self.appVersion)
        guard !appKey.isEmpty else { throw UsageError("--app-key is empty; give the key the collector knows the app by") }
        guard !appVersion.isEmpty else { throw UsageError("--app-version is empty; give the app's version, e.g. 1.2.0") }
        token = try arguments.value(AgentOptions.ingestToken)
        timeout = try arguments.double(defaulted: Self.timeout, in: 0.1...86_400)
        batchEvents = try arguments.int(defaulted: Self.batchEvents, in: 1...100_000)
        spool = try arguments.value(Self.spool) ?? SendCommand.defaultSpool(appKey: appKey)
        strict = arguments.isSet(Self.strict)
        let rest = try arguments.positionals()
        guard rest.count <= 1 else { throw UsageError("give one input FILE (or - for standard input), not \(rest.count)") }
        input = rest.first ?? "-"
    }

    /// `$XDG_CACHE_HOME/autotrack/spool/KEY`, else `~/.cache/…`, else the temporary folder; the key made file-safe.
    static func defaultSpool(appKey: String) -> String {
        let env = ProcessInfo.processInfo.environment
        let safe = String(appKey.map { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" || $0 == "." ? $0 : "_" })
        let base: String
        if let xdg = env["XDG_CACHE_HOME"], !xdg.isEmpty {
            base = xdg
        } else if let home = env["HOME"], !home.isEmpty {
            base = home + "/.cache"
        } else {
            base = NSTemporaryDirectory()
        }
        return URL(fileURLWithPath: base).appendingPathComponent("autotrack/spool/\(safe)").path
    }

    public func run(io: any OutputStreams) -> ExitCode {
        guard let handle = openInput(io: io) else { return .failure }
        defer { if input != "-" { try? handle.close() } }
        do throws(PosixError) {
            // With its parents, each new folder 0700: the events are the user's.
            try Posix.makeDirectories(spool, mode: 0o700)
        } catch {
            io.printError("autotrack-agent send: cannot create the spool folder '\(spool)' (\(error)); check its parent folder is writable, or give another with --spool")
            return .failure
        }
        let progress = SendProgress(io: io, address: collectors.addressList)
        guard let shipper = openShipper(progress: progress, io: io) else { return .failure }
        let recovered = shipper.statistics.pendingEvents
        progress.setRecovered(recovered)
        let unusable = shipper.unusableSpoolFiles
        for problem in unusable { progress.problem("autotrack-agent send: \(problem)") }

        guard let read = enqueueInput(handle, into: shipper, progress: progress) else {
            io.printError("autotrack-agent send: reading '\(input)' failed; check the file is readable (not a folder)")
            _ = shipper.close(timeout: .zero)
            return .failure
        }
        progress.readingFinished()
        // Wait for the ACKs while they keep coming; give up after `timeout` without one.
        let complete = shipper.flush(stall: duration(seconds: timeout), tick: (.milliseconds(250), { progress.update($0) }))
        _ = shipper.close(timeout: .zero)
        let stats = shipper.statistics
        progress.finish()

        let summary = SendSummary(
            read: read.valid, recovered: recovered, invalid: read.invalid, refused: read.refused, statistics: stats)
        io.print(summary.line)
        explainShortfall(stats, complete: complete, read: read, io: io)
        if read.valid == 0 && read.refused == 0 {
            let what = read.invalid == 0 ? "held no events" : "held no valid event (\(read.invalid) invalid \(read.invalid == 1 ? "line" : "lines"))"
            if strict {
                io.printError("autotrack-agent send: '\(input)' \(what); --strict needs at least one valid event")
                return .failure
            }
            io.printError("autotrack-agent send: note: '\(input)' \(what)\(recovered > 0 ? "; only the spool's events were sent" : "")")
        }
        return complete && read.refused == 0 && stats.undeliverable == 0 && !stats.halted && unusable.isEmpty ? .success : .failure
    }

    /// The input: standard input for `-`, else the file (nil, said on standard error, when it cannot be opened).
    private func openInput(io: any OutputStreams) -> FileHandle? {
        if input == "-" { return FileHandle.standardInput }
        guard let handle = FileHandle(forReadingAtPath: input) else {
            io.printError("autotrack-agent send: cannot open '\(input)' for reading; check the path (or give - for standard input)")
            return nil
        }
        return handle
    }

    /// The shipper over the spool, to the `--to` collectors (nil, said on standard error, when it cannot start).
    private func openShipper(progress: SendProgress, io: any OutputStreams) -> EventShipper? {
        guard let connections = collectors.connections(command: "autotrack-agent send", io: io) else { return nil }
        let link = CollectorLink(
            addresses: connections.addresses,
            hello: Hello(appKey: appKey, appVersion: appVersion, agent: "autotrack-agent send", token: token),
            security: connections.security)
        let configuration = link.shipping(
            spool: spool, batchMaxEvents: batchEvents, batchInterval: .milliseconds(100),
            backoff: Backoff(initial: .milliseconds(50), maximum: .seconds(2)))
        do {
            return try EventShipper(configuration: configuration) { stats in progress.update(stats) }
        } catch {
            io.printError("autotrack-agent send: cannot open the spool '\(spool)': \(error); give another with --spool")
            return nil
        }
    }

    /// What reading the input came to: events taken, lines skipped, events the spool refused.
    struct ReadCounts {
        var valid = 0
        var invalid = 0
        var refused = 0
    }

    /// Reads the input and spools each valid event (a full spool waits for the collector to
    /// drain it); stops early when delivery halted. Nil when reading failed.
    private func enqueueInput(_ handle: FileHandle, into shipper: EventShipper, progress: SendProgress) -> ReadCounts? {
        var reader = EventLineReader(handle: handle)
        var counts = ReadCounts()
        do {
            while let line = try reader.next() {
                switch line {
                case .invalid:
                    counts.invalid += 1
                    progress.problem(line.problem!)
                case .event(let number, let event):
                    switch enqueue(event, into: shipper) {
                    case .none:
                        counts.valid += 1
                        progress.setRead(counts.valid)
                    case .some(let message):
                        counts.refused += 1
                        if counts.refused <= Self.refusalsNamed { progress.problem("line \(number): not sent: \(message)") }
                    }
                }
                if shipper.statistics.halted { break }
            }
        } catch {
            return nil
        }
        return counts
    }

    /// Why not every event was acknowledged, on standard error: refused, timed out, set aside, not spooled.
    private func explainShortfall(_ stats: ShipperStatistics, complete: Bool, read: ReadCounts, io: any OutputStreams) {
        if stats.halted {
            io.printError("autotrack-agent send: the collector at \(stats.collector ?? collectors.addressList) refused delivery: \(stats.lastError ?? "unknown reason")")
            if (stats.lastError ?? "").contains("unauthorized") {
                io.printError("autotrack-agent send: check --token (or $AUTOTRACK_INGEST_TOKEN) against the collector's --ingest-token")
            }
        } else if !complete {
            io.printError(
                "autotrack-agent send: \(stats.pendingEvents) events not acknowledged after \(SendSummary.seconds(timeout)) s without progress"
                    + (stats.lastError.map { " (last error: \($0))" } ?? "")
                    + "; they stay in the spool \(spool) and the next send with it delivers them")
        }
        if stats.undeliverable > 0 {
            io.printError(
                "autotrack-agent send: \(stats.undeliverable) \(stats.undeliverable == 1 ? "event was" : "events were") set aside, not delivered"
                    + (stats.lastSetAside.map { " (last: \($0))" } ?? "")
                    + "; they stay in \(spool)/undeliverable with the reason beside each file")
        }
        if read.refused > Self.refusalsNamed {
            io.printError(
                "autotrack-agent send: \(read.refused) events were not taken into the spool \(spool) (the first "
                    + "\(Self.refusalsNamed) are named above with the reason); send them again once it is fixed")
        }
    }

    /// The events the spool refuses (a full disk, the file-size limit) are named one by one up to
    /// this many, then counted: one reason, not a line per event of a large input.
    static let refusalsNamed = 10

    /// Enqueues one event, waiting (bounded by the timeout) while the spool is full; the reason on failure.
    private func enqueue(_ event: TrackEvent, into shipper: EventShipper) -> String? {
        let deadline = ContinuousClock.now + .milliseconds(Int64(timeout * 1000))
        while true {
            do {
                try shipper.enqueue(event)
                return nil
            } catch {
                guard error.code == .full, !shipper.statistics.halted, ContinuousClock.now < deadline else {
                    return error.description
                }
                _ = shipper.flush(timeout: .milliseconds(100))
            }
        }
    }
}

/// The summary line `send` prints on standard output; its shape is stable for scripts.
struct SendSummary {
    var read: Int
    var recovered: Int
    var invalid: Int
    var refused: Int
    var statistics: ShipperStatistics

    var line: String {
        let s = statistics
        let total = read + recovered
        var text = "sent \(total) \(total == 1 ? "event" : "events"): \(s.acknowledgedEvents) acknowledged"
        text += " (\(s.stored) stored, \(s.duplicates) \(s.duplicates == 1 ? "duplicate" : "duplicates"), \(s.rejected) rejected)"
        text += ", \(invalid) invalid \(invalid == 1 ? "line" : "lines") skipped"
        let missing = s.pendingEvents + s.undeliverable + refused
        if missing > 0 { text += ", \(missing) not acknowledged" }
        if recovered > 0 { text += ", \(recovered) resent from an earlier run" }
        return text
    }

    static func seconds(_ v: Double) -> String {
        v == v.rounded() ? String(Int(v)) : String(v)
    }
}
