// ingest-bench: events per second the collector stores, durably, from agents over real TCP, beside
// rsyslog writing the very same events to a file with sync="on" (the baseline: what a plain
// durable log writer does with this disk), in one run. Release build; `--help` lists every option:
//
//   swift run -c release ingest-bench [--events N] [--rounds N] [--connections N] [--batch N] [--window N]
//                                     [--sustain SECONDS [--sustain-rate N]] [--kill-loop N --collector PATH [--postgres]]
//
// 1. The load: TestSupport's ShopTraffic.ingestMix (seeded): 7 days, 2,000 devices, 400 signed-in
//    users, sessions, page enter/leave with dwell, clicks over 60 paths. Its batches are dealt
//    round-robin to the connections.
// 2. The collector: an EmbeddedCollector on 127.0.0.1 (ephemeral port), a fresh SQLite database
//    in a temporary directory (synchronous=FULL, the default). One ATLP connection per sender
//    thread sends EVENTS batches (encoded before the clock starts, as rsyslog's lines are below)
//    as the agent's shipper does: up to --window of them unanswered (default: the agent's
//    window), the ACKs (each sent once its batch is durable in the ingest journal) read in order
//    and checked against their batch and its event count. Rate = events / (first send → last
//    ACK); one second later an outside `sqlite3` counts `events`.
// 3. The baseline: rsyslogd started by the bench (`rsyslogd -n -f CONF -i PIDFILE`, generated
//    config in a temporary directory: imtcp on 127.0.0.1, omfile with sync="on" and a 1 MiB
//    buffer, so it syncs once per batch it dequeues, as the collector syncs once per group). The
//    same events as RFC 5424 lines (the event's JSON as the message) over TCP with octet-counting
//    framing (RFC 6587), one connection per sender. Rate = events / (first send → the file holds
//    every line), the file's new bytes read every 5 ms and their lines counted with memchr (the
//    counting's CPU is printed), bounded in time. Skipped, and said so, when rsyslogd is not
//    installed (Tools/setup.sh installs it).
// 4. `--old-collector PATH` (else $AUTOTRACK_OLD_COLLECTOR): an autotrack-collector binary of
//    another commit, started as `PATH serve --listen 127.0.0.1:0 --db FILE` in a temporary
//    directory and fed the same batches the same way; its rate from its ACKs
//    (docs/performance.md, "Comparing two builds").
// 5. `--without-rollups`: the collector again with its rollup workers paused, for what storing the
//    events alone costs.
// 6. `--sustain SECONDS` (`--sustain-rate N`, else half the burst's rate): a fresh collector fed
//    at that rate for that long (the mix re-sent with new ids), sampling every 100 ms how far
//    `events` trails the journal and the derived data trail `events`, the process's `RssAnon`
//    and each thread kind's CPU; then rsyslog fed the same lines at the same rate.
// 7. `--kill-loop N --collector PATH`: a release `serve` SIGKILLed N times at random moments while
//    senders resend what has no ACK; every acknowledged event must be in `events` once, and in
//    the derived data once (KillLoop.swift); `--postgres`: the same on a PostgreSQL server the
//    bench starts.
import ATLPClient
import ATLPWire
import BenchmarkSupport
import Collector
import EventModel
import EventStore
import Foundation
import SQLiteStore
import Synchronization
import SystemCalls
import TestSupport

/// The batches the agent's shipper keeps in flight on one connection.
let agentWindow = EventShipperConfiguration.defaultWindow

let usage = """
    usage: ingest-bench [--events N] [--connections N] [--batch N] [--window N] [--seed N] [--quick]
                        [--old-collector PATH] [--sustain SECONDS] [--without-rollups] [--rounds N]
                        [--kill-loop N --collector PATH [--postgres]]
    Durable events/s into the collector (EmbeddedCollector, SQLite, ACK once durable) over real
    TCP, beside rsyslog (imtcp -> omfile sync="on") fed the same events, in one run.
      --events N        events in the load (default 200000; --quick: 20000)
      --connections N   sender connections (default 4)
      --batch N         events per EVENTS batch (default 500)
      --window N        EVENTS batches in flight per connection, their ACKs read in order (default
                        \(agentWindow), the agent's shipper's window; 1: each batch waits for the last ACK)
      --seed N          seed of the generated mix (default 25)
      --old-collector PATH  also run this autotrack-collector binary (an earlier build, e.g. a49f2e4)
                        as a second baseline (default $AUTOTRACK_OLD_COLLECTOR; none: skipped)
      --sustain SECONDS then load a fresh collector at half its rate this long: rollup lag, memory
      --sustain-rate N  the sustained load at N events/s instead, and no burst before it (before/after
                        runs of two builds at the same rate; 60 s unless --sustain), then rsyslog
                        fed at the same rate as long: the rate it reached and its largest lag
      --sustain-replay  each round of the sustained load sends the same sessions at the same times
                        (new event ids only: every enter and click late); default: new sessions a
                        week later each round, as traffic goes on
      --without-rollups also the collector with its rollup worker paused: what the rows alone cost
      --rounds N        the burst N times (default 1), the collector and rsyslog alternately first,
                        each round's ratio printed, then their median, least and greatest: on a
                        shared machine one round's ratio moves by a third either way
      --kill-loop N     instead: `serve` (the binary --collector PATH) killed with SIGKILL N times at
                        random moments while the load is sent (unacknowledged batches resent); then
                        every acknowledged event must be in events and in the rollups exactly once
      --collector PATH  the autotrack-collector binary for --kill-loop (swift build -c release
                        --product autotrack-collector: .build/release/autotrack-collector)
      --postgres        the kill loop on a PostgreSQL server the bench starts (initdb in a temporary
                        directory, a Unix socket) instead of SQLite: events read back with psql, the
                        rollups (agg_events) once agg_state's watermark passes the last event
    example: swift run -c release ingest-bench --events 20000 --window 1
    example: swift run -c release ingest-bench --quick --rounds 3
    example: swift run -c release ingest-bench --sustain 10 --sustain-rate 20000
    example: swift run -c release ingest-bench --events 100000 --kill-loop 5 --collector .build/release/autotrack-collector
    example: swift run -c release ingest-bench --events 100000 --kill-loop 5 --postgres --collector .build/release/autotrack-collector
    """

