import Dispatch
import EventModel
import Foundation
import Synchronization
public import SystemCalls

/// Keeps a tracker's rules current: on a thread of its own (never the UI thread, never the Swift
/// concurrency pool), it first applies the last good set kept on disk, then asks the source at
/// start, whenever `refreshSoon()` is called (the tracker calls it on return to the foreground)
/// and every `interval`. A new set is handed to the tracker, which swaps it in atomically or
/// refuses it whole; an accepted set is written to disk for offline starts. When the source
/// cannot be reached, the rules in use stay.
///
/// Each answer also says whether circle mode is on (docs/agent.md "Snapshots"); while it is, the
/// source is asked every `circleModeInterval` instead, so the studio sees pages as they come, and
/// a change is told to the `onCircleModeChange` listeners. A failed request turns it off.
public final class ConfigRefresher: BackgroundService {
    /// What the refresher has done.
    public struct Statistics: Sendable, Hashable {
        /// Requests answered (with rules or `unchanged`).
        public var answers = 0
        public var unchanged = 0
        /// Sets swapped in (from the source or from disk); one from the source counts once it is
        /// also kept on disk.
        public var applied = 0
        /// Sets refused whole (each also reported as a `config_rejected` event).
        public var refused = 0
        /// Requests that failed (the collector unreachable, a broken answer).
        public var failures = 0
        /// A set was read from disk at start.
        public var loadedFromDisk = false
        public var lastError: String?
    }

    public let interval: Duration
    private let source: any RulesSource
    private let directory: String?
    private weak let tracker: Tracker?
    private let firstAttempt = DispatchGroup()
    private let state = Mutex<(statistics: Statistics, refusedEtag: String?)>((Statistics(), nil))
    /// The refresher's thread: asks, then pauses for the interval (less when woken).
    private let worker: ServiceThread
    private let circle = Mutex<(on: Bool, listeners: [@Sendable (Bool) -> Void])>((false, []))

    /// How often the source is asked while circle mode is on (at most `interval`).
    public static let circleModeInterval: Duration = .seconds(3)

    /// Whether the last answer said circle mode is on.
    public var circleMode: Bool { circle.withLock { $0.on } }

    /// Calls `listener` with each change of circle mode, on the refresher's thread (and at once,
    /// on the caller's, when it is on already).
    public func onCircleModeChange(_ listener: @escaping @Sendable (Bool) -> Void) {
        let on = circle.withLock { c in
            c.listeners.append(listener)
            return c.on
        }
        if on { listener(true) }
    }

    private func setCircleMode(_ on: Bool) {
        let listeners = circle.withLock { c -> [@Sendable (Bool) -> Void] in
            guard c.on != on else { return [] }
            c.on = on
            return c.listeners
        }
        for l in listeners { l(on) }
    }

    init(tracker: Tracker, source: any RulesSource, interval: Duration, directory: String?) {
        self.tracker = tracker
        self.source = source
        self.interval = interval
        self.directory = directory
        firstAttempt.enter()
        worker = ServiceThread(threadName: ConfigRefresher.threadName)
    }

    public var statistics: Statistics { state.withLock { $0.statistics } }

    package var serviceName: String { "rules refresher" }

    package func start() { worker.start { [self] thread in run(on: thread) } }

    /// Stops the thread, waiting at most `grace` for a request in progress.
    @discardableResult
    package func stop(grace: Duration) -> Bool { stop(timeout: grace) }

    /// Asks the source again now instead of at the end of the interval.
    public func refreshSoon() { worker.wake() }

    /// Stops the thread, waiting at most `timeout` for a request in progress.
    @discardableResult
    public func stop(timeout: Duration = .seconds(5)) -> Bool {
        worker.requestStop(grace: timeout)
        return worker.waitUntilStopped(timeout: timeout)
    }

    /// Waits until the first request at start was answered or failed, at most `timeout`; true
    /// when it was. (A command that runs a scripted session waits, so its events do not depend
    /// on how fast the collector answers.)
    @discardableResult
    public func waitForFirstAttempt(timeout: Duration) -> Bool {
        firstAttempt.wait(timeout: .now() + .milliseconds(Int(timeout.wholeMilliseconds))) == .success
    }

    /// The name the refresher's thread carries (pthread names hold 15 bytes).
    public static let threadName = "autotrack-conf"

    /// Whether the caller runs on this refresher's own thread.
    public var isCurrentThread: Bool { worker.isCurrent }

    private func run(on thread: ServiceThread) {
        var first = true
        // The group must be left on every path (a stop before the first request included).
        defer { if first { firstAttempt.leave() } }
        loadFromDisk()
        // Also ends when the tracker is gone (released without `stop`).
        while !thread.isStopping, tracker != nil {
            refreshOnce()
            if first {
                firstAttempt.leave()
                first = false
            }
            guard thread.pause(for: circleMode ? min(interval, ConfigRefresher.circleModeInterval) : interval) else { break }
        }
    }

    /// Applies the set kept on disk, if any and if it still fits the local plan.
    func loadFromDisk() {
        guard let directory, let tracker, let bytes = AgentDataDirectory.read(RemoteRules.fileName, in: directory),
            let json = try? JSONValue.parse(bytes), let rules = RemoteRules(json: json)
        else { return }
        let ok = tracker.apply(rules, fromDisk: true)
        state.withLock { s in
            s.statistics.loadedFromDisk = ok
            if ok { s.statistics.applied += 1 }
        }
    }

    /// One request to the source, and what follows from its answer. Runs on the refresher's
    /// thread (tests may call it from theirs).
    func refreshOnce() {
        guard let tracker else { return }
        let answer: RulesAnswer
        do {
            let reply = try source.fetchWithCircleMode(etag: tracker.rulesEtag)
            answer = reply.answer
            setCircleMode(reply.circleMode)
        } catch {
            state.withLock { s in
                s.statistics.failures += 1
                s.statistics.lastError = String(describing: error)
            }
            setCircleMode(false)
            return
        }
        switch answer {
        case .unchanged:
            state.withLock { s in
                s.statistics.answers += 1
                s.statistics.unchanged += 1
            }
        case .rules(let rules):
            // The set in use, or one already refused and reported: nothing to do.
            let known = state.withLock { $0.refusedEtag } == rules.etag
            if rules.etag == tracker.rulesEtag || known {
                state.withLock { $0.statistics.answers += 1 }
                return
            }
            let ok = tracker.apply(rules, fromDisk: false)
            var keepError: String?
            if ok, let directory {
                do {
                    try AgentDataDirectory.write(Array(rules.json.jsonText.utf8), to: RemoteRules.fileName, in: directory)
                } catch {
                    keepError = "cannot keep the rules in \(directory): \(error)"
                }
            }
            // Counted once kept on disk, so `applied` also says the set survives a restart.
            state.withLock { s in
                s.statistics.answers += 1
                if ok { s.statistics.applied += 1 } else { s.statistics.refused += 1 }
                s.refusedEtag = ok ? nil : rules.etag
                if let keepError { s.statistics.lastError = keepError }
            }
        }
    }
}