struct Settings {
    var events = 200_000
    var connections = 4
    var batch = 500
    var window = agentWindow
    var seed: UInt64 = 25
    var oldCollector = ProcessInfo.processInfo.environment["AUTOTRACK_OLD_COLLECTOR"]
    var sustain = 0
    /// The sustained load's rate; nil: half the burst's.
    var sustainRate: Double?
    /// Each round of the sustained load the same sessions at the same times (new event ids only).
    var sustainReplay = false
    var withoutRollups = false
    /// How many times the burst runs, alternately before and after rsyslog.
    var rounds = 1
    /// SIGKILLs of `serve` for `--kill-loop` (0: not run), and its binary.
    var killLoop = 0
    var collector: String?
    /// `--kill-loop` on a PostgreSQL server the bench starts instead of SQLite.
    var postgres = false

    static func parse(_ args: [String]) -> Settings {
        var s = Settings()
        let arguments = ToolArguments("ingest-bench", usage: usage, arguments: args)
        arguments.read { option in
            switch option {
            case "--quick": s.events = 20_000
            case "--events": s.events = arguments.count(after: option)
            case "--connections": s.connections = arguments.count(after: option)
            case "--batch": s.batch = arguments.count(after: option)
            case "--window": s.window = arguments.count(after: option)
            case "--seed": s.seed = UInt64(arguments.count(after: option))
            case "--sustain": s.sustain = arguments.count(after: option)
            case "--sustain-rate": s.sustainRate = Double(arguments.count(after: option))
            case "--sustain-replay": s.sustainReplay = true
            case "--without-rollups": s.withoutRollups = true
            case "--rounds": s.rounds = arguments.count(after: option)
            case "--kill-loop": s.killLoop = arguments.count(after: option)
            case "--collector": s.collector = arguments.value(after: option, "a path")
            case "--postgres": s.postgres = true
            case "--old-collector": s.oldCollector = arguments.value(after: option, "a path")
            default: return false
            }
            return true
        }
        return s
    }
}

func fail(_ message: String) -> Never {
    Benchmark.complain("ingest-bench: \(message)")
    exit(1)
}

func temporaryDirectory(_ label: String) -> URL {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("ingest-bench-\(label)-\(UUID().uuidString.prefix(8))")
    do {
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    } catch {
        fail("cannot create \(dir.path): \(error); set TMPDIR to a writable directory")
    }
    return dir
}

/// Runs `body(i)` on one thread per sender, all at once; returns when all are done.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for i in 0..<count {
        group.enter()
        Thread {
            body(i)
            group.leave()
        }.start()
    }
    group.wait()
}

// MARK: the collector

/// Every connection's batches as `EVENTS` requests (batch ids "r0-c<connection>-b<n>"),
/// encoded before any clock starts, as rsyslog's lines are (`syslogFrames`): the senders' cost
/// in the timed run is sending and reading the `ACK`s, not encoding JSON beside the collector.
func eventsRequests(_ perConnection: [[[JSONValue]]]) -> [[EventsRequest]] {
    perConnection.enumerated().map { c, batches in
        batches.enumerated().map { n, events in EventsRequest(batch: .string("r0-c\(c)-b\(n)"), events: events) }
    }
}

/// Sends every connection's batches over its own ATLP connection to `address`, keeping up to
/// `window` of them unanswered (as the agent's shipper does) and reading the ACKs in order, each
/// checked to be for its batch and to count every event. The requests are `prepared` (a burst:
/// encoded before the clock), or else encoded as they go, with batch ids of `round`: a paced
/// load (`due`) has the time, and its memory figures then hold no copy of the load. `due(n)` (if
/// given) says when the connection's batch n may go (nil: it and the rest stay unsent). Returns
/// the elapsed time and the events the ACKs say were stored.
func sendOverATLP(
    _ perConnection: [[[JSONValue]]], prepared requests: [[EventsRequest]]? = nil, round: Int = 0, to address: SocketAddress,
    window: Int, due: (@Sendable (_ connection: Int, _ batch: Int) -> ContinuousClock.Instant?)? = nil
) -> (elapsed: Duration, stored: Int) {
    let failures = Mutex<[String]>([])
    let stored = Atomic<Int>(0)
    let start = ContinuousClock.now
    onThreads(perConnection.count) { c in
        do {
            let connection = try ATLPConnection(to: address, hello: Hello(appKey: "bench", appVersion: "1.0.0"), timeout: .seconds(120))
            defer { connection.close() }
            let batches = perConnection[c]
            try connection.sendEvents(
                window: window,
                next: { n in
                    guard n < batches.count else { return nil }
                    if let due {
                        guard let at = due(c, n) else { return nil }
                        if at > ContinuousClock.now { Thread.sleep(forTimeInterval: Benchmark.seconds(at - ContinuousClock.now)) }
                    }
                    return requests?[c][n] ?? EventsRequest(batch: .string("r\(round)-c\(c)-b\(n)"), events: batches[n])
                },
                acknowledged: { n, ack in
                    if ack.stored + ack.duplicates != batches[n].count {
                        failures.withLock { $0.append("connection \(c) batch \(n): \(ack)") }
                    }
                    stored.wrappingAdd(ack.stored, ordering: .relaxed)
                })
        } catch {
            failures.withLock { $0.append("connection \(c): \(error)") }
        }
    }
    let elapsed = ContinuousClock.now - start
    if let f = failures.withLock({ $0.first }) { fail("a collector client failed: \(f)") }
    return (elapsed, stored.load(ordering: .relaxed))
}

/// CPU seconds (user + system) each thread of this process has used so far, summed by what the
/// thread is: `atlp-worker-N` → "atlp" (decode, dedup, the ingest log), `ingest-store` and
/// `ingest-filter` → "store" (the ingest log's batches into `events`), each rollup worker by its
/// name (`rollups-kinds`, `rollups-pages`), the rest ("bench": the senders and the main thread). Read from /proc/self/task/*/stat (fields 14 and 15, in clock ticks).
func cpuByThreadKind() -> [String: Double] {
    var out: [String: Double] = [:]
    let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
    for task in (try? Posix.listDirectory("/proc/self/task")) ?? [] {
        guard let stat = try? Posix.readFile("/proc/self/task/\(task)/stat"),
            let open = stat.firstIndex(of: UInt8(ascii: "(")), let close = stat.lastIndex(of: UInt8(ascii: ")"))
        else { continue }
        let name = String(decoding: stat[(open + 1)..<close], as: UTF8.self)
        let fields = stat[(close + 2)...].split(separator: UInt8(ascii: " "))
        // After the name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        guard fields.count > 12, let user = Double(String(decoding: fields[11], as: UTF8.self)),
            let system = Double(String(decoding: fields[12], as: UTF8.self))
        else { continue }
        let kind =
            name.hasPrefix("atlp-worker") ? "atlp" : name.hasPrefix("rollups-") ? name : name.hasPrefix("ingest-") ? "store" : "bench"
        out[kind, default: 0] += (user + system) / ticks
    }
    return out
}

/// The CPU seconds of `kind` in a `cpuByThreadKind` reading; "rollups": both rollup workers.
func cpu(_ kind: String, _ reading: [String: Double]) -> Double {
    kind == "rollups" ? reading.filter { $0.key.hasPrefix("rollups-") }.values.reduce(0, +) : reading[kind, default: 0]
}

/// CPU µs per event of each thread kind between two `cpuByThreadKind` readings, as one line.
func cpuPerEvent(from before: [String: Double], to after: [String: Double], events: Int) -> String {
    ["atlp", "store", "rollups", "bench"].map { kind in
        "\(kind) \(Benchmark.fixed((cpu(kind, after) - cpu(kind, before)) * 1e6 / Double(events), 1))"
    }.joined(separator: ", ")
}

func collectorRate(_ perConnection: [[[JSONValue]]], total: Int, window: Int, rollups: Bool = true) -> (rate: Double, stored: Int) {
    let dir = temporaryDirectory("collector")
    defer { try? FileManager.default.removeItem(at: dir) }
    let db = dir.appendingPathComponent("events.sqlite").path
    let collector = EmbeddedCollector(dbPath: db, options: EmbeddedCollector.Options())
    let address: SocketAddress
    do {
        address = try collector.start()
    } catch {
        fail("the collector did not start: \(error)")
    }
    if !rollups { (collector.store as? SQLiteEventStore)?.pauseRollupWorker(true) }
    let requests = eventsRequests(perConnection)
    let before = cpuByThreadKind()
    let sent = sendOverATLP(perConnection, prepared: requests, to: address, window: window)
    let lastACK = ContinuousClock.now
    let after = cpuByThreadKind()
    // What a person with `sqlite3` counts in `events` one second after the last ACK, the
    // collector still running.
    Posix.sleep(lastACK + .seconds(1) - ContinuousClock.now)
    let outside = outsideCount(db)
    collector.stop()
    // Threads that ended during the run are not counted: the collector's live until `stop`.
    print("  CPU µs per event until the last ACK (threads of this process): \(cpuPerEvent(from: before, to: after, events: total))")
    print("  `sqlite3 \(db.split(separator: "/").last!) 'SELECT count(*) FROM events'` 1 s after the last ACK: \(outside) of \(total) acknowledged")
    let stored = (try? SQLiteEventStore(path: db, options: StoreOptions(access: .existing)).totals(.all).events) ?? -1
    return (Double(total) / Benchmark.seconds(sent.elapsed), stored)
}

/// `SELECT count(*) FROM events` by the `sqlite3` program, as an outside reader (-1: it failed).
func outsideCount(_ db: String) -> Int {
    sqlite3(db, "SELECT count(*) FROM events").first.flatMap { Int($0) } ?? -1
}

// MARK: the old build

/// The rate of an older autotrack-collector binary, started as a process of its own.
func oldCollectorRate(_ binary: String, _ perConnection: [[[JSONValue]]], total: Int, window: Int) -> (rate: Double, stored: Int) {
    let dir = temporaryDirectory("old-collector")
    defer { try? FileManager.default.removeItem(at: dir) }
    let output = Pipe()
    let process: ChildProgram
    do {
        process = try ChildProgram(
            binary, arguments: ["serve", "--listen", "127.0.0.1:0", "--db", dir.appendingPathComponent("events.sqlite").path],
            standardOutput: .descriptor(output.fileHandleForWriting.fileDescriptor))
        try output.fileHandleForWriting.close()
    } catch {
        fail("cannot start \(binary): \(error); give --old-collector the path of a built autotrack-collector")
    }
    defer {
        process.terminate()
        process.waitForExit()
    }
    // Its first line: "listening on HOST:PORT".
    var line: [UInt8] = []
    while let byte = try? output.fileHandleForReading.read(upToCount: 1)?.first, byte != 0x0A { line.append(byte) }
    let text = String(decoding: line, as: UTF8.self)
    guard text.hasPrefix("listening on "), let port = text.split(separator: ":").last.flatMap({ UInt16($0) }) else {
        fail("\(binary) serve did not say where it listens (first line: '\(text)')")
    }
    let sent = sendOverATLP(perConnection, prepared: eventsRequests(perConnection), to: SocketAddress(host: "127.0.0.1", port: port), window: window)
    return (Double(total) / Benchmark.seconds(sent.elapsed), sent.stored)
}

// MARK: sustained load

/// The process's resident memory in MiB: `field` of /proc/self/status (`VmRSS` all of it,
/// `RssAnon` without the database file's pages SQLite maps), or -1.
func residentMiB(_ field: String) -> Double {
    guard let bytes = try? Posix.readFile("/proc/self/status") else { return -1 }
    let line = String(decoding: bytes, as: UTF8.self).split(separator: "\n").first { $0.hasPrefix(field + ":") }
    let kib = line.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Double($0) }
    return kib.map { $0 / 1024 } ?? -1
}

/// A fresh collector fed `rate` events/s for `seconds` (the batches re-sent with new ids each
/// round); prints the rate reached, the rollups' largest lag and the resident memory over time.
func sustain(_ perConnection: [[[JSONValue]]], rate: Double, seconds: Int, batchSize: Int, window: Int, replay: Bool) {
    let span = Int64(ShopTraffic.ingestMix(seed: 0).days) * 86_400_000
    let dir = temporaryDirectory("sustain")
    defer { try? FileManager.default.removeItem(at: dir) }
    let collector = EmbeddedCollector(dbPath: dir.appendingPathComponent("events.sqlite").path, options: EmbeddedCollector.Options())
    let address: SocketAddress
    do {
        address = try collector.start()
    } catch {
        fail("the collector did not start: \(error)")
    }
    defer { collector.stop() }
    guard let store = collector.store as? SQLiteEventStore else { fail("the collector's store is not SQLite") }
    let senders = perConnection.count
    let interval = Double(batchSize * senders) / rate  // seconds between one connection's batches
    let start = ContinuousClock.now + .milliseconds(100)
    let end = start + .seconds(seconds)
    let sampling = Atomic<Bool>(true)
    // Every 100 ms: seconds since start; the last batch logged and the last stored in events
    // (ingest log positions); the last seq stored; the rollups' watermark; RSS MiB. Read without
    // storing anything first (`ingestPositions`), so the sampling does not help the lag.
    let samples = Mutex<[(t: Double, logged: Int64, applied: Int64, last: Int64, watermark: Int64, rss: Double, anonymous: Double)]>([])
    let sampler = Thread {
        while sampling.load(ordering: .relaxed) {
            if let p = try? store.ingestPositions() {
                let t = Benchmark.seconds(ContinuousClock.now - start)
                samples.withLock { $0.append((t, p.logged, p.applied, p.lastSeq, p.watermark, residentMiB("VmRSS"), residentMiB("RssAnon"))) }
            }
            Thread.sleep(forTimeInterval: 0.1)
        }
    }
    sampler.start()
    let cpuBefore = cpuByThreadKind()
    var round = 0
    var sent = 0
    let clock = ContinuousClock.now
    while ContinuousClock.now < end {
        round += 1
        // Each round new ids; and unless `replay`, new visits: its sessions renamed and its times
        // one span of the mix (7 days) later than the round before, as a stream of traffic goes
        // on. Replayed (the same sessions at the same times again), every page enter and click
        // of a later round arrives late in its sequence, among the copies of the rounds before.
        let renamed = perConnection.map { batches in
            batches.map { batch in
                batch.map { e -> JSONValue in
                    guard var o = e.objectValue, let id = o["id"]?.stringValue else { return e }
                    o["id"] = .string("\(id)-\(round)")
                    if !replay {
                        if let session = o["session"]?.stringValue { o["session"] = .string("\(session)-\(round)") }
                        if let ts = o["ts"]?.intValue { o["ts"] = .int(ts + Int64(round - 1) * span) }
                    }
                    return .object(o)
                }
            }
        }
        let roundStart = max(start, ContinuousClock.now)
        let result = sendOverATLP(
            renamed, round: round, to: address, window: window,
            due: { c, n in
                let at = roundStart + .seconds(interval * Double(n) + interval * Double(c) / Double(senders))
                return at < end ? at : nil
            })
        sent += result.stored
        if ContinuousClock.now >= end { break }
    }
    let elapsed = Benchmark.seconds(ContinuousClock.now - clock)
    Thread.sleep(forTimeInterval: 0.3)
    sampling.store(false, ordering: .relaxed)
    Thread.sleep(forTimeInterval: 0.2)
    let cpuAfter = cpuByThreadKind()
    let partsApplied = RollupPart.allCases.map { Int((try? store.rollupPositions($0).watermark) ?? 0) }
    let taken = samples.withLock { $0 }
    // Lag at a sample: its time minus the time of the latest sample whose newest event the
    // watermark had passed (0 when the rollups hold every stored event).
    var maxLag = 0.0
    for s in taken where s.watermark < s.last {
        let caughtUpTo = taken.last { $0.t <= s.t && $0.last <= s.watermark }?.t ?? 0
        maxLag = max(maxLag, s.t - caughtUpTo)
    }
    // The same for the ingest log: batches logged (acknowledged) but not yet in events.
    var maxStoreLag = 0.0
    for s in taken where s.applied < s.logged {
        let caughtUpTo = taken.last { $0.t <= s.t && $0.logged <= s.applied }?.t ?? 0
        maxStoreLag = max(maxStoreLag, s.t - caughtUpTo)
    }
    // From the ACK to the rollups: for each sample, the time until the rollups held every event
    // logged by then (first events, at the sample where they were all stored, then the rollups).
    var maxTotalLag = 0.0
    for (i, u) in taken.enumerated() {
        guard let v = taken[i...].first(where: { $0.applied >= u.logged }), let w = taken[i...].first(where: { $0.t >= v.t && $0.watermark >= v.last })
        else { continue }
        maxTotalLag = max(maxTotalLag, w.t - u.t)
    }
    func mean(_ xs: ArraySlice<Double>) -> Double { xs.isEmpty ? -1 : xs.reduce(0, +) / Double(xs.count) }
    func memory(_ label: String, _ values: [Double]) {
        let quarter = max(1, values.count / 4)
        print("\(label) (MiB): first quarter \(Benchmark.fixed(mean(values.prefix(quarter)), 1)), last quarter \(Benchmark.fixed(mean(values.suffix(quarter)), 1)), largest \(Benchmark.fixed(values.max() ?? -1, 1))")
    }
    print("sustained: \(sent) events in \(Benchmark.fixed(elapsed, 1)) s = \(Benchmark.fixed(Double(sent) / elapsed, 0)) events/s (asked \(Benchmark.fixed(rate, 0)))")
    print("rollup lag: largest \(Benchmark.fixed(maxLag, 2)) s over \(taken.count) samples; after the load: \(taken.last.map { $0.last - $0.watermark } ?? -1) events behind")
    print("events lag (ingest log to events): largest \(Benchmark.fixed(maxStoreLag, 2)) s, after the load \(taken.last.map { $0.logged - $0.applied } ?? -1) batches behind; from the ACK to the rollups: largest \(Benchmark.fixed(maxTotalLag, 2)) s")
    // The worker's own clock over the events it applied: less moved by the machine's load than
    // the rates (the watermark of a fresh database is the number of events applied).
    // Per rollups file (each has its worker and watermark), then the two together: the events
    // applied by both (the lower watermark) and the CPU of both.
    for (part, done) in zip(RollupPart.allCases, partsApplied) {
        let used = cpu("rollups-\(part)", cpuAfter) - cpu("rollups-\(part)", cpuBefore)
        print("rollup worker \(part): \(done) events applied, \(Benchmark.fixed(used, 2)) s of CPU = \(Benchmark.fixed(done > 0 ? used * 1e6 / Double(done) : -1, 1)) µs per applied event")
    }
    let applied = Int(taken.last?.watermark ?? 0)
    let workerCPU = cpu("rollups", cpuAfter) - cpu("rollups", cpuBefore)
    print("rollup workers: \(applied) events applied by both, \(Benchmark.fixed(workerCPU, 2)) s of CPU = \(Benchmark.fixed(applied > 0 ? workerCPU * 1e6 / Double(applied) : -1, 1)) µs per applied event")
    print("CPU per stored event over the sustained run (µs): \(cpuPerEvent(from: cpuBefore, to: cpuAfter, events: sent))")
    memory("resident memory, all (VmRSS)", taken.map(\.rss).filter { $0 > 0 })
    memory("resident memory, anonymous (RssAnon: heap, SQLite's page cache)", taken.map(\.anonymous).filter { $0 > 0 })
    // Over time: whether memory levels off (a bounded cache fills, then stays) or keeps growing.
    let tenths = (1...10).compactMap { i -> String? in
        let until = Double(seconds) * Double(i) / 10
        return taken.last { $0.t <= until && $0.anonymous > 0 }.map { "\(Benchmark.fixed(until, 0)) s \(Benchmark.fixed($0.anonymous, 0))" }
    }
    print("RssAnon (MiB) over time: \(tenths.joined(separator: ", "))")
}

// MARK: the rsyslog baseline

func findRsyslogd() -> String? {
    let paths = ["/usr/sbin/rsyslogd", "/sbin/rsyslogd", "/usr/local/sbin/rsyslogd"]
        + (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/rsyslogd" }
    return paths.first { FileManager.default.isExecutableFile(atPath: $0) }
}

/// The events as octet-counted syslog frames (RFC 6587 §3.4.1): "LEN SP <134>1 - bench autotrack - - - JSON".
func syslogFrames(_ batches: [[JSONValue]]) -> [[UInt8]] {
    batches.map { batch in
        var out: [UInt8] = []
        for event in batch {
            let message = Array("<134>1 - bench autotrack - - - ".utf8) + event.jsonBytes
            out += Array("\(message.count) ".utf8)
            out += message
        }
        return out
    }
}

/// Counts the event lines (those starting with the JSON's `{`) of a growing file, reading only
/// what was added since the last call, into a buffer of its own, and finding the newlines with
/// memchr: polled every 5 ms beside rsyslog, it must cost next to nothing (it reads every byte
/// rsyslog writes; a byte-by-byte `Data` iterator took a core's share from it).
final class LineCounter {
    let path: String
    private var fd: Int32 = -1
    private var buffer = [UInt8](repeating: 0, count: 1 << 20)
    private var atLineStart = true
    private(set) var lines = 0

    init(_ path: String) { self.path = path }

    deinit { if fd >= 0 { Posix.close(fd) } }

    func update() -> Int {
        if fd < 0 { fd = (try? Posix.open(path, O_RDONLY)) ?? -1 }
        guard fd >= 0 else { return 0 }
        let fd = self.fd
        while case .processed(let n)? = try? Posix.withMutableBytes(&buffer, { (raw) throws(PosixError) -> IOResult in try Posix.read(fd, into: raw) }),
            n > 0
        {
            buffer.withUnsafeBytes { raw in
                let base = raw.baseAddress!
                var at = 0
                while at < n {
                    if atLineStart, raw[at] == UInt8(ascii: "{") { lines += 1 }
                    guard let newline = memchr(base + at, 0x0A, n - at) else {
                        atLineStart = false
                        break
                    }
                    at = base.distance(to: UnsafeRawPointer(newline)) + 1
                    atLineStart = true
                }
            }
        }
        return lines
    }
}

/// The rate rsyslog writes the load at, as fast as it takes it (`sustain`: nil), or paced at
/// `sustain.rate` events/s for `sustain.seconds` (the load repeated as often as needed), when it
/// prints the rate reached and how far the file fell behind what was sent.
func rsyslogRate(_ rsyslogd: String, _ perConnection: [[[JSONValue]]], total: Int, sustain: (rate: Double, seconds: Int)? = nil) -> Double {
    let dir = temporaryDirectory("rsyslog")
    defer { try? FileManager.default.removeItem(at: dir) }
    let work = dir.appendingPathComponent("work")
    try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let portFile = dir.appendingPathComponent("port").path
    let logFile = dir.appendingPathComponent("events.log").path
    let conf = dir.appendingPathComponent("rsyslog.conf").path
    let config = """
        global(workDirectory="\(work.path)")
        module(load="imtcp")
        template(name="messageOnly" type="string" string="%msg%\\n")
        input(type="imtcp" address="127.0.0.1" port="0" listenPortFileName="\(portFile)")
        action(type="omfile" file="\(logFile)" template="messageOnly" sync="on" ioBufferSize="1m")

        """
    do {
        try config.write(toFile: conf, atomically: true, encoding: .utf8)
    } catch {
        fail("cannot write \(conf): \(error)")
    }
    let output = dir.appendingPathComponent("rsyslogd.out").path
    FileManager.default.createFile(atPath: output, contents: nil)
    let process: ChildProgram
    do {
        let log = try FileHandle(forWritingTo: URL(fileURLWithPath: output))
        defer { try? log.close() }
        process = try ChildProgram(
            rsyslogd, arguments: ["-n", "-f", conf, "-i", dir.appendingPathComponent("rsyslogd.pid").path],
            standardOutput: .descriptor(log.fileDescriptor), standardError: .descriptor(log.fileDescriptor))
    } catch {
        fail("cannot start \(rsyslogd): \(error)")
    }
    defer {
        process.terminate()
        process.waitForExit()
    }
    // rsyslogd writes the port it listens on once imtcp is up.
    var port: UInt16?
    let deadline = ContinuousClock.now + .seconds(20)
    while port == nil, ContinuousClock.now < deadline, process.isRunning {
        port = (try? String(contentsOfFile: portFile, encoding: .utf8)).flatMap { UInt16($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        if port == nil { Thread.sleep(forTimeInterval: 0.02) }
    }
    guard let port else {
        fail("rsyslogd did not start listening within 20 s (config \(conf), its output \(output)); is it rsyslog 8.2106 or newer (imtcp listenPortFileName)?")
    }
    let frames = perConnection.map(syslogFrames)
    let address = SocketAddress(host: "127.0.0.1", port: port)
    let counter = LineCounter(logFile)
    if let sustain {
        let counts = perConnection.map { $0.map(\.count) }
        return rsyslogSustained(frames, counts, to: address, counter, rate: sustain.rate, seconds: sustain.seconds, process)
    }
    let failures = Mutex<[String]>([])
    let start = ContinuousClock.now
    onThreads(frames.count) { c in
        // A plain TCP connection (not ATLPConnection, whose close says BYE and waits for an answer).
        do throws(PosixError) {
            let fd = try Posix.socket(address)
            defer { Posix.close(fd) }
            try Posix.connect(fd, address, timeout: .seconds(10))
            for bytes in frames[c] { try Posix.sendAll(fd, bytes) }
        } catch {
            failures.withLock { $0.append("connection \(c): \(error)") }
        }
    }
    if let f = failures.withLock({ $0.first }) { fail("an rsyslog client failed: \(f)") }
    let waitUntil = ContinuousClock.now + .seconds(300)
    let countingStart = Benchmark.threadCPUTime()
    while counter.update() < total, ContinuousClock.now < waitUntil, process.isRunning {
        Thread.sleep(forTimeInterval: 0.005)
    }
    let elapsed = ContinuousClock.now - start
    let counting = Benchmark.threadCPUTime() - countingStart
    guard counter.lines == total else {
        fail("rsyslog wrote \(counter.lines) event lines of \(total) lines to \(logFile) within 300 s (running: \(process.isRunning))")
    }
    print("  the bench's line counting beside rsyslog: \(Benchmark.fixed(Benchmark.seconds(counting) * 1000, 1)) ms of CPU in a run of \(Benchmark.fixed(Benchmark.seconds(elapsed) * 1000, 0)) ms")
    return Double(total) / Benchmark.seconds(elapsed)
}

/// rsyslog fed `frames` (one list per connection, repeated; `counts` their events) at `rate`
/// events/s for `seconds`:
/// every 100 ms the lines in its file against the lines sent; prints the rate reached, the
/// largest lag (the time since the last line written was sent) and the time to write the rest
/// once sending stopped. Returns the rate reached.
func rsyslogSustained(
    _ frames: [[[UInt8]]], _ counts: [[Int]], to address: SocketAddress, _ counter: LineCounter, rate: Double, seconds: Int, _ process: ChildProgram
) -> Double {
    let senders = frames.count
    let perBatch = Double(counts.joined().reduce(0, +)) / Double(max(1, counts.joined().count))
    let batchesPerSecond = rate / perBatch / Double(senders)
    let start = ContinuousClock.now + .milliseconds(100)
    let end = start + .seconds(seconds)
    // Lines sent so far and when each 500th was sent, for the lag.
    let sentAt = Mutex<[(lines: Int, at: ContinuousClock.Instant)]>([])
    let sentLines = Atomic<Int>(0)
    let failures = Mutex<[String]>([])
    let group = DispatchGroup()
    for c in 0..<senders {
        group.enter()
        Thread {
            defer { group.leave() }
            do throws(PosixError) {
                let fd = try Posix.socket(address)
                defer { Posix.close(fd) }
                try Posix.connect(fd, address, timeout: .seconds(10))
                var n = 0
                while true {
                    let due = start + .seconds((Double(n) + Double(c) / Double(senders)) / batchesPerSecond)
                    if due >= end { return }
                    if due > ContinuousClock.now { Posix.sleep(due - ContinuousClock.now) }
                    try Posix.sendAll(fd, frames[c][n % frames[c].count])
                    let lines = counts[c][n % counts[c].count]
                    let total = sentLines.wrappingAdd(lines, ordering: .relaxed).newValue
                    sentAt.withLock { $0.append((total, ContinuousClock.now)) }
                    n += 1
                }
            } catch {
                failures.withLock { $0.append("connection \(c): \(error)") }
            }
        }.start()
    }
    var largestLag = 0.0
    while group.wait(timeout: .now() + .milliseconds(100)) == .timedOut {
        let written = counter.update()
        let now = ContinuousClock.now
        // The lag: since the first send whose lines are not all written yet.
        let pending = sentAt.withLock { s in s.first { $0.lines > written }?.at }
        if let pending { largestLag = max(largestLag, Benchmark.seconds(now - pending)) }
    }
    if let f = failures.withLock({ $0.first }) { fail("an rsyslog client failed: \(f)") }
    let sent = sentLines.load(ordering: .relaxed)
    let stopped = ContinuousClock.now
    let waitUntil = stopped + .seconds(120)
    while counter.update() < sent, ContinuousClock.now < waitUntil, process.isRunning { Thread.sleep(forTimeInterval: 0.005) }
    let reached = Double(counter.lines) / Benchmark.seconds(ContinuousClock.now - start)
    print("rsyslog sustained (sync=\"on\"): \(counter.lines) of \(sent) lines written in \(Benchmark.fixed(Benchmark.seconds(ContinuousClock.now - start), 1)) s = \(String(format: "%.0f", reached)) events/s (asked \(String(format: "%.0f", rate))); largest lag \(Benchmark.fixed(largestLag, 2)) s; the rest written \(Benchmark.fixed(Benchmark.seconds(ContinuousClock.now - stopped), 2)) s after the last send")
    return reached
}

// MARK: the run

let settings = Settings.parse(Array(CommandLine.arguments.dropFirst()))
var traffic = ShopTraffic.ingestMix(seed: settings.seed)
let perConnection = traffic.dealt(total: settings.events, batchSize: settings.batch, senders: settings.connections)
let total = perConnection.reduce(0) { $0 + $1.reduce(0) { $0 + $1.count } }
let bytes = perConnection.reduce(0) { $0 + $1.reduce(0) { $0 + $1.reduce(0) { $0 + $1.jsonBytes.count } } }
print("ingest-bench: \(total) events (ShopTraffic.ingestMix, seed \(settings.seed), \(bytes / total) bytes of JSON each on average), "
    + "\(settings.connections) connections, batches of \(settings.batch), a window of \(settings.window) batches in flight per connection "
    + "(the agent's: \(agentWindow)), ACK once the batch is durable "
    + (settings.postgres ? "(committed in PostgreSQL)" : "(in the ingest log)"))
print("load average before: \(Benchmark.loadAverage())")

if settings.postgres, settings.killLoop == 0 { fail("--postgres goes with --kill-loop N (see --help)") }
if settings.killLoop > 0 {
    guard let binary = settings.collector else { fail("--kill-loop needs --collector PATH (an autotrack-collector binary)") }
    killLoop(binary, perConnection, total: total, kills: settings.killLoop, window: settings.window, postgres: settings.postgres)
    print("load average after: \(Benchmark.loadAverage())")
    exit(0)
}

if let rate = settings.sustainRate {
    let seconds = settings.sustain > 0 ? settings.sustain : 60
    sustain(perConnection, rate: rate, seconds: seconds, batchSize: settings.batch, window: settings.window, replay: settings.sustainReplay)
    // The baseline at the same rate, in the same run.
    if let rsyslogd = findRsyslogd() { _ = rsyslogRate(rsyslogd, perConnection, total: total, sustain: (rate, seconds)) }
    print("load average after: \(Benchmark.loadAverage())")
    exit(0)
}

/// Each round's rates (events/s): the collector, rsyslog, the collector with its rollups paused,
/// the old collector (an empty list: not run).
var collectorRates: [Double] = [], rsyslogRates: [Double] = [], aloneRates: [Double] = [], oldRates: [Double] = []
let rsyslogd = findRsyslogd()
for round in 1...settings.rounds {
    if settings.rounds > 1 { print("round \(round) of \(settings.rounds)\(round % 2 == 0 ? " (rsyslog first)" : ""):") }
    func runCollector() {
        let collector = collectorRate(perConnection, total: total, window: settings.window)
        guard collector.stored == total else { fail("the collector stored \(collector.stored) of \(total) events") }
        collectorRates.append(collector.rate)
        print("collector (EmbeddedCollector, SQLite synchronous=FULL):  \(String(format: "%.0f", collector.rate)) events/s stored")
    }
    func runRsyslog() {
        guard let rsyslogd else { return }
        let baseline = rsyslogRate(rsyslogd, perConnection, total: total)
        rsyslogRates.append(baseline)
        print("rsyslog (imtcp -> omfile sync=\"on\", the baseline):       \(String(format: "%.0f", baseline)) events/s written")
    }
    // Alternately first: neither always runs on a machine the other has just warmed or loaded.
    if round % 2 == 1 {
        runCollector()
        runRsyslog()
    } else {
        runRsyslog()
        runCollector()
    }
    if let baseline = rsyslogRates.last, let rate = collectorRates.last {
        print("ratio collector / rsyslog:                              \(Benchmark.ratio(rate, to: baseline, digits: 3))")
    } else if rsyslogd == nil {
        print("rsyslog: not installed (no rsyslogd on PATH or in /usr/sbin): no baseline; Tools/setup.sh installs it")
    }
    if settings.withoutRollups {
        let alone = collectorRate(perConnection, total: total, window: settings.window, rollups: false)
        aloneRates.append(alone.rate)
        print("collector, rollup worker paused (the rows alone):       \(String(format: "%.0f", alone.rate)) events/s stored")
    }
    if let binary = settings.oldCollector {
        let old = oldCollectorRate(binary, perConnection, total: total, window: settings.window)
        guard old.stored == total else { fail("the old collector stored \(old.stored) of \(total) events") }
        oldRates.append(old.rate)
        print("old collector (\(binary)):  \(String(format: "%.0f", old.rate)) events/s stored")
        print("ratio collector / old collector:                        \(Benchmark.ratio(collectorRates.last!, to: old.rate, digits: 3))")
    } else if round == 1 {
        print("old collector: none given (--old-collector PATH or $AUTOTRACK_OLD_COLLECTOR; docs/performance.md builds a49f2e4's)")
    }
}

/// "median M (min A, max B) over N rounds" of each round's ratio of `rates` to `baselines`.
func ratioSummary(_ rates: [Double], to baselines: [Double]) -> String {
    let ratios = zip(rates, baselines).map { $0 / $1 }
    return "median \(Benchmark.fixed(Benchmark.median(ratios), 3)) (min \(Benchmark.fixed(ratios.min()!, 3)), "
        + "max \(Benchmark.fixed(ratios.max()!, 3))) over \(ratios.count) rounds"
}

if settings.rounds > 1 {
    print("over \(settings.rounds) rounds: collector \(String(format: "%.0f", Benchmark.median(collectorRates))) events/s (median)")
    if !rsyslogRates.isEmpty { print("ratio collector / rsyslog, each round's:                \(ratioSummary(collectorRates, to: rsyslogRates))") }
    if !oldRates.isEmpty { print("ratio collector / old collector, each round's:          \(ratioSummary(collectorRates, to: oldRates))") }
}
let collector = (rate: Benchmark.median(collectorRates), stored: total)
if settings.sustain > 0 {
    print("load average before the sustained load: \(Benchmark.loadAverage())")
    sustain(
        perConnection, rate: collector.rate / 2, seconds: settings.sustain, batchSize: settings.batch, window: settings.window,
        replay: settings.sustainReplay)
}
print("load average after: \(Benchmark.loadAverage())")
